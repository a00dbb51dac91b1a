package control

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/core/config"
)

// SocketPath is where the running mcptray listens on Windows: a named
// pipe, the platform's own way for programs of one person to talk (Wine
// and older Windows have no AF_UNIX, and Windows' AF_UNIX tells nothing
// of the process at the other end). Its name is the control folder's,
// which carries the person's account and config.
func SocketPath(p config.Paths) string {
	return `\\.\pipe\` + filepath.Base(p.ControlDir()) + "-control"
}

// pipeSDDL is the pipe's access list: the person's own account, and no
// one else; not even the system's administrators are named (P: no
// inherited entries).
func pipeSDDL(sid string) string { return "D:P(A;;GA;;;" + sid + ")" }

// listenSocket makes the named pipe at path, which only the person's own
// account may open. It fails when another process already has a pipe of
// that name (go-winio asks for the first instance), so that no program,
// of this person's or another's, can stand in for mcptray.
func listenSocket(path string) (net.Listener, error) {
	sid, err := tokenSID(windows.GetCurrentProcessToken())
	if err != nil {
		return nil, fmt.Errorf("reading your account: %w", err)
	}
	ln, err := winio.ListenPipe(path, &winio.PipeConfig{SecurityDescriptor: pipeSDDL(sid)})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	if err := takeFirstInstance(path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	return peerChecked{ln}, nil
}

// takeFirstInstance connects to the pipe once and lets go at once, before
// anything is served on it. go-winio makes the pipe's first instance with
// no right to read or write it, so that Windows 10 and later hold it
// disconnected and clients wait for the instance each Accept makes. Wine
// (and Windows 7) let a client connect to that first instance, which no
// one serves: the first client after mcptray started waited forever for
// an answer, unless it let go at once, as DialAs's first look happens to
// (the tests' own clients, which do not look first, hung). Once a client
// has connected to it and gone, it takes no other. Where Windows
// holds it disconnected, the open finds the pipe busy, and nothing is to
// be done.
func takeFirstInstance(path string) error {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(name, 0, 0, nil, windows.OPEN_EXISTING, windows.SECURITY_SQOS_PRESENT|windows.SECURITY_ANONYMOUS, 0)
	if errors.Is(err, windows.ERROR_PIPE_BUSY) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("taking its first instance: %w", err)
	}
	return windows.CloseHandle(h)
}

// removeSocket has nothing to remove: a pipe goes with its last handle.
func removeSocket(string) {}

// dialSocket opens the pipe at path, and checks that the process serving
// it runs as this person: a pipe another account made first under
// mcptray's name would otherwise be told the control key.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	c, err := winio.DialPipeContext(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := checkServer(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// errOtherServer says that the pipe is served by a program of another
// account.
var errOtherServer = errors.New("the control pipe is served by a program of another account; mcptray does not talk to it")

// checkServer refuses a pipe whose server runs as another account, or
// whose server cannot be told.
func checkServer(c net.Conn) error {
	h, ok := pipeHandle(c)
	if !ok {
		return errors.New("mcptray cannot tell which program serves the control pipe")
	}
	var pid uint32
	if err := windows.GetNamedPipeServerProcessId(h, &pid); err != nil {
		return fmt.Errorf("asking which program serves the control pipe: %w", err)
	}
	theirs, err := processSID(pid)
	if err != nil {
		return fmt.Errorf("reading the account of the program that serves the control pipe: %w", err)
	}
	mine, err := tokenSID(windows.GetCurrentProcessToken())
	if err != nil {
		return fmt.Errorf("reading your account: %w", err)
	}
	if theirs != mine {
		return errOtherServer
	}
	return nil
}

// pipeHandle is the pipe's handle under c, as go-winio keeps it.
func pipeHandle(c net.Conn) (windows.Handle, bool) {
	f, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return 0, false
	}
	return windows.Handle(f.Fd()), true
}

// processSID is the account that process pid runs as.
func processSID(pid uint32) (string, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return "", err
	}
	defer tok.Close()
	return tokenSID(tok)
}

func tokenSID(tok windows.Token) (string, error) {
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}
