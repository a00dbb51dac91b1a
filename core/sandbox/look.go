package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"time"
)

// maxLook is as much of a look's output as is kept: a version is a line.
const maxLook = 64 << 10

// Look runs program with args in p, through launcher, as the server p is
// for would run in it, and returns what it printed (its output and its
// errors, the first 64 KiB). mcptray looks at a server's runtime so (its
// node --version): the runtime may lie in a folder the server may change
// (a project's own node, a folder on its command line, one it was
// allowed to write), and run outside the sandbox it would be the
// server's own program with everything the person has. A look reaches no
// network (no port, no proxy) and ends with ctx.
// Where the policy cannot be applied (no launcher on Linux, a policy
// that runs without Landlock) nothing runs; on Windows, where servers run
// without a sandbox, the program runs as a server would.
func Look(ctx context.Context, launcher string, p Policy, program string, args, env []string) (string, error) {
	if p.None || (launcher == "" && runtime.GOOS == "linux") {
		return "", errors.New("there is no sandbox to run it in")
	}
	p.RestrictTCP, p.Ports, p.Bridge = true, nil, 0
	path, argv, boxed, err := Command(launcher, p, program, append([]string{program}, args...), env)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Args, cmd.Env = argv, boxed
	// A grandchild that keeps the pipe open does not hold the look.
	cmd.WaitDelay = time.Second
	var out limited
	cmd.Stdout, cmd.Stderr = &out, &out
	if _, err := Start(cmd, p, (*exec.Cmd).Start); err != nil {
		return "", fmt.Errorf("running %s in its sandbox: %w", program, err)
	}
	err = cmd.Wait()
	return out.String(), err
}

// limited keeps the first maxLook bytes written to it.
type limited struct{ bytes.Buffer }

func (l *limited) Write(b []byte) (int, error) {
	if room := maxLook - l.Len(); room > 0 {
		l.Buffer.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}
