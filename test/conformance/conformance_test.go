//go:build unix

// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, installed in test/peers by make deps)
// against mcptray as a client, through the adapter test/conformance/client.
//
// The suite starts a throwaway server for each scenario, runs
// `client <serverUrl>` with the scenario's name in MCP_CONFORMANCE_SCENARIO,
// and judges what mcptray did. It needs Node 22, which test/peers brings.
package conformance

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/test/e2e"
)

// scenarios are the client scenarios mcptray passes, in both suites.
var scenarios = []string{
	"initialize",
	"tools_call",
	"sse-retry",
	"elicitation-sep1034-client-defaults",
}

// authScenarios are the suite's sign-in scenarios (suite 0.1.16). The
// pre-registration, client-credentials and cross-app-access ones hand the
// client its credentials in MCP_CONFORMANCE_CONTEXT, and every one of them
// stores tokens in the keychain: the adapter runs each in a private D-Bus
// session with a fresh, unlocked gnome-keyring.
var authScenarios = []string{
	"auth/metadata-default",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate",
	"auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined",
	"auth/scope-step-up",
	"auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic",
	"auth/token-endpoint-auth-post",
	"auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch",
	"auth/offline-access-scope",
	"auth/offline-access-not-supported",
	"auth/client-credentials-jwt",
	"auth/client-credentials-basic",
	"auth/cross-app-access-complete-flow",
}

// nextScenarios are the client scenarios of the next suite (0.2.0-alpha.12,
// installed as conformance-next) that mcptray passes beyond those above:
// revision 2026-07-28 and its authorization changes.
var nextScenarios = []string{
	"request-metadata",
	"auth/authorization-server-migration",
	"auth/iss-supported",
	"auth/iss-not-advertised",
	"auth/iss-supported-missing",
	"auth/iss-wrong-issuer",
	"auth/iss-unexpected",
	"auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
	"sep-2322-client-request-state",
	"http-standard-headers",
	"http-custom-headers",
	"http-invalid-tool-headers",
	"json-schema-ref-no-deref",
	"json-schema-2020-12-preservation",
	// Cross-app access under its new name: the same context, the same grants.
	"auth/enterprise-managed-authorization",
	// DPoP-bound tokens (RFC 9449), with and without server nonces.
	"auth/dpop",
	"auth/dpop-nonce",
	// Workload identity: the workload's JWT as an RFC 7523 grant.
	"auth/wif-jwt-bearer",
}

// nextUnmet are the next suite's client scenarios mcptray does not run: the
// sep-2640 ones check nothing yet.
var nextUnmet = []string{
	"sep-2640-client-no-prefetch",
	"sep-2640-client-verify-digest",
	"sep-2640-client-verify-size",
	"sep-2640-client-verify-frontmatter",
}

// The two suites: the release, and the next one.
const (
	release = "@modelcontextprotocol/conformance"
	next    = "conformance-next"
)

// runs returns the scenarios mcptray runs with each suite: the next one
// runs every scenario the release does (those it still lists) besides its own.
func runs(suite string) []string {
	if suite == release {
		return slices.Concat(scenarios, authScenarios)
	}
	var out []string
	for _, s := range slices.Concat(scenarios, authScenarios) {
		if !slices.Contains(releaseOnly, s) {
			out = append(out, s)
		}
	}
	return append(out, nextScenarios...)
}

// releaseOnly are the release's scenarios the next suite no longer lists
// (cross-app access became enterprise-managed authorization).
var releaseOnly = []string{"auth/cross-app-access-complete-flow"}

// scenarioTimeout bounds one scenario, the suite's own 30 s limit for the
// client included; a passing one takes about a second.
const scenarioTimeout = 90 * time.Second

// suite returns node and the suite's entry point. Without test/peers the
// test is skipped, or fails under CI, where make deps must have run.
func suite(t *testing.T, name string) (node, main string) {
	t.Helper()
	peers, err := filepath.Abs(filepath.Join("..", "peers", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(peers, ".bin", "node")
	main = filepath.Join(peers, filepath.FromSlash(name), "dist", "index.js")
	for _, f := range []string{node, main} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("the conformance suite is not installed (make deps installs it): %v", err)
			}
			t.Fatalf("run make deps: %v", err)
		}
	}
	return node, main
}

func TestClientScenarios(t *testing.T) {
	t.Parallel()
	testClientScenarios(t, release)
}

// TestNextClientScenarios runs the next suite (revision 2026-07-28).
func TestNextClientScenarios(t *testing.T) {
	t.Parallel()
	testClientScenarios(t, next)
}

func testClientScenarios(t *testing.T, name string) {
	node, main := suite(t, name)
	adapter, err := filepath.Abs("client")
	if err != nil {
		t.Fatal(err)
	}
	bin := e2e.Binary(t)
	for _, scenario := range runs(name) {
		t.Run(scenario, func(t *testing.T) {
			// Each run has its own server on a port of its own and its
			// own output folder: runs do not meet.
			t.Parallel()
			out, err := runSuite(t, node, main, bin, "client", "--command", adapter, "--scenario", scenario, "-o", t.TempDir())
			if problems := judge(out, err); len(problems) > 0 {
				t.Errorf("%s:\n  %s\nthe suite printed:\n%s", scenario, strings.Join(problems, "\n  "), out)
			}
		})
	}
}

// TestScenarioList: every client scenario of the suite is run above or
// waits for sign-in, so that a newer suite's new scenarios are not missed.
func TestScenarioList(t *testing.T) {
	t.Parallel()
	for _, name := range []string{release, next} {
		node, main := suite(t, name)
		out, err := runSuite(t, node, main, "", "list", "--client")
		if err != nil {
			t.Fatalf("%s list --client: %v\n%s", name, err, out)
		}
		var listed []string
		for _, m := range regexp.MustCompile(`(?m)^\s*- (\S+)`).FindAllStringSubmatch(out, -1) {
			listed = append(listed, m[1])
		}
		known := runs(name)
		if name == next {
			known = slices.Concat(known, nextUnmet)
		}
		slices.Sort(listed)
		slices.Sort(known)
		if !slices.Equal(listed, known) {
			t.Errorf("%s: the suite's client scenarios changed:\n got %q\nwant %q", name, listed, known)
		}
	}
}

// runSuite runs the suite with args, with MCPTRAY_BIN set to bin, and
// returns everything it printed without colours.
func runSuite(t *testing.T, node, main, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{main}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_COMPILE_CACHE="+nodeCache)
	if bin != "" {
		cmd.Env = append(cmd.Env, "MCPTRAY_BIN="+bin)
	}
	// One writer for both: exec then writes to it from one goroutine.
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The suite runs the adapter through a shell, and the adapter runs
	// mcptray: one process group, killed whole on timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return ansi.ReplaceAllString(out.String(), ""), err
}

var (
	ansi     = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	check    = regexp.MustCompile(`(?m)^\S+ \[[^\]]*\] (SUCCESS|FAILURE|WARNING|INFO)\b.*$`)
	summary  = regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings`)
	incident = []string{"CLIENT TIMED OUT", "CLIENT EXITED WITH ERROR"}
)

// judge returns what is wrong with a scenario's run: it must exit 0, pass
// all of at least one check, and print no failure or warning. A run that
// passes 0/0 checks tested nothing.
func judge(out string, err error) []string {
	var problems []string
	if err != nil {
		problems = append(problems, "the suite failed: "+err.Error())
	}
	successes := 0
	for _, m := range check.FindAllStringSubmatch(out, -1) {
		switch m[1] {
		case "SUCCESS":
			successes++
		case "FAILURE", "WARNING":
			problems = append(problems, m[0])
		}
	}
	if successes == 0 {
		problems = append(problems, "no check succeeded")
	}
	sums := summary.FindAllStringSubmatch(out, -1)
	if len(sums) == 0 {
		problems = append(problems, "no Passed: N/N line")
	} else {
		s := sums[len(sums)-1]
		passed, _ := strconv.Atoi(s[1])
		if passed < 1 || s[1] != s[2] || s[3] != "0" || s[4] != "0" {
			problems = append(problems, s[0])
		}
	}
	for _, words := range incident {
		if strings.Contains(out, words) {
			problems = append(problems, words)
		}
	}
	return problems
}
