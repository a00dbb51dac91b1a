package sandbox

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// ProbeArg is the hidden command that makes mcptray the hostile server
// the check runs in a sandbox (Check): mcptray sandbox-probe TRY…, where
// each TRY is "VERB:ARG". No help lists it.
const ProbeArg = "sandbox-probe"

// Probe is mcptray sandbox-probe: it tries each of args in turn, as a
// hostile server would, and prints one line for each, "TRY OUTCOME",
// where OUTCOME is "ok", "refused" (the system said no: permission, or no
// such program) or "failed: WHY". It reads stdin only for "wait:".
func Probe(args []string, stdin io.Reader, stdout io.Writer) int {
	for _, a := range args {
		fmt.Fprintf(stdout, "%s %s\n", a, outcome(probeTry(a, stdin)))
	}
	return 0
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, os.ErrPermission), errors.Is(err, exec.ErrNotFound):
		return "refused"
	}
	return "failed: " + strings.ReplaceAll(err.Error(), "\n", " ")
}

// probeTry does one thing: read:PATH, write:PATH, connect:PORT (TCP on
// 127.0.0.1), tcp:HOST:PORT, udp:HOST:PORT (sends a datagram), run:PATH,
// unix:PATH (a named socket), abstract:NAME (an abstract socket), uring:
// (io_uring_setup), keyring: (the person's kernel keyring), caps: (ok
// when it holds any capability), detach:MARKER
// (leaves /bin/sleep MARKER behind, in a session of its own), the
// socketpair tries of socketProbe, hold:SECRET (does nothing: SECRET
// stands on its command line), put:PATH and same:PATH (writes a file of
// its own, and finds it unchanged later), cmdline:HEX, launcher:HEX and
// environ:HEX (another process's command line, a launcher's, or its
// environment, that holds the hex-written secret: ok when one is seen),
// env:NAME (ok when the variable NAME reached it), and wait: (reads
// stdin to its end).
func probeTry(a string, stdin io.Reader) error {
	op, arg, _ := strings.Cut(a, ":")
	switch op {
	case "read":
		_, err := os.ReadFile(arg)
		return err
	case "write":
		return os.WriteFile(arg, []byte("x"), 0o600)
	case "connect":
		c, err := net.Dial("tcp", "127.0.0.1:"+arg)
		if err == nil {
			c.Close()
		}
		return err
	case "run":
		return exec.Command(arg).Run()
	case "unix", "abstract":
		if op == "abstract" {
			arg = "@" + arg
		}
		c, err := net.Dial("unix", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "udp":
		c, err := net.Dial("udp", arg)
		if err == nil {
			defer c.Close()
			_, err = c.Write([]byte("a datagram from a server"))
		}
		return err
	case "tcp":
		c, err := net.Dial("tcp", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "uring":
		var params [120]byte // struct io_uring_params
		fd, _, errno := syscall.Syscall(425, 4, uintptr(unsafe.Pointer(&params)), 0)
		if errno != 0 {
			return errno
		}
		syscall.Close(int(fd))
		return nil
	case "keyring":
		// keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0)
		_, _, errno := syscall.Syscall(syscall.SYS_KEYCTL, 0, ^uintptr(3), 0)
		if errno != 0 {
			return errno
		}
		return nil
	case "detach":
		// A grandchild in a session of its own that outlives the server
		// unless something ends it: arg is the marker in its command line.
		cmd := exec.Command("/bin/sleep", arg)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		return cmd.Start() // never waited for: it is left behind
	case "caps":
		// The capabilities it holds or may use (root's, say), which would
		// let it past the rules that bind everyone else. The bounding set
		// is not counted: every unprivileged process has it full, and
		// no-new-privileges keeps it from ever being used.
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			if (k == "CapEff" || k == "CapPrm" || k == "CapAmb") && strings.Trim(strings.TrimSpace(v), "0") != "" {
				return nil
			}
		}
		return fmt.Errorf("it holds no capabilities: %w", os.ErrPermission)
	case "hold":
		// Nothing: arg stands on the probe's command line, as a secret
		// in a server's arguments does.
		return nil
	case "put":
		return os.WriteFile(arg, []byte("kept by "+strconv.Itoa(os.Getpid())), 0o600)
	case "same":
		// What put wrote is still there, unchanged.
		b, err := os.ReadFile(arg)
		if err == nil && string(b) != "kept by "+strconv.Itoa(os.Getpid()) {
			err = fmt.Errorf("%s was changed to %q", arg, b)
		}
		return err
	case "cmdline", "launcher", "environ":
		// Another process's command line that holds the hex-written
		// secret (written so, the probe's own does not): any process's,
		// or a launcher's (mcptray sandbox-exec); or its environment.
		// Refused when none is seen.
		secret, err := hex.DecodeString(arg)
		if err != nil {
			return err
		}
		if op == "environ" {
			return seeInProc("environ", secret, false)
		}
		return seeInProc("cmdline", secret, op == "launcher")
	case "env":
		// A variable of the person's that reached it: ok when set.
		if _, ok := os.LookupEnv(arg); ok {
			return nil
		}
		return fmt.Errorf("%s is not set: %w", arg, os.ErrPermission)
	case "pairsend", "pairmsg", "pairconnect", "pairstream", "pairseqpacket", "pair", "fds":
		return socketProbe(op, arg)
	case "wait":
		if stdin == nil {
			return nil
		}
		_, err := io.Copy(io.Discard, stdin)
		return err
	}
	return fmt.Errorf("no such try %q", op)
}
