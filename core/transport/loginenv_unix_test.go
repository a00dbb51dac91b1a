//go:build unix

package transport

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shellHome is a home folder whose shell profile does what people's do:
// print things, add to PATH, export a value with a newline.
func shellHome(t *testing.T, profile string) string {
	t.Helper()
	home := t.TempDir()
	for _, name := range []string{".bash_profile", ".profile", ".zprofile"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(profile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func shellEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TERM=dumb"}
}

func TestLoginEnvReadsTheShellProfile(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	home := shellHome(t, `echo "Welcome back!"
export PATH="$PATH:/opt/from-profile/bin"
export MULTI="first
second"
`)
	for _, shell := range []string{"/bin/bash", "/bin/sh", "/bin/zsh"} {
		t.Run(filepath.Base(shell), func(t *testing.T) {
			t.Parallel()
			if _, ok := findExecutable(shell, nil); !ok {
				t.Skipf("no %s here", shell)
			}
			env, err := runLoginShell(ctx, shell, shellEnv(home), home, loginEnvTimeout)
			if err != nil {
				t.Fatalf("runLoginShell: %v", err)
			}
			if p := envValue(env, "PATH"); !strings.HasSuffix(p, ":/opt/from-profile/bin") {
				t.Errorf("PATH = %q, want the profile's addition", p)
			}
			if v := envValue(env, "MULTI"); v != "first\nsecond" {
				t.Errorf("MULTI = %q", v)
			}
			if envValue(env, "HOME") != home {
				t.Errorf("HOME = %q", envValue(env, "HOME"))
			}
			cleaned := withoutShellVars(env)
			for _, k := range shellOnlyVars {
				if slices.ContainsFunc(cleaned, func(kv string) bool { return strings.HasPrefix(kv, k+"=") }) {
					t.Errorf("%s survived", k)
				}
			}
		})
	}
}

func TestLoginEnvHangingProfileIsCutShort(t *testing.T) {
	t.Parallel()
	if _, ok := findExecutable("/bin/bash", nil); !ok {
		t.Skip("no bash here")
	}
	ctx := stdioTestCtx(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// A profile that starts something in the background, holding stdout,
	// and then waits forever.
	home := shellHome(t, `sleep 60 & echo $! > `+pidFile+`
sleep 60
`)
	start := time.Now()
	const timeout = 300 * time.Millisecond
	_, err := runLoginShell(ctx, "/bin/bash", shellEnv(home), home, timeout)
	if err == nil {
		t.Fatal("a hanging profile gave an environment")
	}
	// At most: the deadline, then stdout's wait (WaitDelay), then a grace
	// after SIGTERM and one after SIGHUP (under load the profile may start
	// its sleeps after SIGTERM came), and a second to spare.
	if took, most := time.Since(start), timeout+500*time.Millisecond+2*loginEnvGrace+time.Second; took > most {
		t.Errorf("took %s, want at most %s", took, most)
	}
	// The whole session was killed, the background sleep too.
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	waitProcessesGone(t, 5*time.Second, pid)
}

func TestLoginEnvShellChoice(t *testing.T) {
	t.Parallel()
	if sh := loginShell(); !filepath.IsAbs(sh) {
		t.Errorf("loginShell = %q", sh)
	}
	for shell, ok := range map[string]bool{"/bin/bash": true, "/usr/bin/zsh": true, "/usr/local/bin/fish": true, "/bin/tcsh": true, "/usr/bin/nu": false, "/usr/bin/pwsh": false} {
		args, got := shellArgs(shell, "M")
		if got != ok || (ok && !strings.Contains(args[len(args)-1], "env")) {
			t.Errorf("shellArgs(%s) = %q, %v", shell, args, got)
		}
	}
}

func TestLoginEnvNvmDefault(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if got := nvmBin(home); got != "" {
		t.Errorf("nvmBin without nvm = %q", got)
	}
	for _, v := range []string{"v18.1.0", "v20.9.0", "v20.11.1", "v9.0.0"} {
		if err := os.MkdirAll(filepath.Join(home, ".nvm", "versions", "node", v, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := func(v string) string { return filepath.Join(home, ".nvm", "versions", "node", v, "bin") }
	if got := nvmBin(home); got != bin("v20.11.1") {
		t.Errorf("no alias: %q", got)
	}
	if err := os.MkdirAll(filepath.Join(home, ".nvm", "alias"), 0o755); err != nil {
		t.Fatal(err)
	}
	for alias, want := range map[string]string{"18\n": "v18.1.0", "v20.9.0": "v20.9.0", "20": "v20.11.1", "lts/*": "v20.11.1"} {
		if err := os.WriteFile(filepath.Join(home, ".nvm", "alias", "default"), []byte(alias), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := nvmBin(home); got != bin(want) {
			t.Errorf("alias %q: %q, want %s", alias, got, want)
		}
	}
}

// TestLoginEnvCutShortLetsTheProfileCleanUp: a profile cut short is asked
// to end, not killed outright, so what it holds is let go. pyenv's rehash,
// run from many profiles, holds a lock file with a trap to remove it on
// exit; killed outright, it left the lock, and every shell the person
// opened after waited 60 s for it. The shell is cut short (its context
// cancelled, as its deadline does) once the trap is set, which the script
// says through a FIFO.
func TestLoginEnvCutShortLetsTheProfileCleanUp(t *testing.T) {
	t.Parallel()
	if _, ok := findExecutable("/bin/bash", nil); !ok {
		t.Skip("no bash here")
	}
	dir := t.TempDir()
	lock, rehash, ready := filepath.Join(dir, ".shim-lock"), filepath.Join(dir, "rehash"), filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	// As pyenv-rehash does: a bash script of its own, the lock taken with
	// noclobber, a trap that removes it, then slow work.
	script := `#!/bin/bash
set -o noclobber
echo -n > ` + lock + `
trap 'rm -f ` + lock + `' EXIT
echo set > ` + ready + `
sleep 60
`
	if err := os.WriteFile(rehash, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	home := shellHome(t, rehash+"\n")
	ctx, cancel := context.WithCancel(stdioTestCtx(t))
	defer cancel()
	go func() {
		if f, err := os.Open(ready); err == nil { // blocks until the script writes
			_, _ = f.Read(make([]byte, 8))
			f.Close()
		}
		cancel()
	}()
	if _, err := runLoginShell(ctx, "/bin/bash", shellEnv(home), home, loginEnvTimeout); err == nil {
		t.Fatal("a profile cut short gave an environment")
	}
	if _, err := os.Stat(lock); err == nil {
		t.Error("the profile's lock file is left behind: its shell was killed before it could remove it")
	}
}

// TestLoginEnvCancelledBeforeItStarts: a caller that gave up before the
// shell started gets an error, not a crash (a service stopped as it
// started read the login shell so).
func TestLoginEnvCancelledBeforeItStarts(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	home := shellHome(t, "")
	if _, err := runLoginShell(ctx, "/bin/bash", shellEnv(home), home, loginEnvTimeout); err == nil {
		t.Fatal("a cancelled read gave an environment")
	}
}
