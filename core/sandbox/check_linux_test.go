package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCheckHolds is mcptray sandbox check on this computer, through both
// launchers, in namespaces (where it allows them) and in the fallback:
// every door of Doors holds for every kind of server, what a server needs
// works, and the report says so in words and in JSON.
func TestCheckHolds(t *testing.T) {
	if ABI() < 6 || !SeccompSupported() {
		t.Skipf("the check needs Landlock 6 (this kernel has %d) and a system call filter for this processor", ABI())
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			if !namespaces {
				t.Setenv(noNamespacesEnv, "1")
			}
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					r, err := Check(ctx, CheckOptions{Launcher: launcher, Probe: []string{mustExe(t), ProbeArg}, Version: "test"})
					if err != nil {
						t.Fatal(err)
					}
					var text bytes.Buffer
					r.WriteText(&text)
					t.Logf("mcptray sandbox check:\n%s", text.String())
					if r.Namespaces != namespaces || len(r.Kinds) != len(Kinds) {
						t.Fatalf("namespaces %v, %d kinds; want %v, %d", r.Namespaces, len(r.Kinds), namespaces, len(Kinds))
					}
					for _, k := range r.Kinds {
						if k.Err != "" {
							t.Errorf("%s: %s", k.Kind.Name, k.Err)
						}
						tried := map[string]bool{}
						for _, d := range k.Doors {
							tried[d.Door] = true
							if d.State != "held" && d.State != "works" && d.State != "limit" {
								t.Errorf("%s: %s: %s (%s)", k.Kind.Name, d.Door, d.State, d.Outcome)
							}
						}
						for _, d := range Doors {
							if !tried[d.Name] && d.Try(&Scene{Elsewhere: "x", Terminal: "x"}, k.Kind) != "" {
								t.Errorf("%s: the door %s was not tried", k.Kind.Name, d.Name)
							}
						}
					}
					if !r.Held() || !strings.HasPrefix(text.String(), "Every door held") {
						t.Errorf("the report does not say that every door held:\n%s", text.String())
					}
					var back Report
					if b, err := json.Marshal(r); err != nil || json.Unmarshal(b, &back) != nil || !back.Held() {
						t.Errorf("the report does not survive JSON: %v", err)
					}
				})
			}
		})
	}
}

// TestCheckProbeThatProvesNothing: a probe that tries nothing (a program
// that prints nothing) would seem to be refused everything; what a server
// must be able to do then did not work, and the check does not say that
// every door held.
func TestCheckProbeThatProvesNothing(t *testing.T) {
	if ABI() < 6 || !SeccompSupported() {
		t.Skipf("the check needs Landlock 6 (this kernel has %d) and a system call filter for this processor", ABI())
	}
	t.Setenv(noNamespacesEnv, "1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Check(ctx, CheckOptions{Launcher: mustExe(t), Probe: []string{"/bin/true"}, Kinds: Kinds[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if r.Held() || !strings.Contains(r.Summary(), "not write in its own data folder") {
		t.Errorf("a probe that tried nothing passed: %s", r.Summary())
	}
}

// TestCheckTerminalIsReal: the tty door proves something only where the
// probe has a terminal. With the check's pseudo-terminal, through both
// launchers and in both modes, /dev/tty is refused by the sandbox, and a
// policy that gives it lets the probe write there: the terminal is there.
func TestCheckTerminalIsReal(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	for name, launcher := range launchers(t) {
		for mode, namespaces := range modes(t) {
			t.Run(name+"/"+mode, func(t *testing.T) {
				w := newIsolatedWorld(t, false, namespaces)
				for rule, want := range map[bool]string{false: "refused", true: "ok"} {
					p := w.policy
					p.Read = append(slices.Clone(p.Read), filepath.Dir(mustExe(t)))
					if rule {
						p.Write = append(slices.Clone(p.Write), "/dev/tty")
					}
					master, tty, err := openTerminal()
					if err != nil {
						t.Skipf("no pseudo-terminal here: %v", err)
					}
					s := &Scene{Data: w.data, Terminal: tty.Name(), tty: tty}
					out, err := s.run(context.Background(), launcher, p, mustExe(t), []string{"probe", ProbeArg, "write:/dev/tty"}, os.Environ())
					tty.Close()
					master.Close()
					if err != nil || out != "write:/dev/tty "+want {
						t.Errorf("with the rule %v: %q, %v; want %s", rule, out, err, want)
					}
				}
			})
		}
	}
}
