//go:build unix

package transport

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// loginEnvMaxOutput bounds what is read from the shell: an environment is a
// few KiB; a profile that prints megabytes is not worth reading.
const loginEnvMaxOutput = 4 << 20

// loadLoginEnv runs the person's shell as an interactive login shell (so it
// reads both their login profile and their rc file, where nvm and friends
// put themselves) and has it print its environment.
func loadLoginEnv(ctx context.Context, logger *slog.Logger) ([]string, error) {
	home, _ := os.UserHomeDir()
	shell := loginShell()
	start := time.Now()
	env, err := runLoginShell(ctx, shell, os.Environ(), home, loginEnvTimeout)
	if err != nil {
		return nil, err
	}
	logger.Debug("read the login shell's environment", "shell", shell, "vars", len(env), "took", time.Since(start))
	return withToolDirs(withoutShellVars(env), toolDirs(home, os.Getenv)), nil
}

// runLoginShell runs shell in home with env and returns the environment it
// prints between two marks. The shell gets no terminal (a session of its
// own, stdin from /dev/null), so nothing in a profile can wait for input, and
// the whole session is ended when timeout is up: asked first, so that the
// profile's scripts let go of what they hold, then hung up on, then
// killed.
func runLoginShell(ctx context.Context, shell string, env []string, home string, timeout time.Duration) ([]string, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	mark := "_MCPTRAY_ENV_" + hex.EncodeToString(b[:]) + "_"
	args, ok := shellArgs(shell, mark)
	if !ok {
		return nil, fmt.Errorf("mcptray does not know how to ask %s for its environment", shell)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = home
	cmd.Env = append(slices.Clone(env), resolvingEnvVar+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Cut short, the session is asked to end (SIGTERM), so that what the
	// profile holds is let go: pyenv's rehash removes its lock file on
	// exit, and killed outright it left every later shell of the person
	// waiting 60 s for it. One signal at a time: a second arriving while
	// a script runs its exit trap ends it half done. What is still there
	// after a grace is hung up on, then killed (endSession).
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	// Something the profile started in the background may hold stdout open
	// after the shell has exited; what we need is printed by then.
	cmd.WaitDelay = 500 * time.Millisecond
	out := &cappedBuffer{max: loginEnvMaxOutput}
	cmd.Stdout = out

	runErr := cmd.Run()
	if ctx.Err() != nil && cmd.Process != nil { // nil: cancelled before it started
		endSession(cmd.Process.Pid, loginEnvGrace)
	}
	if runErr != nil && ctx.Err() != nil {
		// Cut short: an interactive shell goes on past a script that
		// ended and may print, but its profile did not run whole.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s did not finish within %s", shell, timeout)
		}
		return nil, fmt.Errorf("reading %s's environment: %w", shell, ctx.Err())
	}
	printed, err := parseEnvOutput(out.buf, mark)
	if err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("%s did not finish within %s", shell, timeout)
		case runErr != nil:
			return nil, fmt.Errorf("running %s: %w", shell, runErr)
		}
		return nil, fmt.Errorf("%s: %w", shell, err)
	}
	// A profile that makes the shell exit non-zero after printing is fine:
	// the environment is what matters.
	return printed, nil
}

// loginEnvGrace is how long a login shell cut short has to end after each
// signal before the next.
const loginEnvGrace = time.Second

// endSession ends what is left of session sid (the login shell's, which
// it leads, its process group too) once SIGTERM was sent: it waits up to
// grace for its processes to end, then sends SIGHUP (an interactive shell
// ignores SIGTERM) and waits again, then kills those still there.
func endSession(sid int, grace time.Duration) {
	for _, next := range []syscall.Signal{syscall.SIGHUP, syscall.SIGKILL} {
		if sessionEnded(sid, grace) {
			return
		}
		_ = syscall.Kill(-sid, next)
	}
}

// sessionEnded waits up to grace for session sid to have no living
// process. Nothing tells when a session's last process ends: it looks
// again every 20 ms.
func sessionEnded(sid int, grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	for {
		// An orphan's zombie counts for kill until its new parent reaps
		// it, which here took seconds: on Linux, /proc tells the living.
		if syscall.Kill(-sid, 0) != nil || !groupHasLiving(sid) {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shellArgs is how to run shell so that it prints its environment between
// two marks. env -0 separates entries with NUL, which no value can hold;
// where env lacks -0, plain env does, and parseEnvOutput copes.
func shellArgs(shell, mark string) ([]string, bool) {
	switch filepath.Base(shell) {
	case "bash", "zsh", "fish", "sh", "dash", "ash", "ksh", "mksh", "oksh", "yash":
		script := "printf '%s' " + mark + "; command env -0 2>/dev/null || command env; printf '%s' " + mark
		return []string{"-i", "-l", "-c", script}, true
	case "csh", "tcsh":
		// csh takes -l only alone; it reads .cshrc, where csh users set PATH,
		// on every start.
		return []string{"-c", "printf '%s' " + mark + "; env; printf '%s' " + mark}, true
	}
	return nil, false
}

// loginShell is the person's shell: $SHELL, else their entry in
// /etc/passwd, else the system's default.
func loginShell() string {
	if sh := os.Getenv("SHELL"); filepath.IsAbs(sh) {
		if _, ok := findExecutable(sh, nil); ok {
			return sh
		}
	}
	if sh := passwdShell(os.Getuid()); sh != "" {
		return sh
	}
	if runtime.GOOS == "darwin" {
		return "/bin/zsh"
	}
	return "/bin/sh"
}

func passwdShell(uid int) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	want := strconv.Itoa(uid)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if len(f) == 7 && f[2] == want && filepath.IsAbs(f[6]) {
			if _, ok := findExecutable(f[6], nil); ok {
				return f[6]
			}
		}
	}
	return ""
}

// toolDirs are folders where people's tools commonly live, in the order
// they are added to PATH.
func toolDirs(home string, _ func(string) string) []string {
	dirs := []string{
		"/opt/homebrew/bin", "/opt/homebrew/sbin",
		"/usr/local/bin", "/usr/local/sbin",
		"/home/linuxbrew/.linuxbrew/bin",
		"/opt/local/bin", // MacPorts
		"/nix/var/nix/profiles/default/bin",
		"/snap/bin",
		"/usr/local/go/bin",
		"/usr/bin", "/bin", "/usr/sbin", "/sbin",
		"/Applications/Docker.app/Contents/Resources/bin",
	}
	if home == "" {
		return dirs
	}
	in := func(p ...string) string { return filepath.Join(append([]string{home}, p...)...) }
	dirs = append(dirs,
		in(".local", "bin"), // uv, pipx, claude
		in("bin"),
		in(".cargo", "bin"),
		in(".bun", "bin"),
		in(".deno", "bin"),
		in("go", "bin"),
		in(".volta", "bin"),
		in(".asdf", "shims"),
		in(".local", "share", "mise", "shims"),
		in(".local", "share", "fnm", "aliases", "default", "bin"),
		in("Library", "Application Support", "fnm", "aliases", "default", "bin"),
		in(".local", "share", "pnpm"),
		in("Library", "pnpm"),
		in(".npm-global", "bin"),
		in(".yarn", "bin"),
		in(".nix-profile", "bin"),
		in(".docker", "bin"),
		nvmBin(home),
	)
	return dirs
}

// nvmBin is the bin folder of nvm's default Node (the newest installed one
// matching ~/.nvm/alias/default, or the newest installed at all), "" if nvm
// has none.
func nvmBin(home string) string {
	root := filepath.Join(home, ".nvm", "versions", "node")
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	var versions []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "v") {
			versions = append(versions, e.Name())
		}
	}
	if len(versions) == 0 {
		return ""
	}
	slices.SortFunc(versions, compareVersions)
	pick := versions[len(versions)-1]
	if alias, err := os.ReadFile(filepath.Join(home, ".nvm", "alias", "default")); err == nil {
		want := "v" + strings.TrimPrefix(strings.TrimSpace(string(alias)), "v")
		for i := len(versions) - 1; i >= 0; i-- {
			if v := versions[i]; v == want || strings.HasPrefix(v, want+".") {
				pick = v
				break
			}
		}
	}
	return filepath.Join(root, pick, "bin")
}

// compareVersions orders "v20.11.1" and the like by their numbers.
func compareVersions(a, b string) int {
	pa := strings.Split(strings.TrimPrefix(a, "v"), ".")
	pb := strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errx := strconv.Atoi(pa[i])
		y, erry := strconv.Atoi(pb[i])
		if errx != nil || erry != nil {
			if c := strings.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
			continue
		}
		if x != y {
			return x - y
		}
	}
	return len(pa) - len(pb)
}

// cappedBuffer keeps the first max bytes written to it and drops the rest,
// without failing the writer.
type cappedBuffer struct {
	buf []byte
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
