package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Namespaces: where this computer lets a program make them, each server
// runs in a user namespace of its own (it keeps the person's user id), a
// PID namespace of its own (the launcher is its init: when the launcher
// ends, the kernel ends every process in it, however it detached), a
// mount namespace of its own (its own /proc, /tmp and /dev/shm,
// mounts_linux.go), and, when its TCP goes through the proxy, a network
// namespace of its own.
// That network has only its loopback, on which the launcher listens at the
// proxy's port and hands the listener to mcptray, which serves the proxy
// on it: the proxy is all there is to reach, by TCP or UDP, at any
// address.
//
// The launcher makes the namespaces itself (the policy's "n" line,
// enterNamespaces), not mcptray as it starts the launcher: a clone that
// makes a user namespace cannot share its parent's memory (no vfork), so
// the kernel would copy mcptray's page tables and mark all its memory
// copy-on-write at each server's start, milliseconds for mcptray and its
// threads alike (bench/README.md). The launcher makes them and forks their
// init, pid 1 there, which has CAP_NET_ADMIN and CAP_SYS_ADMIN in its own
// user namespace only, to bring its loopback up and mount its own /proc,
// /tmp and /dev/shm, and drops them before the server runs; the launcher
// itself stays outside, passes mcptray's signals on to the init and exits
// as it does, and when it is killed the init is killed with it, and the
// kernel ends the rest of the PID namespace.

// bridgeFD is the launcher's file descriptor on which it sends the
// listener back: the first of exec.Cmd's ExtraFiles.
const bridgeFD = 3

// noNamespacesEnv, set to 1, makes mcptray run servers without namespaces
// as on a computer that forbids them: for a system where they misbehave,
// and for the tests of that fallback.
const noNamespacesEnv = "MCPTRAY_SANDBOX_NO_NAMESPACES"

var isolation struct {
	sync.Mutex
	byLauncher map[string]bool
}

// Isolation reports whether servers started through launcher can run in
// namespaces of their own on this computer: it starts the launcher's
// probe once (--probe), which makes them as for a server, brings up its
// loopback there, mounts its own /proc, /tmp and /dev/shm, and ends:
// where it cannot, servers run without namespaces, as the words then
// say. Some systems
// forbid unprivileged user namespaces (a sysctl), or let a program make
// one but give it no rights there (Ubuntu from 24.04, for a program that
// has no AppArmor profile saying it may): the probe fails on both.
func Isolation(launcher string) bool {
	if launcher == "" || os.Getenv(noNamespacesEnv) == "1" {
		return false
	}
	isolation.Lock()
	defer isolation.Unlock()
	if ok, known := isolation.byLauncher[launcher]; known {
		return ok
	}
	ok := exec.Command(launcher, LauncherArg, probeArg).Run() == nil
	if isolation.byLauncher == nil {
		isolation.byLauncher = map[string]bool{}
	}
	isolation.byLauncher[launcher] = ok
	return ok
}

// isolate sets the clone flags that start a process in namespaces of its
// own, keeping the person's user and group ids: a user, PID and mount
// namespace, in which it may mount its own /proc, /tmp and /dev/shm
// (CAP_SYS_ADMIN there, mounts_linux.go), and a network namespace when
// network. The Go launcher starts its init so (enterNamespaces): a Go
// program has threads, and unshare(CLONE_NEWUSER) wants a process of one.
func isolate(attr *syscall.SysProcAttr, network bool) {
	uid, gid := os.Getuid(), os.Getgid()
	attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNS
	attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_SYS_ADMIN)
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	if network {
		attr.Cloneflags |= unix.CLONE_NEWNET
		attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_NET_ADMIN)
	}
}

// Start starts cmd, made from Command's answer for p, through start (which
// calls cmd.Start); the launcher makes p's namespaces. It returns the
// listener the launcher brought out of the server's network namespace, on
// which the caller serves the proxy until the server ends, or nil when p
// has none. The launcher exits with words on its stderr when it could not
// make it.
func Start(cmd *exec.Cmd, p Policy, start func(*exec.Cmd) error) (net.Listener, error) {
	if !p.Namespaces || p.None || p.Bridge == 0 {
		return nil, start(cmd)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("making its network's channel: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "bridge"), os.NewFile(uintptr(fds[1]), "bridge")
	defer ours.Close()
	cmd.ExtraFiles = append([]*os.File{theirs}, cmd.ExtraFiles...)
	err = start(cmd)
	theirs.Close()
	if err != nil {
		return nil, err
	}
	ln, err := receiveListener(ours, 10*time.Second)
	if err != nil {
		return nil, nil // the launcher ends, and says why
	}
	return ln, nil
}

// enterNamespaces is the Go launcher's part of the "n" line (the C
// launcher's enter_namespaces): it starts itself again, with args, in
// namespaces of its own (isolate; a network namespace when network), as
// their init, handing it the bridge's end when bridged, passes the
// signals mcptray sends on to it, and returns its exit code. The init is
// killed when this thread ends (Pdeathsig): the caller locked it.
func enterNamespaces(args []string, network, bridged bool) (int, error) {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 126, fmt.Errorf("making its namespaces: %w", err)
	}
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: args, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	isolate(cmd.SysProcAttr, network)
	if bridged {
		cmd.ExtraFiles = []*os.File{os.NewFile(bridgeFD, "bridge")}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sigs)
	err := cmd.Start()
	if bridged {
		cmd.ExtraFiles[0].Close() // the init's alone
	}
	if err != nil {
		return 126, fmt.Errorf("making its namespaces: %w", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	_ = cmd.Wait()
	return statusCode(cmd.ProcessState.Sys().(syscall.WaitStatus)), nil
}

// receiveListener reads the listener the launcher sends on c.
func receiveListener(c *os.File, wait time.Duration) (net.Listener, error) {
	conn, err := net.FileConn(c)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return nil, errors.New("not a unix socket")
	}
	_ = uc.SetReadDeadline(time.Now().Add(wait))
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := uc.ReadMsgUnix(make([]byte, 1), oob)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("no listener came")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return nil, errors.New("no listener came")
	}
	f := os.NewFile(uintptr(fds[0]), "proxy in its network")
	defer f.Close()
	return net.FileListener(f)
}

// bridge is the launcher's side: with CAP_NET_ADMIN in its network
// namespace, it brings the loopback up, listens at port on 127.0.0.1 and
// sends the listener on bridgeFD. Nothing else of the namespace is set up:
// no other interface, no route out.
func bridge(port int) error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing up its network: %w", err)
	}
	if port == 0 {
		return nil
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("listening for the proxy: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("listening for the proxy: %w", err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		return fmt.Errorf("listening for the proxy: %w", err)
	}
	defer unix.Close(bridgeFD)
	if err := unix.Sendmsg(bridgeFD, []byte{0}, unix.UnixRights(fd), nil, 0); err != nil {
		return fmt.Errorf("handing the proxy's listener to mcptray: %w", err)
	}
	return nil
}

// loopbackUp brings up the network namespace's lo.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// dropCapabilities gives up what the launcher was started with (the
// ambient CAP_NET_ADMIN in its own user namespace) before anything of the
// server's runs; a server started as root (in CI) gives up every
// capability of its bounding set too, so that executing the server does
// not give them back.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("giving up its capabilities: %w", err)
	}
	if os.Getuid() == 0 {
		for c := 0; c <= unix.CAP_LAST_CAP; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("giving up its capabilities: %w", err)
			}
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("giving up its capabilities: %w", err)
	}
	return nil
}
