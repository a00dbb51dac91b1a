package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// A server in namespaces of its own gets a /proc, a /tmp and a /dev/shm of
// its own: in a mount namespace that the launcher makes (with the user and
// PID namespaces, namespaces_linux.go), the init it starts there, before
// anything of the server runs and before Landlock (which forbids mount
// changes once a process is restricted):
//
//   - makes every mount private, so that nothing it mounts reaches the
//     computer's own mounts;
//   - mounts a proc of its PID namespace on /proc: no other server's
//     processes are there, nor their command lines;
//   - mounts an empty tmpfs, of at most privateSize, on /tmp and on
//     /dev/shm: what the server keeps there (a program that writes /tmp by
//     name, python's multiprocessing, a browser's shared memory) no other
//     server sees, and it sees nothing of the person's other programs';
//   - carries back into its /tmp what of the computer's /tmp its policy
//     names (a project there, a grant) and the program it runs: the
//     folder or file right beneath /tmp that holds each is bind-mounted
//     at its own path, and Landlock's rules apply there as before. Landlock's rule on a
//     folder holds for whatever is mounted beneath it, so the server's
//     right to write its /tmp would hold there too: where anything is
//     carried, the launcher drops any rule on /tmp itself, and the server
//     may use only what its policy gives it there (Default gives /tmp
//     only where nothing is carried).
//
// Where the computer lets a program make namespaces but not mount a proc
// of its own (in some containers, where parts of /proc are masked), the
// probe fails (Isolation) and servers run as in the fallback, which the
// words say.
//
// cmd/mcptray-sandbox's C does the same.

// privateSize bounds each of the server's /tmp and /dev/shm: what is
// kept there is memory.
const privateSize = "512m"

// privateMounts gives the launcher's mount namespace its own /proc, /tmp
// and /dev/shm, carrying what of the computer's /tmp the paths carry (the
// policy's) name back into its /tmp; it reports whether it carried
// anything. It refuses to work outside a PID namespace of its own, which
// the launcher makes with the mount namespace: it would change the
// computer's own mounts.
func privateMounts(carry []string) (bool, error) {
	if os.Getpid() != 1 {
		return false, errors.New("its own /proc, /tmp and /dev/shm need namespaces of its own")
	}
	type kept struct {
		path string
		fd   int
		dir  bool
	}
	var keep []kept
	defer func() {
		for _, k := range keep {
			unix.Close(k.fd)
		}
	}()
	for _, p := range inTmp(carry) {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // not there: nothing to carry
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			continue
		}
		keep = append(keep, kept{p, fd, st.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return false, fmt.Errorf("making its mounts its own: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return false, fmt.Errorf("mounting its own /proc: %w", err)
	}
	for _, d := range []string{tmpDir, "/dev/shm"} {
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			continue // nothing there to share
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size="+privateSize); err != nil {
			return false, fmt.Errorf("mounting its own %s: %w", d, err)
		}
	}
	for _, k := range keep {
		var err error
		if k.dir {
			err = os.MkdirAll(k.path, 0o700)
		} else if err = os.MkdirAll(filepath.Dir(k.path), 0o700); err == nil {
			var f *os.File
			if f, err = os.OpenFile(k.path, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				f.Close()
			}
		}
		if err == nil {
			err = unix.Mount("/proc/self/fd/"+strconv.Itoa(k.fd), k.path, "", unix.MS_BIND|unix.MS_REC, "")
		}
		if err != nil {
			return false, fmt.Errorf("carrying %s into its own /tmp: %w", k.path, err)
		}
	}
	return len(keep) > 0, nil
}
