package egress

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// clientEnv is this process's environment without proxy variables, then
// env's and more.
func clientEnv(env map[string]string, more ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ours := env[name]; !ours {
			out = append(out, kv)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return append(out, more...)
}

// run runs a program with env and returns its output.
func run(t *testing.T, env []string, name string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// TestCurl: a real curl, given Env's variables, goes through the proxy:
// to an allowed host, and is refused with 403 for another.
func TestCurl(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl here")
	}
	s := newSite(t)
	l := &lists{hosts: map[string][]string{"weather": {s.Dest("api.test.example")}}}
	var log lockedBuffer
	p := startProxy(t, Options{Hosts: l.Hosts, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	env := clientEnv(p.Env("weather"))
	out, errOut, err := run(t, env, curl, "-sS", "--cacert", s.CAFile, s.URL("api.test.example"))
	if err != nil || out != "hello from "+s.Dest("api.test.example") {
		t.Fatalf("curl to an allowed host: %q, %s, %v", out, errOut, err)
	}
	out, errOut, err = run(t, env, curl, "-sS", "--cacert", s.CAFile, s.URL("other.test.example"))
	if err == nil || !strings.Contains(errOut, "403") {
		t.Errorf("curl to another host: %q, %s, %v", out, errOut, err)
	}
	if r := p.Refusals("weather"); len(r) != 1 || r[0].Dest != s.Dest("other.test.example") {
		t.Errorf("refusals after curl: %+v", r)
	}
	if want := `allow="mcptray sandbox allow weather --host ` + s.Dest("other.test.example") + `"`; !strings.Contains(log.String(), want) {
		t.Errorf("the log does not say %s:\n%s", want, log.String())
	}
}

// lockedBuffer is a log's destination that tests read while it is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// nodeScript fetches its argument with fetch, then with https.get, and
// prints both bodies.
const nodeScript = `
const url = process.argv[1];
(async () => {
  const viaFetch = await (await fetch(url)).text();
  const viaHttps = await new Promise((resolve, reject) => {
    require('https').get(url, res => {
      let b = '';
      res.on('data', d => b += d);
      res.on('end', () => resolve(b));
    }).on('error', reject);
  });
  console.log(viaFetch + '|' + viaHttps);
})().catch(e => { console.error(String(e.cause || e)); process.exit(1); });
`

// TestNode: Node honours Env's variables from 22.21 (NODE_USE_ENV_PROXY):
// the test peers' Node 22 goes through the proxy with fetch and https.
// Node 20, the node people have, ignores them: its requests go straight
// out (here: its lookup of the test name fails), which Landlock refuses in
// the sandbox. The package doc says so.
func TestNode(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	l := &lists{hosts: map[string][]string{"weather": {s.Dest("api.test.example")}}}
	p := startProxy(t, Options{Hosts: l.Hosts})
	env := clientEnv(p.Env("weather"), "NODE_EXTRA_CA_CERTS="+s.CAFile)
	want := "hello from " + s.Dest("api.test.example")

	node22, err := filepath.Abs(filepath.Join("..", "..", "test", "peers", "node_modules", ".bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(node22); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("run make deps: %v", err)
		}
		t.Logf("the test peers' Node 22 is not installed (make deps installs it): %v", err)
	} else {
		out, errOut, err := run(t, env, node22, "-e", nodeScript, s.URL("api.test.example"))
		if err != nil || strings.TrimSpace(out) != want+"|"+want {
			t.Errorf("Node 22 through the proxy: %q, %s, %v", out, errOut, err)
		}
		out, errOut, err = run(t, env, node22, "-e", nodeScript, s.URL("other.test.example"))
		if err == nil || len(p.Refusals("weather")) != 1 {
			t.Errorf("Node 22 to a host not allowed: %q, %s, %v; refusals %+v", out, errOut, err, p.Refusals("weather"))
		}
	}

	node, err := exec.LookPath("node")
	if err != nil {
		return
	}
	version, _, _ := run(t, env, node, "--version")
	if !strings.HasPrefix(version, "v20.") {
		t.Logf("node on PATH is %s, not 20", strings.TrimSpace(version))
		return
	}
	before := len(p.Refusals("weather"))
	out, errOut, err := run(t, env, node, "-e", nodeScript, s.URL("fourth.test.example"))
	if err == nil || !strings.Contains(errOut, "ENOTFOUND") || len(p.Refusals("weather")) != before {
		t.Errorf("Node 20 went through the proxy after all (update the package doc): %q, %s, %v", out, errOut, err)
	}
}

// pythonScript fetches its first argument with urllib (the standard
// library) and, when installed, with requests, trusting the CA file in its
// second, and prints both bodies.
const pythonScript = `
import ssl, sys, urllib.request
url, ca = sys.argv[1], sys.argv[2]
out = [urllib.request.urlopen(url, context=ssl.create_default_context(cafile=ca), timeout=20).read().decode()]
try:
    import requests
except ImportError:
    requests = None
if requests:
    r = requests.get(url, verify=ca, timeout=20)
    r.raise_for_status()
    out.append(r.text)
print("|".join(out))
`

// TestPython: Python's urllib and requests, given Env's variables, go
// through the proxy, as uvx servers' HTTP clients do.
func TestPython(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 here")
	}
	s := newSite(t)
	l := &lists{hosts: map[string][]string{"weather": {s.Dest("api.test.example")}}}
	p := startProxy(t, Options{Hosts: l.Hosts})
	env := clientEnv(p.Env("weather"))
	out, errOut, err := run(t, env, python, "-c", pythonScript, s.URL("api.test.example"), s.CAFile)
	want := "hello from " + s.Dest("api.test.example")
	if err != nil || !strings.HasPrefix(strings.TrimSpace(out), want) {
		t.Fatalf("python to an allowed host: %q, %s, %v", out, errOut, err)
	}
	t.Logf("python: %s", strings.TrimSpace(out))
	_, errOut, err = run(t, env, python, "-c", pythonScript, s.URL("other.test.example"), s.CAFile)
	if err == nil || !strings.Contains(errOut, "403") || len(p.Refusals("weather")) != 1 {
		t.Errorf("python to another host: %s, %v, refusals %+v", errOut, err, p.Refusals("weather"))
	}
}
