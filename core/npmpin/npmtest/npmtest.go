// Package npmtest runs a real npm registry for tests: verdaccio, on
// loopback, with a folder of its own and no uplink, lent to one test at a
// time, and a home whose ~/.npmrc points npm at it.
package npmtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Registry is a running verdaccio, as one test has it.
type Registry struct {
	// URL is its address, with a trailing slash.
	URL string
	// Home is a home folder whose .npmrc names the registry, the test's
	// own.
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

// One verdaccio serves every test of a test program, one test at a time:
// starting it is a second or two of Node loading its code, five or more
// on a busy computer, and each test that publishes would pay it again.
// A test has it from Start until it ends; then what the test published
// is unpublished, so the next test finds it empty, as a registry of its
// own would be. It ends with the test program.
var shared struct {
	turn sync.Mutex // held by the test that has the registry
	srv  *server    // nil until the first Start, or after a failure
}

// server is the running verdaccio.
type server struct {
	url       string // with a trailing slash
	storage   string // where it keeps what is published
	publishRC string // an npmrc with a token it takes
	stop      func() // ends it
}

// Start lends the test program's registry to t until t ends, starting it
// at the first call. Tests that call Start take turns: a test that
// already runs beside others (t.Parallel) waits here for its turn.
func Start(t *testing.T) *Registry {
	t.Helper()
	bin := verdaccio(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm on PATH")
	}
	shared.turn.Lock()
	if shared.srv == nil {
		srv, err := startServer(bin)
		if err != nil {
			shared.turn.Unlock()
			t.Fatal(err)
		}
		shared.srv = srv
	}
	srv := shared.srv
	t.Cleanup(func() {
		defer shared.turn.Unlock()
		if err := srv.empty(); err != nil {
			// The next test gets a registry of its own rather than
			// what this one left.
			t.Logf("the registry could not be emptied (the next test starts another): %v", err)
			srv.stop()
			shared.srv = nil
		}
	})
	r := &Registry{URL: srv.url, publishRC: srv.publishRC}
	r.Home = filepath.Join(t.TempDir(), "home")
	write(t, filepath.Join(r.Home, ".npmrc"), "registry="+r.URL+"\n")
	r.Env = append(os.Environ(), "HOME="+r.Home)
	return r
}

// startServer starts verdaccio on loopback, with a folder of its own and
// no uplink. It runs under a shell that waits on a pipe from this program
// and ends it, and removes its folder, when the pipe closes: when stop is
// called or this program ends, however it ends.
func startServer(bin string) (*server, error) {
	dir, err := os.MkdirTemp("", "mcptray-verdaccio-")
	if err != nil {
		return nil, fmt.Errorf("a folder for verdaccio: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	srv := &server{url: "http://" + addr + "/", storage: filepath.Join(dir, "storage"), publishRC: filepath.Join(dir, "publish.npmrc")}
	cfg := filepath.Join(dir, "config.yaml")
	files := map[string]string{
		cfg: fmt.Sprintf(`storage: %s
auth:
  htpasswd:
    file: %s
packages:
  '**':
    access: $all
    publish: $all
log: { type: stdout, format: pretty, level: info }
`, srv.storage, filepath.Join(dir, "htpasswd")),
		srv.publishRC: "registry=" + srv.url + "\n//" + addr + "/:_authToken=x\n",
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	// The shell's own stdin is the pipe; verdaccio, run in the
	// background, gets /dev/null. Once the pipe closes, nothing reads
	// the shell's output: a word from it then would end it unfinished.
	const watch = `"$0" "$@" & pid=$!; read -r _; exec >/dev/null 2>&1; kill $pid; wait $pid; rm -rf "$DIR"`
	cmd := exec.Command("sh", "-c", watch, bin, "--config", cfg, "--listen", addr)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DIR="+dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting verdaccio: %w", err)
	}
	srv.stop = func() { in.Close(); _ = cmd.Wait() }
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
		srv.stop()
		return nil, errors.New("verdaccio did not start within a minute")
	}
	resp, err := http.Get(srv.url + "-/ping")
	if err != nil {
		srv.stop()
		return nil, fmt.Errorf("verdaccio does not answer: %w", err)
	}
	resp.Body.Close()
	return srv, nil
}

// empty unpublishes every package published to the registry, as npm
// unpublish --force does, and checks that none is left.
func (s *server) empty() error {
	names, err := s.packages()
	if err != nil {
		return err
	}
	for _, name := range names {
		path := s.url + strings.Replace(name, "/", "%2f", 1)
		rev, err := s.revision(path)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		req, err := http.NewRequest(http.MethodDelete, path+"/-rev/"+url.PathEscape(rev), nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("unpublishing %s: %w", name, err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("unpublishing %s: %s", name, resp.Status)
		}
	}
	if left, err := s.packages(); err != nil || len(left) > 0 {
		return fmt.Errorf("left after unpublishing: %q (%v)", left, err)
	}
	return nil
}

// packages lists the packages in the registry's storage ("name",
// "@scope/name").
func (s *server) packages() ([]string, error) {
	entries, err := os.ReadDir(s.storage)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		switch {
		case !e.IsDir(), strings.HasPrefix(e.Name(), "."): // no package's name starts with a dot
		case strings.HasPrefix(e.Name(), "@"):
			scoped, err := os.ReadDir(filepath.Join(s.storage, e.Name()))
			if err != nil {
				return nil, err
			}
			for _, p := range scoped {
				if p.IsDir() {
					names = append(names, e.Name()+"/"+p.Name())
				}
			}
		default:
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// revision is the revision of the package whose document is at path.
func (s *server) revision(path string) (string, error) {
	resp, err := http.Get(path + "?write=true")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("reading its document: %s", resp.Status)
	}
	var doc struct {
		Rev string `json:"_rev"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return "", fmt.Errorf("reading its document: %w", err)
	}
	return doc.Rev, nil
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
