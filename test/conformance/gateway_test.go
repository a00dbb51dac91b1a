//go:build unix

package conformance

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/test/e2e"
)

// serverScenarios are the suite's server scenarios that apply to a proxy:
// mcptray's gateway passes them with server-everything behind it. The others
// are in gateway-baseline.yml, with why.
var serverScenarios = []string{
	"server-initialize",
	"logging-set-level",
	"ping",
	"tools-list",
	"server-sse-multiple-streams",
	"resources-list",
	"prompts-list",
	"dns-rebinding-protection",
}

// gatewayDeadline bounds starting mcptray serve and server-everything.
const gatewayDeadline = 60 * time.Second

// TestServerScenarios runs the suite's server scenarios against the
// gateway of a running mcptray serve, with server-everything as its one
// server. The suite cannot send a token, so serve runs with
// --gateway-no-auth; Host and Origin are checked all the same
// (dns-rebinding-protection).
func TestServerScenarios(t *testing.T) {
	t.Parallel()
	node, main := suite(t, release)
	everything := filepath.Join(filepath.Dir(filepath.Dir(main)), "..", "server-everything", "dist", "index.js")
	if _, err := os.Stat(everything); err != nil {
		t.Skipf("server-everything is not installed (make deps installs it): %v", err)
	}
	dir := t.TempDir()
	bin := e2e.Binary(t)
	url := startGateway(t, bin, node, everything, dir)

	for _, scenario := range serverScenarios {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			out, err := runSuite(t, node, main, "", "server", "--url", url, "--scenario", scenario, "-o", t.TempDir())
			if problems := judge(out, err); len(problems) > 0 {
				t.Errorf("%s:\n  %s\nthe suite printed:\n%s", scenario, strings.Join(problems, "\n  "), out)
			}
		})
	}
}

// TestServerScenarioList: every server scenario of the suite is run above
// or said not to apply, so that a newer suite's new ones are not missed.
func TestServerScenarioList(t *testing.T) {
	t.Parallel()
	node, main := suite(t, release)
	out, err := runSuite(t, node, main, "", "list", "--server")
	if err != nil {
		t.Fatalf("list --server: %v\n%s", err, out)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\s*- (\S+)`).FindAllStringSubmatch(out, -1) {
		listed = append(listed, m[1])
	}
	baseline, err := os.ReadFile("gateway-baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	var known []string
	for _, m := range regexp.MustCompile(`(?m)^  - (\S+)`).FindAllStringSubmatch(string(baseline), -1) {
		known = append(known, m[1])
	}
	for _, s := range serverScenarios {
		if slices.Contains(known, s) {
			t.Errorf("%s is run and also in gateway-baseline.yml", s)
		}
	}
	known = append(known, serverScenarios...)
	slices.Sort(listed)
	slices.Sort(known)
	if !slices.Equal(listed, known) {
		t.Errorf("the suite's server scenarios changed:\n got %q\nwant %q", listed, known)
	}
}

// startGateway runs mcptray serve in a home of its own with server-everything
// as its server, until the test ends, and returns the gateway's URL once
// server-everything is connected.
func startGateway(t *testing.T, bin, node, everything, dir string) string {
	t.Helper()
	home := filepath.Join(dir, "home")
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + run, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	add := exec.Command(bin, "add", "everything", "--", node, everything, "stdio")
	add.Env = env
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("mcptray add everything: %v\n%s", err, out)
	}
	serve := exec.Command(bin, "serve", "--gateway-no-auth", "--gateway-addr", "127.0.0.1:0")
	serve.Env = env
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- serve.Wait()
	}()
	t.Cleanup(func() {
		serve.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("mcptray serve ended with %v\n%s", err, stderr.String())
			}
		case <-time.After(gatewayDeadline):
			serve.Process.Kill()
			t.Errorf("mcptray serve still ran %s after SIGTERM", gatewayDeadline)
		}
	})
	gatewayLine := regexp.MustCompile(`^Gateway: (http://127\.0\.0\.1:\d+/mcp) \(no token\)`)
	var url string
	connected := false
	timer := time.NewTimer(gatewayDeadline)
	defer timer.Stop()
	var seen []string
	for url == "" || !connected {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("mcptray serve ended:\n%s\n%s", strings.Join(seen, "\n"), stderr.String())
			}
			seen = append(seen, line)
			if m := gatewayLine.FindStringSubmatch(line); m != nil {
				url = m[1]
			}
			connected = connected || line == "everything: connected"
		case <-timer.C:
			t.Fatalf("waited %s for the gateway and server-everything:\n%s\n%s", gatewayDeadline, strings.Join(seen, "\n"), stderr.String())
		}
	}
	go func() {
		for range lines { // keep serve's stdout flowing
		}
	}()
	if !strings.Contains(stderr.String(), "WARNING") {
		t.Errorf("serve --gateway-no-auth printed no warning:\n%s", stderr.String())
	}
	return url
}
