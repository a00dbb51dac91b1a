// Package gobuild builds the commands that tests run as programs (mcptray,
// its sandbox launcher, the test server) once for every test package that
// asks, rather than once in each.
//
// go build -o links the program anew every time, and mcptray's link takes
// seconds of a core; several test packages each linked the same programs.
// The commands go.mod lists as tools are linked by go tool into Go's build
// cache instead, where the next package finds them: go tool -n builds the
// tool when the cache does not hold it, and prints its path.
package gobuild

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Build puts the command pkg (an import path), built with the go build
// flags given, at bin. Without flags, a command go.mod lists as a tool
// comes from Go's build cache (linked there once); any other is built
// with go build.
func Build(bin, pkg string, flags ...string) error {
	if len(flags) == 0 {
		if cached, err := tool(pkg); err == nil && place(cached, bin) == nil {
			return nil
		}
	}
	args := append(append([]string{"build", "-o", bin}, flags...), pkg)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return errors.New("go " + strings.Join(args, " ") + ": " + err.Error() + "\n" + string(out))
	}
	return nil
}

// tool returns the path of the tool pkg's program in Go's build cache,
// building it there when it is not yet.
func tool(pkg string) (string, error) {
	// The linker's warnings go to stderr; stdout has the path alone.
	out, err := exec.Command("go", "tool", "-n", pkg).Output()
	if err != nil {
		return "", fmt.Errorf("go tool -n %s: %w", pkg, err)
	}
	path := strings.TrimSpace(string(out))
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("go tool -n %s printed %q, not a program", pkg, path)
	}
	return path, nil
}

// place copies the cached program to bin. A copy, not a link: a test
// may change or replace its program, and the cache's must stay as it is.
func place(cached, bin string) error {
	in, err := os.Open(cached)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(bin)
		return err
	}
	return out.Close()
}
