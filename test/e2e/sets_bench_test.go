package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkGatewayCallSets measures a tools/call through mcptray stdio as
// a person with sets has it: 20 servers, 5 sets and 3 apps, each app
// given its own set. via=stdio-face is an app that gets everything (no
// set); via=stdio-face-set is the app writer, whose set holds server a
// and one single tool of another, with its own permission for the tool
// called, while the two other apps are connected with sets of their own.
// The servers run without their sandbox, as BenchmarkGatewayCall's do.
//
//	go test -run '^$' -bench GatewayCallSets -benchtime 3000x -count 3 ./test/e2e
func BenchmarkGatewayCallSets(b *testing.B) {
	dir := b.TempDir()
	mcptray, testServer := Binary(b), TestServer(b)
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		b.Fatal(err)
	}
	env := []string{"HOME=" + filepath.Join(dir, "home"), "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + run}
	cli := func(args ...string) {
		cmd := exec.Command(mcptray, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("mcptray %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// a is the server benchServe waits for; s02…s20 the others.
	names := []string{"a"}
	for i := 2; i <= 20; i++ {
		names = append(names, fmt.Sprintf("s%02d", i))
	}
	for _, name := range names {
		cli("add", name, "--", testServer, "-name", name)
		cli("sandbox", "off", name)
	}
	_, serve := benchServe(b, mcptray, env)

	everything := startLines(b, exec.Command(mcptray, "stdio"), env)
	everything.handshake(b)
	waitListed(b, everything, names)

	for _, args := range [][]string{
		{"set", "Writing", "--servers", "a", "--tools", "s02/echo"},
		{"set", "Writing", "--allow", "a/echo"},
		{"set", "Work", "--servers", "a,s03,s04,s05,s06", "--new-servers"},
		{"set", "Home", "--servers", "s07,s08,s09,s10"},
		{"set", "Research", "--servers", "s11,s12,s13,s14,s15"},
		{"set", "Code", "--servers", "s16,s17,s18,s19,s20"},
		{"app", "set", "writer", "Writing"},
		{"app", "set", "coder", "Work"},
		{"app", "set", "reader", "Home"},
	} {
		cli(args...)
	}

	b.Run("via=stdio-face", func(b *testing.B) {
		measure(b, serve, func() { everything.call(b, "mcp__a__echo") })
	})
	b.Run("via=stdio-face-set", func(b *testing.B) {
		for _, app := range []string{"coder", "reader"} {
			startLines(b, exec.Command(mcptray, "stdio", "--app", app), env).handshake(b)
		}
		writer := startLines(b, exec.Command(mcptray, "stdio", "--app", "writer"), env)
		writer.handshake(b)
		if list := writer.request(b, "tools/list", `{}`); bytes.Contains(list, []byte("mcp__s03__echo")) || !bytes.Contains(list, []byte("mcp__s02__echo")) {
			b.Fatalf("the writer's set is not what it lists: %s", list)
		}
		measure(b, serve, func() { writer.call(b, "mcp__a__echo") })
	})
}

// waitListed waits until c's tools/list holds the echo tool of every
// server named, that is until all of them are connected.
func waitListed(b *testing.B, c *lines, names []string) {
	deadline := time.Now().Add(serveDeadline)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		list := c.request(b, "tools/list", `{}`)
		missing := ""
		for _, name := range names {
			if !bytes.Contains(list, []byte(`"mcp__`+name+`__echo"`)) {
				missing = name
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("server %s did not connect in %v", missing, serveDeadline)
		}
		<-tick.C
	}
}
