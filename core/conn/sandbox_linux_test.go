package conn

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
)

// sandboxOptions run stdio servers in the sandbox, with this test binary
// as the launcher, a home of their own and no egress proxy.
func sandboxOptions(t *testing.T) (Options, string) {
	t.Helper()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.Launcher, o.ServersDir, o.Home = self, filepath.Join(home, ".config", "mcptray", "servers"), home
	return o, home
}

// peer returns the entry point of a reference server in test/peers.
func peer(t *testing.T, name string) string {
	t.Helper()
	_, main := everything(t)
	p := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(main))), name, "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("run make deps: %v", err)
		}
		t.Skipf("%s is not installed in test/peers (make deps installs it): %v", name, err)
	}
	return p
}

func nodeEntry(name string, env map[string]string, args ...string) config.Entry {
	node, _ := os.LookupEnv("MCPTRAY_TEST_NODE")
	if node == "" {
		node = "node"
	}
	s := config.Server{Name: name, ConfigName: name, Scope: config.User, Transport: config.Stdio, Command: node, Args: args, Env: env}
	return config.Entry{Server: s, Signature: config.Signature(&s), ApprovalKey: config.ApprovalKey(&s), Approval: config.NotNeeded}
}

func callText(t *testing.T, m *Manager, server, tool, args string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	res, err := m.CallTool(ctx, server, tool, json.RawMessage(args))
	if err != nil {
		return err.Error(), true
	}
	return text(t, res), res.IsError
}

// TestSandboxEverything: the reference server works in the default
// sandbox, as the child of its launcher (its init), with no new privileges
// and the launcher's system call filter.
func TestSandboxEverything(t *testing.T) {
	t.Parallel()
	o, _ := sandboxOptions(t)
	_, main := everything(t)
	m := newTestManager(t, o)
	if err := m.Apply(setOf(nodeEntry("everything", nil, main, "stdio"))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "everything", Connected)
	if got, failed := callText(t, m, "everything", "echo", `{"message":"boxed"}`); failed || got != "Echo: boxed" {
		t.Errorf("echo = %q", got)
	}
	pid := m.conns["everything"].sess.pid
	// In namespaces of its own the launcher's one child is their init, the
	// launcher again, and the server is the init's one child.
	var server string
	var cmdline []byte
	for range 2 {
		// The Go launcher forks from any of its threads: each lists its own.
		var children []byte
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			children = append(children, b...)
		}
		fields := strings.Fields(string(children))
		if err != nil || len(fields) != 1 {
			t.Fatalf("the launcher (pid %d) has children %q (%v), not the one server", pid, children, err)
		}
		server = fields[0]
		cmdline, _ = os.ReadFile(filepath.Join("/proc", server, "cmdline"))
		if !strings.Contains(string(cmdline), sandbox.LauncherArg) {
			break
		}
		pid, _ = strconv.Atoi(server)
	}
	if !strings.Contains(string(cmdline), "server-everything") || strings.Contains(string(cmdline), sandbox.LauncherArg) {
		t.Errorf("pid %s runs %q, not the server itself", server, cmdline)
	}
	status, _ := os.ReadFile(filepath.Join("/proc", server, "status"))
	if !strings.Contains(string(status), "NoNewPrivs:\t1") || !strings.Contains(string(status), "Seccomp:\t2") {
		t.Errorf("the server is not in its sandbox (no NoNewPrivs, or no filter):\n%s", status)
	}
}

// TestSandboxFilesystem: server-filesystem with one folder works inside it
// and is refused outside it.
func TestSandboxFilesystem(t *testing.T) {
	t.Parallel()
	o, home := sandboxOptions(t)
	main := peer(t, "server-filesystem")
	allowed := filepath.Join(home, "Documents")
	if err := os.MkdirAll(allowed, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(allowed, "plan.txt"), []byte("the plan"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, o)
	if err := m.Apply(setOf(nodeEntry("files", nil, main, allowed))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "files", Connected)
	arg := func(k, v string) string { b, _ := json.Marshal(map[string]string{k: v}); return string(b) }
	if got, failed := callText(t, m, "files", "read_text_file", arg("path", filepath.Join(allowed, "plan.txt"))); failed || got != "the plan" {
		t.Errorf("reading inside its folder: %q", got)
	}
	if got, failed := callText(t, m, "files", "write_file", `{"path":`+jsonString(filepath.Join(allowed, "new.txt"))+`,"content":"written"}`); failed {
		t.Errorf("writing inside its folder: %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(allowed, "new.txt")); err != nil || string(b) != "written" {
		t.Errorf("the file written: %q, %v", b, err)
	}
	if got, failed := callText(t, m, "files", "read_text_file", arg("path", filepath.Join(home, ".ssh", "id_ed25519"))); !failed || strings.Contains(got, "secret") {
		t.Errorf("reading ~/.ssh: %q", got)
	}
}

// TestSandboxMemory: server-memory keeps its file in its own data folder,
// and is refused one in the home.
func TestSandboxMemory(t *testing.T) {
	t.Parallel()
	o, home := sandboxOptions(t)
	main := peer(t, "server-memory")
	data := filepath.Join(o.ServersDir, "memory")
	m := newTestManager(t, o)
	inHome := nodeEntry("memory-in-home", map[string]string{"MEMORY_FILE_PATH": filepath.Join(home, "memory.jsonl")}, main)
	if err := m.Apply(setOf(nodeEntry("memory", map[string]string{"MEMORY_FILE_PATH": filepath.Join(data, "memory.jsonl")}, main), inHome)); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "memory", Connected)
	waitState(t, m, "memory-in-home", Connected)
	entities := `{"entities":[{"name":"mcptray","entityType":"app","observations":["runs servers in a sandbox"]}]}`
	if got, failed := callText(t, m, "memory", "create_entities", entities); failed {
		t.Errorf("create_entities: %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(data, "memory.jsonl")); err != nil || !strings.Contains(string(b), "runs servers in a sandbox") {
		t.Errorf("its file in its data folder: %q, %v", b, err)
	}
	if got, failed := callText(t, m, "memory-in-home", "create_entities", entities); !failed || !strings.Contains(got, "EACCES") {
		t.Errorf("writing its file in the home: %q (failed %v)", got, failed)
	}
	if _, err := os.Stat(filepath.Join(home, "memory.jsonl")); err == nil {
		t.Error("the server wrote its file in the home")
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestSandboxEgress: with an egress proxy, a server reaches the proxy's
// port and no other, and its environment has the proxy's variables, a
// private TMPDIR, and no SSH_AUTH_SOCK.
func TestSandboxEgress(t *testing.T) {
	t.Parallel()
	o, _ := sandboxOptions(t)
	if sandbox.ABI() < 4 {
		t.Skip("this kernel's Landlock cannot restrict TCP (ABI 4, Linux 6.7)")
	}
	_, main := everything(t)
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("through the proxy's port")) })
	serve := func() string {
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	proxy, other := serve(), serve()
	// In a network of its own, the server reaches the "proxy" through the
	// listener its launcher brought out.
	o.EgressServe = func(ln net.Listener) { go http.Serve(ln, handler) }
	proxyPort, _ := strconv.Atoi(proxy[strings.LastIndex(proxy, ":")+1:])
	o.BaseEnv = append(os.Environ(), "SSH_AUTH_SOCK=/run/user/0/ssh-agent.sock")
	o.Egress = func(server string) (int, map[string]string) {
		return proxyPort, map[string]string{"HTTPS_PROXY": proxy, "MCPTRAY_EGRESS_FOR": server}
	}
	m := newTestManager(t, o)
	if err := m.Apply(setOf(nodeEntry("everything", nil, main, "stdio"))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "everything", Connected)
	env, failed := callText(t, m, "everything", "get-env", `{}`)
	var vars map[string]string
	if failed || json.Unmarshal([]byte(env), &vars) != nil {
		t.Fatalf("get-env: %q", env)
	}
	if vars["HTTPS_PROXY"] != proxy || vars["MCPTRAY_EGRESS_FOR"] != "everything" || vars["SSH_AUTH_SOCK"] != "" ||
		vars["TMPDIR"] != filepath.Join(o.ServersDir, "everything", "tmp") {
		t.Errorf("its environment: HTTPS_PROXY=%q MCPTRAY_EGRESS_FOR=%q SSH_AUTH_SOCK=%q TMPDIR=%q", vars["HTTPS_PROXY"], vars["MCPTRAY_EGRESS_FOR"], vars["SSH_AUTH_SOCK"], vars["TMPDIR"])
	}
	fetch := func(url string) (string, bool) {
		return callText(t, m, "everything", "gzip-file-as-resource", `{"name":"x.gz","data":`+jsonString(url+"/x")+`,"outputType":"resource"}`)
	}
	if got, failed := fetch(proxy); failed {
		t.Errorf("reaching the proxy's port: %q", got)
	}
	if got, failed := fetch(other); !failed {
		t.Errorf("reaching another port worked: %q", got)
	}
}

// TestSandboxRefusedAtStart: a server that fails on a file its sandbox
// refuses keeps its whole error output, where the refused path is (node
// prints it above its stack trace, not on the last line).
func TestSandboxRefusedAtStart(t *testing.T) {
	t.Parallel()
	o, home := sandboxOptions(t)
	everything(t) // skips without test/peers and its node
	key := filepath.Join(home, ".ssh", "id_ed25519")
	o.BaseEnv = append(o.BaseEnv, "HOME="+home)
	m := newTestManager(t, o)
	if err := m.Apply(setOf(nodeEntry("nosy", nil, "-e", "require('fs').readFileSync(require('os').homedir() + '/.ssh/id_ed25519')"))); err != nil {
		t.Fatal(err)
	}
	info := waitFor(t, m, "nosy", "a failure with its error output", func(i ServerInfo) bool {
		return i.Status.State == Failed && i.Stderr != ""
	})
	refusals := sandbox.Refusals(info.Stderr)
	if len(refusals) != 1 || refusals[0].Path != key {
		t.Errorf("refusals %+v in:\n%s", refusals, info.Stderr)
	}
}
