//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/tray/traytest"
)

// TestRunAsksAboutTheNetwork: a request through the real egress proxy to
// a host not on the server's list waits while the tray asks, in its menu
// and in a notification (the window is closed), and does not open the
// window; Allow once in the menu lets it through, Deny refuses the next
// with 403, and the question leaves the menu, and its notification goes,
// once answered.
func TestRunAsksAboutTheNetwork(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	t.Cleanup(site.Close)
	port := strconv.Itoa(site.Listener.Addr().(*net.TCPAddr).Port)
	opened := make(chan string, 4)
	ep := &control.Endpoint{OpenWindow: func(server string) error { opened <- server; return nil }}
	proxy := egress.New(egress.Options{
		Ask: ep.AskEgress,
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
	})
	if err := proxy.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	u, _ := url.Parse(proxy.Env("weather")["HTTP_PROXY"])
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	get := func(host string) <-chan string {
		out := make(chan string, 1)
		go func() {
			res, err := client.Get("http://" + host + ":" + port + "/")
			if err != nil {
				out <- err.Error()
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			out <- res.Status + " " + string(b)
		}()
		return out
	}

	s := snap(sv("weather", service.Connected, ""))
	tr := start(ctx, t, newFake(s), true, func(o *Options) { o.Questions = ep })
	tr.waitMenu(ctx, t, s)

	dest := "api.weather.gov:" + port
	got := get("api.weather.gov")
	line := "weather asks to reach " + dest
	// The menu is redrawn as the question and the day's summary arrive:
	// wait for the whole of its beginning, not only the question's line.
	want := []string{"1 connected · 1 question waiting", "Today: 7 calls from your AI apps; the guard held 2", "", line, "Allow once", "Always", "Deny", ""}
	menu, err := traytest.WaitMenu(ctx, tr.conn, tr.item, func(m []traytest.MenuItem) bool {
		l := traytest.Labels(m)
		return len(l) >= len(want) && slices.Equal(l[:len(want)], want)
	})
	if err != nil {
		t.Fatalf("menu %q, want it to begin with %q: %v", traytest.Labels(menu), want, err)
	}
	if got, want := tr.tooltip(ctx, t), "mcptray: 1 connected · 1 question waiting"; got != want {
		t.Errorf("tooltip %q, want %q", got, want)
	}
	shown, err := tr.notes.Wait(ctx, func(n []traytest.Notification) bool { return len(n) > 0 })
	if err != nil {
		t.Fatal(err)
	}
	if n := shown[0]; n.Summary != "Allow weather to reach "+dest+"?" || !strings.Contains(n.Body, "menu") {
		t.Errorf("notification %+v, want the question", n)
	}

	tr.click(ctx, t, "Allow once")
	if res := receive(ctx, t, got, "the request allowed once"); res != "200 OK hello from "+dest {
		t.Errorf("allowed once in the tray: the request got %q", res)
	}
	tr.waitMenu(ctx, t, s) // the question is gone, and so is its notification
	if err := tr.notes.WaitClosed(ctx, shown[0].ID); err != nil {
		t.Error(err)
	}

	got = get("other.weather.gov")
	if _, err := traytest.WaitMenu(ctx, tr.conn, tr.item, func(m []traytest.MenuItem) bool {
		_, ok := traytest.Find(m, "weather asks to reach other.weather.gov:"+port)
		return ok
	}); err != nil {
		t.Fatal(err)
	}
	tr.click(ctx, t, "Deny")
	if res := receive(ctx, t, got, "the request denied"); !strings.HasPrefix(res, "403 ") {
		t.Errorf("denied in the tray: the request got %q", res)
	}
	tr.waitMenu(ctx, t, s)
	select {
	case server := <-opened:
		t.Errorf("the window was opened at %q while the tray asked", server)
	default:
	}
}
