//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/tray/traytest"
)

// trayDeadline bounds every wait in the tray test: the app starts, its
// servers connect and the window's process comes up in a few seconds.
const trayDeadline = 60 * time.Second

// TestTray runs the real mcptray as a person does on a desktop: a tray
// host on the session bus (a minimal StatusNotifierWatcher) and an X
// display (Xvfb) for the window. It reads the menu over
// com.canonical.dbusmenu, opens the window from it, launches mcptray a
// second time, and quits; nothing may be left running.
func TestTray(t *testing.T) {
	t.Parallel()
	traytest.NeedBus(t)
	dir, bin, testServer, display := desktop(t)

	ctx, cancel := context.WithTimeout(context.Background(), trayDeadline)
	defer cancel()
	watcher := traytest.StartWatcher(ctx, t)
	conn := traytest.Connect(t)

	home := filepath.Join(dir, "home")
	cfg := filepath.Join(home, ".config", "mcptray")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	config := map[string]any{"mcpServers": map[string]any{
		"notes": map[string]any{"command": testServer, "args": []string{"-name", "notes"}},
		"gone":  map[string]any{"command": "mcptray-no-such-program"},
	}}
	b, _ := json.Marshal(config)
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	// Not the first launch, so the window opens only when asked.
	if err := os.WriteFile(filepath.Join(cfg, "launched"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "DISPLAY=" + display,
		"DBUS_SESSION_BUS_ADDRESS=" + os.Getenv("DBUS_SESSION_BUS_ADDRESS"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "LIBGL_ALWAYS_SOFTWARE=1",
	}
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}

	app, appOut, exited := startApp(t, bin, env)

	item, err := traytest.ItemOf(ctx, conn, watcher, app.Process.Pid)
	if err != nil {
		t.Fatalf("%v\nmcptray said:\n%s", err, appOut.String())
	}
	menu, err := traytest.WaitMenu(ctx, conn, item, func(m []traytest.MenuItem) bool {
		_, summary := traytest.Find(m, "1 connected · 1 failed")
		_, quit := traytest.Find(m, "Quit") // the menu is whole
		return summary && quit
	})
	if err != nil {
		t.Fatalf("waiting for the summary: %v; the menu is %q", err, traytest.Labels(menu))
	}
	labels := traytest.Labels(menu)
	for _, want := range []string{"notes — connected", "Retry gone", "Open mcptray", "Pause all", "Quit"} {
		if !slices.Contains(labels, want) {
			t.Errorf("the menu lacks %q: %q", want, labels)
		}
	}
	if !slices.ContainsFunc(labels, func(l string) bool {
		return strings.HasPrefix(l, "gone — failed") && strings.Contains(l, "not installed")
	}) {
		t.Errorf("the menu does not say in plain words why gone failed: %q", labels)
	}
	if got := windows(bin); len(got) != 0 {
		t.Fatalf("a window runs before it was asked for: %v", got)
	}

	// "Open mcptray" starts the window's own process.
	if err := traytest.Click(ctx, conn, item, "Open mcptray"); err != nil {
		t.Fatal(err)
	}
	waitProcs(ctx, t, "the window's process", func() bool { return len(windows(bin)) == 1 })
	window := windows(bin)[0]

	// A second launch brings the running one's window forward and exits 0.
	second := exec.CommandContext(ctx, bin)
	second.Env = env
	if out, err := second.CombinedOutput(); err != nil || !strings.Contains(string(out), "already running") {
		t.Errorf("a second mcptray: %v\n%s", err, out)
	}
	if got := windows(bin); len(got) != 1 || got[0] != window {
		t.Errorf("after a second launch the windows are %v, want still only %d", got, window)
	}
	servers := running(testServer)
	if len(servers) != 1 {
		t.Errorf("%d test servers run, want 1", len(servers))
	}

	// Quit stops every server process and the window.
	if err := traytest.Click(ctx, conn, item, "Quit"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("mcptray exited with %v after Quit\n%s", err, appOut.String())
		}
	case <-ctx.Done():
		t.Fatalf("mcptray still runs %s after Quit\n%s", trayDeadline, appOut.String())
	}
	waitProcs(ctx, t, "no window and no server left", func() bool {
		return len(windows(bin)) == 0 && !slices.ContainsFunc(servers, proc.alive)
	})
	if strings.Contains(appOut.String(), "panic") {
		t.Errorf("mcptray panicked:\n%s", appOut.String())
	}
}

// TestNoTray: with no session bus there is no tray; the window is the way
// in, it is told why, and when it closes mcptray quits with its servers.
func TestNoTray(t *testing.T) {
	t.Parallel()
	dir, bin, testServer, display := desktop(t)
	ctx, cancel := context.WithTimeout(context.Background(), trayDeadline)
	defer cancel()

	home := filepath.Join(dir, "home")
	env := []string{"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "DISPLAY=" + display,
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "LIBGL_ALWAYS_SOFTWARE=1"}
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	add := exec.Command(bin, "add", "notes", "--", testServer, "-name", "notes")
	add.Env = env
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("mcptray add: %v\n%s", err, out)
	}

	_, appOut, exited := startApp(t, bin, env)
	waitProcs(ctx, t, "the window, the only way in", func() bool { return len(windows(bin)) == 1 })
	win := windows(bin)[0]
	cmdline, _ := os.ReadFile(filepath.Join("/proc", fmt.Sprint(win), "cmdline"))
	if !strings.Contains(string(cmdline), "--no-tray") {
		t.Errorf("the window was not told there is no tray: %q", cmdline)
	}
	waitProcs(ctx, t, "the server to start", func() bool { return len(running(testServer)) == 1 })
	servers := running(testServer)
	logs := filepath.Join(home, ".local", "state", "mcptray", "logs")
	waitProcs(ctx, t, "the window to log that it opens", func() bool {
		b, _ := os.ReadFile(filepath.Join(logs, "window.log"))
		return strings.Contains(string(b), `"msg":"the window opens"`)
	})

	// The window goes away: mcptray goes with it, and its server too.
	if p, err := os.FindProcess(win); err == nil {
		p.Signal(os.Interrupt)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("mcptray exited with %v after its window closed\n%s", err, appOut.String())
		}
	case <-ctx.Done():
		t.Fatalf("mcptray still runs after its only window closed\n%s", appOut.String())
	}
	waitProcs(ctx, t, "the server to stop", func() bool { return !slices.ContainsFunc(servers, proc.alive) })
	if out := appOut.String(); !strings.Contains(out, "no tray") || strings.Contains(out, "panic") {
		t.Errorf("mcptray's output does not say there is no tray, or shows a panic:\n%s", out)
	}
	// The tray's process wrote its log; the window wrote its own.
	b, err := os.ReadFile(filepath.Join(logs, "mcptray.log"))
	for _, want := range []string{`"msg":"mcptray starts in the tray"`, `"msg":"started stdio server","server":"notes"`, `"msg":"mcptray stopped"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("mcptray.log has no %s (%v):\n%s", want, err, b)
		}
	}
}

// startApp starts mcptray with no arguments, as a person does, and kills
// it when the test ends if it is still running. Its output, stdout and
// stderr together, is in out; exited receives how it ended.
func startApp(t *testing.T, bin string, env []string) (app *exec.Cmd, out *syncBuffer, exited chan error) {
	t.Helper()
	app = exec.Command(bin)
	app.Env = env
	out = &syncBuffer{}
	app.Stdout, app.Stderr = out, out
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan error, 1)
	done := make(chan struct{})
	go func() { err := app.Wait(); close(done); exited <- err }()
	t.Cleanup(func() {
		select {
		case <-done:
		default: // a failed test left it running
			app.Process.Kill()
			<-done
		}
	})
	return app, out, exited
}

// syncBuffer collects a process's output while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// desktop gives t its own mcptray and test server (see Own) and starts
// a virtual display for them; it skips t where there is no Xvfb.
func desktop(t *testing.T) (dir, bin, testServer, display string) {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("run make deps: %v", err)
		}
		t.Skip("Xvfb is not installed (make deps installs it)")
	}
	return t.TempDir(), Own(t, Binary(t)), Own(t, TestServer(t)), startXvfb(t)
}

// windows lists the pids of bin's window processes.
func windows(bin string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		if len(argv) > 1 && argv[0] == bin && argv[1] == "window" {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			if st, err := readStat(pid); err == nil && st.state != "Z" {
				out = append(out, pid)
			}
		}
	}
	return out
}

// waitProcs waits until ok holds, looking again every few milliseconds:
// there is no event for another process starting or ending.
func waitProcs(ctx context.Context, t *testing.T, what string, ok func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waited %s for %s", trayDeadline, what)
		case <-tick.C:
		}
	}
}

// startXvfb starts a virtual X display for the test and returns its name.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb did not say its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}
