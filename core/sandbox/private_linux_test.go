package sandbox

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// What one server could learn of, or leave for, another: its command
// line (a secret in its arguments), its files in /tmp and in shared
// memory. Server A is a probe that holds them and waits; server B a probe
// that looks for them, through both launchers, in both modes.

// seeCommandLine looks through /proc for another process whose command
// line holds secret (a launcher's only, when launcher): nil when one is
// seen, a refusal when none is.
func seeCommandLine(secret []byte, launcher bool) error {
	return seeInProc("cmdline", secret, launcher)
}

// running is a probe that runs until its stdin closes.
type running struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *lockedBuffer
}

// startProbe starts the probe in p through launcher with tries, one of
// which should be wait: so that it runs until done is called; it returns
// once the probe has said the outcome of every try before that.
func startProbe(t *testing.T, launcher string, p Policy, tries ...string) *running {
	t.Helper()
	path, argv, env, err := Command(launcher, p, mustExe(t), append([]string{"probe", ProbeArg}, tries...), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, WaitDelay: 10 * time.Second}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &running{cmd: cmd, stdin: stdin, out: &lockedBuffer{}}
	cmd.Stdout = r.out
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	ln, err := Start(cmd, p, (*exec.Cmd).Start)
	if err != nil {
		t.Fatal(err)
	}
	if ln != nil {
		go acceptAndClose(ln)
		t.Cleanup(func() { ln.Close() })
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := tries[:slices.Index(tries, "wait:")]
	waitFor(ctx, t, "the first server to be ready", func() bool {
		if cmd.ProcessState != nil || strings.Contains(errOut.String(), "mcptray") {
			t.Fatalf("the first server ended: %s", errOut.String())
		}
		return strings.Count(r.out.String(), "\n") >= len(before)
	})
	return r
}

// done closes the probe's stdin, waits for it to end, and returns each
// try's outcome.
func (r *running) done(t *testing.T) map[string]string {
	t.Helper()
	r.stdin.Close()
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("the first server: %v", err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.out.String()), "\n") {
		k, v, _ := strings.Cut(l, " ")
		got[k] = v
	}
	return got
}

// TestCommandLineHidden: a secret in server A's arguments is on no
// launcher's command line, in either mode, nor readable in any process's
// environment (the launcher's holds it); and in namespaces of their own no
// other server sees A's command line at all. In the fallback A's own is
// readable, and its words say so.
func TestCommandLineHidden(t *testing.T) {
	if ABI() < 6 {
		t.Skipf("the test needs Landlock 6 (this kernel has %d)", ABI())
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			a, b := newIsolatedWorld(t, true, namespaces), newIsolatedWorld(t, true, namespaces)
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					secret := fmt.Sprintf("sk-secret-%d-%s-%s", time.Now().UnixNano(), mode, name)
					code := hex.EncodeToString([]byte(secret))
					server := startProbe(t, launcher, a.policy, "hold:"+secret, "wait:")
					got := runProbe(t, launcher, b.policy, "cmdline:"+code, "launcher:"+code, "environ:"+code)
					server.done(t)
					// The launcher holds it in its environment: no other
					// server may read that, in either mode.
					if got["environ:"+code] != "refused" {
						t.Errorf("another server read the secret in a process's environment: %s", got["environ:"+code])
					}
					if got["launcher:"+code] != "refused" {
						t.Errorf("another server read the secret on a launcher's command line: %s", got["launcher:"+code])
					}
					if namespaces && got["cmdline:"+code] != "refused" {
						t.Errorf("in namespaces of its own, another server read the first server's command line: %s", got["cmdline:"+code])
					}
					// mcptray's side sees the launcher as every program
					// of the person does.
					if err := seeCommandLine([]byte(secret), true); err == nil {
						t.Error("the secret is on the launcher's command line in the host's /proc")
					}
				})
			}
			if words := Protection(a.policy).Words; !namespaces && !strings.Contains(words, "command line") {
				t.Errorf("the fallback's words do not say that its command line can be read: %q", words)
			}
		})
	}
}

// TestNothingShared: a file server A keeps, mode 0600, in /dev/shm or in
// /tmp, server B can neither read nor change. In namespaces of their own
// each has a /tmp and a /dev/shm of its own, which it may use; in the
// fallback neither may use them, and the words say so.
func TestNothingShared(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			a, b := newIsolatedWorld(t, true, namespaces), newIsolatedWorld(t, true, namespaces)
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					marker := fmt.Sprintf("mcptray-kept-%d-%s-%s", time.Now().UnixNano(), mode, name)
					shm, tmp := filepath.Join("/dev/shm", marker), filepath.Join("/tmp", marker)
					t.Cleanup(func() { os.Remove(shm); os.Remove(tmp) })
					server := startProbe(t, launcher, a.policy, "put:"+shm, "put:"+tmp, "wait:", "same:"+shm, "same:"+tmp)
					got := runProbe(t, launcher, b.policy, "read:"+shm, "read:"+tmp, "write:"+shm, "write:"+tmp)
					kept := server.done(t)
					for _, f := range []string{shm, tmp} {
						if got["read:"+f] == "ok" {
							t.Errorf("another server read the first server's %s", f)
						}
						if kept["put:"+f] == "ok" && kept["same:"+f] != "ok" {
							t.Errorf("another server changed the first server's %s: %s", f, kept["same:"+f])
						}
						// Its own /tmp and /dev/shm in namespaces of its
						// own; none in the fallback. Its /tmp only where
						// its policy names nothing in the computer's
						// (this test's program lies there).
						want := map[bool]string{true: "ok", false: "refused"}[namespaces && (f == shm || slices.Contains(a.policy.Write, "/tmp"))]
						switch {
						case kept["put:"+f] != want:
							t.Errorf("the first server's put:%s: %s, want %s", f, kept["put:"+f], want)
						case got["write:"+f] != want:
							t.Errorf("the second server's write:%s: %s, want %s", f, got["write:"+f], want)
						}
						if _, err := os.Stat(f); err == nil {
							t.Errorf("%s, written in a server's sandbox, is in the computer's own", f)
						}
					}
				})
			}
			if words := Protection(a.policy).Words; !namespaces && !strings.Contains(words, "shared memory") {
				t.Errorf("the fallback's words do not say that it has no shared memory: %q", words)
			}
		})
	}
}

// TestProbeNeedsItsNamespaces: the launcher's probe makes namespaces of
// its own and mounts only there, changing nothing of this computer's
// mounts; and a policy that asks for the server's own /proc, /tmp and
// /dev/shm but not for its namespaces (the "n" line taken out) is refused,
// as root too, whose mounts the launcher could otherwise change.
func TestProbeNeedsItsNamespaces(t *testing.T) {
	before, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	unchanged := func(t *testing.T) {
		t.Helper()
		if after, _ := os.ReadFile("/proc/self/mountinfo"); !bytes.Equal(before, after) {
			t.Errorf("the launcher changed this computer's mounts")
		}
	}
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			_ = exec.Command(launcher, LauncherArg, probeArg).Run()
			unchanged(t)
			path, argv, env, err := Command(launcher, Policy{Read: []string{"/"}, Namespaces: true}, "/bin/true", []string{"true"}, []string{"PATH=/usr/bin:/bin"})
			if err != nil {
				t.Fatal(err)
			}
			for i, kv := range env {
				if strings.HasPrefix(kv, policyEnv+"=") {
					env[i] = strings.Replace(kv, "\nn\n", "\n", 1)
					if env[i] == kv {
						t.Fatalf("no \"n\" line in %q", kv)
					}
				}
			}
			var errOut bytes.Buffer
			cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stderr: &errOut}
			if err := cmd.Run(); err == nil || !strings.Contains(errOut.String(), "need namespaces of its own") {
				t.Errorf("mounts without namespaces: %v, %q", err, errOut.String())
			}
			unchanged(t)
		})
	}
}

// TestArgumentsArriveWhole: the arguments, which travel in the policy's
// variable now, reach the server as they were, a backslash and a line
// break in them included; and the launcher refuses arguments on its own
// command line.
func TestArgumentsArriveWhole(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	odd := "a\\b\nc\\\\n d\\"
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			path, argv, env, err := Command(launcher, Policy{Read: []string{"/"}}, "/bin/sh", []string{"sh", "-c", `printf %s "$1"`, "sh", odd}, []string{"PATH=/usr/bin:/bin"})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.Join(argv, " "), "printf") {
				t.Errorf("the launcher's command line holds the server's: %q", argv)
			}
			out, err := (&exec.Cmd{Path: path, Args: argv, Env: env}).Output()
			if err != nil || string(out) != odd {
				t.Errorf("the server got %q (%v), want %q", out, err, odd)
			}
			var errOut bytes.Buffer
			cmd := &exec.Cmd{Path: path, Args: append(argv, "/bin/true", "true"), Env: env, Stderr: &errOut}
			if err := cmd.Run(); err == nil || !strings.Contains(errOut.String(), "not from its command line") {
				t.Errorf("arguments on the launcher's command line: %v, %q", err, errOut.String())
			}
		})
	}
}

// TestCarriedStaysAsGiven: what of the computer's /tmp a server's policy
// names is carried into its own /tmp as its policy gives it, even by a
// policy that gives /tmp too (Landlock's rule on a folder holds beneath
// whatever is mounted there): a folder it may only read stays read only,
// and the rest of the computer's /tmp stays out of reach.
func TestCarriedStaysAsGiven(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	modes := modes(t)
	if !modes["namespaces"] {
		t.Skip("this computer does not let the launcher make namespaces")
	}
	w := newIsolatedWorld(t, true, true)
	p := w.policy
	p.Read = append(slices.Clip(p.Read), w.outside)
	p.Write = append(slices.Clip(p.Write), "/tmp")
	want := map[string]string{
		"read:" + filepath.Join(w.outside, "notes"):               "ok",
		"write:" + filepath.Join(w.outside, "notes"):              "refused",
		"write:" + filepath.Join(w.outside, "planted"):            "refused",
		"read:" + filepath.Join(w.home, ".ssh", "id_ed25519"):     "refused",
		"write:" + filepath.Join(filepath.Dir(w.home), "planted"): "refused",
		"write:" + filepath.Join(w.data, "memory.jsonl"):          "ok",
	}
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			expectProbe(t, launcher, p, want)
		})
	}
}

// TestNoCapabilities: a server holds no capability, in either mode,
// through either launcher: not the launcher's own in its user namespace
// (CAP_NET_ADMIN, CAP_SYS_ADMIN), nor root's when mcptray runs as root.
// The Go launcher's init changes its credentials and forks on one thread
// of its many; the server was once forked from another, which still held
// them all.
func TestNoCapabilities(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			w := newIsolatedWorld(t, true, namespaces)
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					// Several tries: which thread forks is chance.
					for range 5 {
						expectProbe(t, launcher, w.policy, map[string]string{"caps:": "refused"})
					}
				})
			}
		})
	}
}
