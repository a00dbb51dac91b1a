package transport

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// ErrCommandNotFound is what Start's error wraps when the program to run is
// not on the PATH the child would run with, or is no program at all.
var ErrCommandNotFound = errors.New("program not found")

type notFoundError struct {
	name     string
	searched bool // name was looked up on PATH, not used as a path
}

func (e *notFoundError) Error() string {
	if e.searched {
		return fmt.Sprintf("%q was not found in any folder on PATH", e.name)
	}
	return fmt.Sprintf("%s does not exist or is not a program", e.name)
}

func (e *notFoundError) Is(target error) bool { return target == ErrCommandNotFound }

// lookPath finds the program name would run as in a child whose environment
// is env and whose working folder is dir. exec.LookPath cannot do this: it
// reads this process's PATH, and a GUI app's PATH lacks what the person's
// shell profile adds. A name with a path separator is used as it is (relative
// to dir); folders on PATH that are not absolute are skipped, since they
// would find a program by where the child happens to run.
func lookPath(name string, env []string, dir string) (string, error) {
	if strings.ContainsAny(name, pathSeparators) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if f, ok := findExecutable(p, env); ok {
			return f, nil
		}
		return "", &notFoundError{name: name}
	}
	for _, d := range filepath.SplitList(envValue(env, "PATH")) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if f, ok := findExecutable(filepath.Join(d, name), env); ok {
			return f, nil
		}
	}
	return "", &notFoundError{name: name, searched: true}
}

// childEnv is the environment a server runs with: base, with the server's
// own variables on top (sorted, so the result does not depend on map order)
// and, on Unix, PWD set to its working folder as a shell would. A later
// entry replaces an earlier one with the same name, in place.
func childEnv(base []string, extra map[string]string, dir string) []string {
	out := make([]string, 0, len(base)+len(extra)+1)
	index := make(map[string]int, len(base)+len(extra)+1)
	set := func(kv string) {
		k, _, ok := envSplit(kv)
		if !ok {
			return
		}
		if i, ok := index[k]; ok {
			out[i] = kv
			return
		}
		index[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range base {
		set(kv)
	}
	if _, ownPWD := extra["PWD"]; dir != "" && runtime.GOOS != "windows" && !ownPWD {
		set("PWD=" + dir)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		set(k + "=" + extra[k])
	}
	return out
}

// envSplit splits a NAME=value entry; the name comes back as the OS compares
// names, upper-cased on Windows where case does not matter. On Windows a
// name may itself start with "=" (cmd.exe's per-drive folders).
func envSplit(kv string) (key, value string, ok bool) {
	i := strings.IndexByte(kv, '=')
	if i == 0 && runtime.GOOS == "windows" {
		i = strings.IndexByte(kv[1:], '=') + 1
	}
	if i <= 0 {
		return "", "", false
	}
	key = kv[:i]
	if runtime.GOOS == "windows" {
		key = strings.ToUpper(key)
	}
	return key, kv[i+1:], true
}

// envValue is the value of the last entry named key in env, the one the
// child would see.
func envValue(env []string, key string) string {
	want, _, _ := envSplit(key + "=")
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := envSplit(env[i]); ok && k == want {
			return v
		}
	}
	return ""
}

// procGroup is a started child and everything it starts, as far as the OS
// lets mcptray reach them: a process group on Unix, a job object on Windows.
// Nothing in it reaps the child: that is Stdio.stop's single cmd.Wait.
type procGroup struct {
	pid    int
	exited <-chan struct{} // closed once the child (the group's leader) has exited
	sys    sysGroup        // the OS's handles
}

// hasExited reports whether the leader has exited.
func (g *procGroup) hasExited() bool {
	select {
	case <-g.exited:
		return true
	default:
		return false
	}
}

// waitGone waits up to d for the leader to exit and then for the rest of the
// group to end, and reports whether they all did. The leader's exit is an
// event; the others' is not (they are not our children), so that part polls.
func (g *procGroup) waitGone(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-g.exited:
	case <-timer.C:
		return false
	}
	if !g.alive() {
		return true
	}
	tick := time.NewTicker(groupPollEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-timer.C:
			return !g.alive()
		}
		if !g.alive() {
			return true
		}
	}
}

// groupPollEvery is how often waitGone looks whether the rest of a group has
// ended after its leader.
const groupPollEvery = 20 * time.Millisecond
