package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sharedCaches are the package caches and tool folders a person's own npx,
// uvx, pip, go, bun, deno and dotnet run code from, relative to the home:
// what a server planted there would run later outside any sandbox.
var sharedCaches = []string{
	".npm/_npx", ".npm/_cacache", ".cache/node/corepack", ".cache/node-gyp", ".cache/ms-playwright",
	".cache/uv", ".local/share/uv/tools", ".local/share/uv/python", ".cache/pip", ".cache/pypoetry",
	".cache/yarn", ".local/share/pnpm/store", ".bun/install/cache", ".deno", ".cache/deno",
	".cache/go-build", "go/pkg/mod", ".nuget/packages",
}

// TestCachesCannotBePoisoned: a server run by npx, uvx or node tries to
// plant a file in each of the person's shared caches, as a person's
// machine has them, and is refused every one; it may read the Pythons uv
// installed, not change them, and it may write the caches of its own that
// its environment names.
func TestCachesCannotBePoisoned(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	for _, d := range sharedCaches {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	python := filepath.Join(home, ".local/share/uv/python/cpython-3.12-linux-x86_64-gnu/bin/python3")
	if err := os.MkdirAll(filepath.Dir(python), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(python, []byte("a python uv installed"), 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(home, ".config", "mcptray", "servers", "weather")
	for _, program := range []string{"/usr/bin/npx", "/usr/bin/uvx", "/usr/bin/node", "/usr/bin/pnpm"} {
		p, err := Default(Input{Program: program, Args: []string{"-y", "weather"}, Home: home, DataDir: data, Env: []string{"PATH=/usr/bin:/bin"}})
		if err == nil {
			err = p.Prepare()
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Read = append(p.Read, mustExe(t)) // the probe, in the program's place
		want := map[string]string{"read:" + python: "ok", "write:" + python: "refused"}
		for _, d := range sharedCaches {
			want["write:"+filepath.Join(home, d, "planted")] = "refused"
		}
		for _, c := range ownCaches {
			dir, ok := p.Env[c.env]
			if !ok && c.programs != nil {
				continue // pnpm's store, for pnpm alone
			}
			if !within(data, dir) || !contains(p.Make, dir) {
				t.Fatalf("%s: %s is %q, not a folder made in its data folder %s", program, c.env, dir, data)
			}
			want["write:"+filepath.Join(dir, "mine")] = "ok"
		}
		var tries []string
		for k := range want {
			tries = append(tries, k)
		}
		for name, launcher := range launchers(t) {
			got := runProbe(t, launcher, p, tries...)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s, %s launcher: %s: %s, want %s", program, name, k, got[k], v)
				}
			}
		}
		for _, d := range sharedCaches {
			if _, err := os.Stat(filepath.Join(home, d, "planted")); err == nil {
				t.Errorf("%s: the server planted a file in ~/%s", program, d)
			}
		}
	}
}

// TestNpxInItsOwnCache: the reference server, run by the real npx in its
// sandbox with an empty cache of its own, installs into that cache and
// answers, while the person's ~/.npm stays as it was. It needs the npm
// registry.
func TestNpxInItsOwnCache(t *testing.T) {
	if testing.Short() {
		t.Skip("installs a package from the npm registry")
	}
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	home := filepath.Join(t.TempDir(), "home")
	personal := filepath.Join(home, ".npm", "_npx")
	if err := os.MkdirAll(personal, 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(home, ".config", "mcptray", "servers", "everything")
	env := []string{"PATH=" + filepath.Dir(npx) + ":/usr/bin:/bin", "HOME=" + home}
	args := []string{"-y", "@modelcontextprotocol/server-everything", "stdio"}
	p, err := Default(Input{Program: npx, Args: args, Home: home, DataDir: data, Env: env})
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		t.Fatal(err)
	}
	reply, stderr := initialize(t, cLauncher(t), p, npx, args, env)
	if reply == "" && regexp.MustCompile(`ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ENETUNREACH`).MatchString(stderr) {
		t.Skipf("the npm registry is out of reach:\n%s", stderr)
	}
	if !strings.Contains(reply, `"serverInfo"`) {
		t.Fatalf("no answer to initialize: %q\n%s", reply, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(p.Env["npm_config_cache"], "_npx", "*", "node_modules", "@modelcontextprotocol", "server-everything")); len(m) == 0 {
		t.Errorf("the package is not in the server's own cache %s", p.Env["npm_config_cache"])
	}
	if left, _ := os.ReadDir(personal); len(left) != 0 {
		t.Errorf("npx wrote in the person's ~/.npm/_npx: %v", left)
	}
}

// BenchmarkNpxFirstStart: the time from starting the reference server with
// npx in its sandbox to its answer to initialize: "cold" with an empty
// cache of its own (a server's first start), "warm" with that cache filled
// (every later start, and what a filled shared ~/.npm gave before servers
// had caches of their own). It needs the npm registry; TCP is left open
// (no egress proxy).
func BenchmarkNpxFirstStart(b *testing.B) {
	if ABI() < 1 {
		b.Skip("no Landlock")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		b.Skip("no npx on PATH")
	}
	launcher := cLauncher(b)
	args := []string{"-y", "@modelcontextprotocol/server-everything", "stdio"}
	home := filepath.Join(b.TempDir(), "home")
	env := []string{"PATH=" + filepath.Dir(npx) + ":/usr/bin:/bin", "HOME=" + home}
	start := func(b *testing.B, data string) {
		p, err := Default(Input{Program: npx, Args: args, Home: home, DataDir: data, Env: env})
		if err == nil {
			err = p.Prepare()
		}
		if err != nil {
			b.Fatal(err)
		}
		if reply, stderr := initialize(b, launcher, p, npx, args, env); !strings.Contains(reply, `"serverInfo"`) {
			b.Fatalf("no answer to initialize: %q\n%s", reply, stderr)
		}
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		b.Fatal(err)
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			data, err := os.MkdirTemp(home, "cold-") // -count runs this function again in the same home
			if err != nil {
				b.Fatal(err)
			}
			start(b, data)
		}
	})
	b.Run("warm", func(b *testing.B) {
		data := filepath.Join(home, "servers", "warm")
		start(b, data)
		for b.Loop() {
			start(b, data)
		}
	})
}

// initialize runs program in p through launcher, sends MCP's initialize
// and returns the first line it answers ("" when it ends first or 90 s
// pass) and its error output.
func initialize(t testing.TB, launcher string, p Policy, program string, args, env []string) (string, string) {
	t.Helper()
	path, argv, env, err := Command(launcher, p, program, append([]string{filepath.Base(program)}, args...), env)
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}, WaitDelay: 5 * time.Second}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`+"\n")
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
	}()
	var reply string
	select {
	case reply = <-line:
	case <-time.After(90 * time.Second):
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // npx's server is its child
	cmd.Wait()
	return reply, stderr.String()
}

// cLauncher is cmd/mcptray-sandbox, the launcher installed beside mcptray,
// built once for the tests (launchers).
func cLauncher(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "mcptray-sandbox"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "mcptray-sandbox")
		if out, err := exec.Command("go", "build", "-o", built.path, "./cmd/mcptray-sandbox").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building cmd/mcptray-sandbox: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.path
}
