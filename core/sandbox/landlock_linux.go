package sandbox

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock through golang.org/x/sys/unix's system calls, not through
// go-landlock: its main API restricts every thread of a process, through
// libcap's psx in programs linked with cgo (mcptray is), and even its
// lower-level landlock/syscall package links psx in (its all-threads
// calls), which would wrap every thread mcptray makes. The launcher needs
// none of that: it locks its one goroutine to its thread, restricts that
// thread, and executes the server from it at once; the new program has only
// that thread, and its restrictions. x/sys/unix, already one of mcptray's
// dependencies, has the calls, their numbers and flags.

// Rights by Landlock ABI: each version handles more kinds of access.
const (
	fsRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// fsFile are the rights that apply to a file rather than a folder.
	fsFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV | unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	ruleNetPort = 2 // LANDLOCK_RULE_NET_PORT
)

// fsHandled are the file-system rights the kernel's ABI knows. From ABI 9
// that includes RESOLVE_UNIX, connecting to a named Unix socket: only
// those beneath what the server may write (docker's socket, for its
// client) are then in reach, unless anySocket (the person let it use any,
// Policy.AnySocket). The seccomp filter refuses them whatever the ABI to
// a server without Policy.Sockets.
func fsHandled(abi int, anySocket bool) uint64 {
	switch {
	case abi >= 9 && anySocket:
		return (1<<17 - 1) &^ unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	case abi >= 9:
		return 1<<17 - 1
	case abi >= 5:
		return 1<<16 - 1
	case abi >= 3:
		return 1<<15 - 1
	case abi == 2:
		return 1<<14 - 1
	case abi == 1:
		return 1<<13 - 1
	}
	return 0
}

// netPortAttr is the kernel's struct landlock_net_port_attr.
type netPortAttr struct {
	allowed uint64
	port    uint64
}

// ABI returns the kernel's Landlock version, 0 when it has none.
func ABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// Protection says how well p protects a server on this system, as the
// last check on this computer found it (SetLastCheck): a door that did
// not hold is said, with what to do, and so is a check not yet run.
func Protection(p Policy) Level { return withCheck(levelFor(p, ABI()), p) }

// restrict applies p to the calling thread, which must be locked to its
// goroutine and must execute the server next. It does as much as the
// kernel can (best effort) and returns the ABI it used: 0, with no error,
// when the kernel has no Landlock.
func restrict(p Policy) (int, error) {
	abi := ABI()
	if abi <= 0 || p.None {
		return 0, nil
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: fsHandled(abi, p.AnySocket)}
	if abi >= 4 && p.RestrictTCP {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return abi, fmt.Errorf("making its rules: %w", errno)
	}
	defer unix.Close(int(fd))
	beneath := p.beneath()
	for _, path := range p.Read {
		if err := addPath(int(fd), path, fsRead&attr.Handled_access_fs, beneath); err != nil {
			return abi, err
		}
	}
	for _, path := range p.Write {
		if err := addPath(int(fd), path, attr.Handled_access_fs, beneath); err != nil {
			return abi, err
		}
	}
	if attr.Handled_access_net != 0 {
		for _, port := range p.Ports {
			a := netPortAttr{allowed: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
			if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, ruleNetPort, uintptr(unsafe.Pointer(&a)), 0, 0, 0); errno != 0 {
				return abi, fmt.Errorf("allowing port %d: %w", port, errno)
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return abi, fmt.Errorf("setting no-new-privileges: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return abi, fmt.Errorf("restricting itself: %w", errno)
	}
	return abi, nil
}

// addPath allows rights beneath path; a path that does not exist (or
// cannot be opened) is left out, since nothing there can be reached. A
// path in a folder the server or another server may write (writable) is
// opened through no link (openRule).
func addPath(rulesetFD int, path string, rights uint64, writable []string) error {
	fd, err := openRule(path, writable)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fsFile
	}
	if rights == 0 {
		return nil
	}
	a := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&a)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("allowing %s: %w", path, errno)
	}
	return nil
}

// openRule opens a rule's path. One in a folder the server may write (its
// tmp, a cache, a folder in its project) may be a link it planted there,
// to ~/.ssh say, and one in a folder another server may write
// (Policy.Shared) a link that server planted for this one: it is opened
// beneath the outermost such folder that holds it, through no symlink and
// no /proc magic link, and a link is left out (ELOOP). In its own folder
// its rule would give nothing anyway: what lies there it may write
// already. The twin of open_rule in
// cmd/mcptray-sandbox's launch_linux.c.
func openRule(path string, writable []string) (int, error) {
	root, rel := anchorIn(writable, path)
	if root == "" {
		return unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	}
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(dir)
	return unix.Openat2(dir, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
}

// Command returns what runs program (with argv and env) inside p: the
// launcher, told p, the program and its arguments through its
// environment, so that its command line, which every process may read,
// holds none of them.
func Command(launcher string, p Policy, program string, argv, env []string) (string, []string, []string, error) {
	enc, err := encode(p)
	if err != nil {
		return "", nil, nil, err
	}
	if p.None {
		return program, argv, env, nil
	}
	if enc, err = encodeCommand(enc, program, argv); err != nil {
		return "", nil, nil, err
	}
	return launcher, []string{launcher, LauncherArg, "--"}, append(p.Environ(env), policyEnv+"="+enc), nil
}

// execLaunched restricts this process and executes the program; it returns
// only when one of the two failed.
func execLaunched(p Policy, plan launchPlan, program string, argv, env []string) error {
	runtime.LockOSThread() // never unlocked: the thread is about to become the server
	if err := keepOnlyStdio(); err != nil {
		return fmt.Errorf("could not put the server in its sandbox: %w", err)
	}
	if _, err := restrict(p); err != nil {
		return fmt.Errorf("could not put the server in its sandbox: %w", err)
	}
	if plan.filter != "" {
		if err := installFilter(plan.filter); err != nil {
			return fmt.Errorf("could not put the server in its sandbox: %w", err)
		}
	}
	err := unix.Exec(program, argv, env)
	if errors.Is(err, unix.EACCES) {
		return fmt.Errorf("its sandbox does not let it run %s: %w", program, err)
	}
	return fmt.Errorf("running %s: %w", program, err)
}

// keepOnlyStdio marks close-on-exec every file descriptor above stderr,
// so that the server starts with its three pipes alone: a socket mcptray
// holds without the mark (one it was itself handed when it started, say)
// would reach the server, and through it anything its other end sends.
func keepOnlyStdio() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	entries, err := os.ReadDir("/proc/self/fd") // a kernel older than 5.11
	if err != nil {
		return fmt.Errorf("reading its file descriptors: %w", err)
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			// ReadDir's own descriptor is closed by now: EBADF.
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
				return fmt.Errorf("closing what it need not hold: %w", err)
			}
		}
	}
	return nil
}

// installFilter installs the seccomp filter hex (seccomp.go) on this
// thread, which must have no-new-privileges set and execute the server
// next.
func installFilter(hex string) error {
	raw, err := decodeFilter(hex)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no-new-privileges: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("installing its system call filter: %w", err)
	}
	return nil
}

// probeIsolation is the launcher's --probe: started in a server's
// namespaces, it does what the init does there first, its own /proc,
// /tmp and /dev/shm included.
func probeIsolation() error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing up its network: %w", err)
	}
	if _, err := privateMounts(nil); err != nil {
		return err
	}
	return dropCapabilities()
}
