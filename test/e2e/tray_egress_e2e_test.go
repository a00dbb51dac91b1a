//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/tray/traytest"
)

// TestTrayAsksAboutTheNetwork runs the real mcptray in the tray with a
// sandboxed server whose tool fetches a URL: an app's call (mcptray call)
// to a host not on the server's list waits while the tray asks, in its
// menu and in a notification, with no window opened; Allow once in the
// menu lets the request through.
//
// The web server listens on this computer's own address, not 127.0.0.1:
// Go's client never sends loopback through a proxy.
func TestTrayAsksAboutTheNetwork(t *testing.T) {
	t.Parallel()
	traytest.NeedBus(t)
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock: the server would run without mcptray's proxy")
	}
	ip := ownAddress(t)
	dir, bin, testServer, display := desktop(t)
	ctx, cancel := context.WithTimeout(context.Background(), trayDeadline)
	defer cancel()

	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	web := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello") })}
	go web.Serve(ln)
	t.Cleanup(func() { web.Close() })
	dest := ln.Addr().String()

	watcher := traytest.StartWatcher(ctx, t)
	notes := traytest.StartNotifications(ctx, t)
	conn := traytest.Connect(t)
	home := filepath.Join(dir, "home")
	cfg := filepath.Join(home, ".config", "mcptray")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"web": map[string]any{"command": testServer, "args": []string{"-name", "web", "-fetch"}},
	}})
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "launched"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "DISPLAY=" + display,
		"DBUS_SESSION_BUS_ADDRESS=" + os.Getenv("DBUS_SESSION_BUS_ADDRESS"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "LIBGL_ALWAYS_SOFTWARE=1",
	}
	app, appOut, _ := startApp(t, bin, env)
	item, err := traytest.ItemOf(ctx, conn, watcher, app.Process.Pid)
	if err != nil {
		t.Fatalf("%v\nmcptray said:\n%s", err, appOut.String())
	}
	if _, err := traytest.WaitMenu(ctx, conn, item, func(m []traytest.MenuItem) bool {
		_, ok := traytest.Find(m, "web — connected")
		return ok
	}); err != nil {
		t.Fatalf("%v\nmcptray said:\n%s", err, appOut.String())
	}

	call := exec.CommandContext(ctx, bin, "call", "web", "fetch", `{"url":"http://`+dest+`/"}`)
	call.Env = env
	called := make(chan string, 1)
	go func() {
		out, err := call.CombinedOutput()
		called <- fmt.Sprintf("%s%v", out, err)
	}()

	line := "web asks to reach " + dest + " (this computer or your network)"
	menu, err := traytest.WaitMenu(ctx, conn, item, func(m []traytest.MenuItem) bool {
		_, ok := traytest.Find(m, line)
		return ok
	})
	if err != nil {
		select {
		case out := <-called:
			t.Fatalf("%v\nthe call ended: %s\nmcptray said:\n%s", err, out, appOut.String())
		default:
			t.Fatalf("%v\nmcptray said:\n%s", err, appOut.String())
		}
	}
	if menu[0].Label != "1 connected · 1 question waiting" {
		t.Errorf("the summary is %q, want the question counted", menu[0].Label)
	}
	shown, err := notes.Wait(ctx, func(n []traytest.Notification) bool {
		for _, x := range n {
			if x.Summary == "Allow web to reach "+dest+"?" {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Errorf("%v; shown: %+v", err, shown)
	}
	if got := windows(bin); len(got) != 0 {
		t.Errorf("a window opened while the tray asked: %v", got)
	}
	if err := traytest.Click(ctx, conn, item, "Allow once"); err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-called:
		if !strings.Contains(out, "200 hello") {
			t.Errorf("allowed once in the tray, the call said:\n%s\nmcptray said:\n%s", out, appOut.String())
		}
	case <-ctx.Done():
		t.Fatalf("the call still waits after Allow once\nmcptray said:\n%s", appOut.String())
	}
	if _, err := traytest.WaitMenu(ctx, conn, item, func(m []traytest.MenuItem) bool {
		_, ok := traytest.Find(m, line)
		return !ok
	}); err != nil {
		t.Errorf("the answered question stays in the menu: %v", err)
	}
	if err := traytest.Click(ctx, conn, item, "Quit"); err != nil {
		t.Fatal(err)
	}
}

// ownAddress is an IPv4 address of this computer other than loopback; the
// test is skipped on a computer with none.
func ownAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("this computer has no network address but loopback")
	return ""
}
