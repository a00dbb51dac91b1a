package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStartMakesNoNamespaces: mcptray starts a launcher with no clone
// flag that makes a namespace, with a network of its own or without: a
// clone that makes a user namespace cannot share mcptray's memory, so each
// start would copy mcptray's page tables and mark its memory
// copy-on-write. The launcher makes them (the policy's "n" line), and the
// server does run in them: its /proc has a pid 1 and not this test.
func TestStartMakesNoNamespaces(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	if !modes(t)["namespaces"] {
		t.Skip("this computer does not let the launcher make namespaces")
	}
	for name, launcher := range launchers(t) {
		for _, bridge := range []int{0, 8080} {
			t.Run(name+"/bridge="+strconv.Itoa(bridge), func(t *testing.T) {
				p := Policy{Read: []string{"/"}, Namespaces: true, Bridge: bridge}
				path, argv, env, err := Command(launcher, p, "/bin/ls", []string{"ls", "/proc"}, []string{"PATH=/usr/bin:/bin"})
				if err != nil {
					t.Fatal(err)
				}
				cmd := &exec.Cmd{Path: path, Args: argv, Env: env}
				var out strings.Builder
				cmd.Stdout = &out
				ln, err := Start(cmd, p, (*exec.Cmd).Start)
				if err != nil {
					t.Fatal(err)
				}
				if ln != nil {
					ln.Close()
				}
				if a := cmd.SysProcAttr; a != nil && a.Cloneflags&(unix.CLONE_NEWUSER|unix.CLONE_NEWPID|unix.CLONE_NEWNS|unix.CLONE_NEWNET) != 0 {
					t.Errorf("mcptray started the launcher with clone flags %#x", a.Cloneflags)
				}
				if err := cmd.Wait(); err != nil {
					t.Fatal(err)
				}
				pids := strings.Fields(out.String())
				if !slices.Contains(pids, "1") || slices.Contains(pids, strconv.Itoa(os.Getpid())) {
					t.Errorf("the server's /proc is not its own PID namespace's: %q", pids)
				}
			})
		}
	}
}
