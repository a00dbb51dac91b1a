// Package npmtest runs a real npm registry for tests: verdaccio, on
// loopback, with a folder of its own and no uplink, and a home whose
// ~/.npmrc points npm at it.
package npmtest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Registry is a running verdaccio.
type Registry struct {
	// URL is its address, with a trailing slash.
	URL string
	// Home is a home folder whose .npmrc names the registry.
	Home string
	// Env is an environment for npm with Home as HOME.
	Env []string
	// publisher's npmrc, with a token verdaccio takes.
	publishRC string
}

// verdaccio finds verdaccio: $MCPTRAY_VERDACCIO, or test/peers (make deps
// installs it there). Without it the test is skipped, or fails under CI.
func verdaccio(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPTRAY_VERDACCIO"); p != "" {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "test", "peers", "node_modules", ".bin", "verdaccio")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("verdaccio is not installed (make deps installs it): %v", err)
		}
		t.Fatalf("run make deps: %v", err)
	}
	return p
}

// Start starts a registry that lives as long as the test.
func Start(t *testing.T) *Registry {
	t.Helper()
	bin := verdaccio(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm on PATH")
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := filepath.Join(dir, "config.yaml")
	write(t, cfg, fmt.Sprintf(`storage: %s
auth:
  htpasswd:
    file: %s
packages:
  '**':
    access: $all
    publish: $all
log: { type: stdout, format: pretty, level: info }
`, filepath.Join(dir, "storage"), filepath.Join(dir, "htpasswd")))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config", cfg, "--listen", addr)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	up := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "http address") {
				said = true
				close(up)
			}
		}
	}()
	select {
	case <-up:
	case <-time.After(60 * time.Second):
		t.Fatal("verdaccio did not start within a minute")
	}
	r := &Registry{URL: "http://" + addr + "/"}
	resp, err := http.Get(r.URL + "-/ping")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r.Home = filepath.Join(dir, "home")
	if err := os.MkdirAll(r.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.Home, ".npmrc"), "registry="+r.URL+"\n")
	r.publishRC = filepath.Join(dir, "publish.npmrc")
	write(t, r.publishRC, "registry="+r.URL+"\n//"+addr+"/:_authToken=x\n")
	r.Env = append(os.Environ(), "HOME="+r.Home)
	return r
}

// Publish publishes the package whose files are given by their path in
// it (package.json among them).
func (r *Registry) Publish(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		write(t, filepath.Join(dir, name), text)
	}
	home := t.TempDir() // npm's cache and logs, not in the package
	cmd := exec.Command("npm", "publish", "--userconfig", r.publishRC, "--cache", filepath.Join(home, "cache"), "--ignore-scripts")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm publish: %v\n%s", err, out)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
