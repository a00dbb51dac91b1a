package control

import (
	"fmt"
	"io/fs"
	"net"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/core/transport"
)

// checkOwner has nothing to check on Windows: the folder is under the
// person's own %LOCALAPPDATA%, which other users cannot open.
func checkOwner(fs.FileInfo) error { return nil }

// peerChecked serves every connection the pipe's access list let in: only
// the person's own account can open it (pipeSDDL).
type peerChecked struct{ net.Listener }

// peerOf is what Windows says of the process at the other end of the
// pipe: its process id and program, and whether it runs in the job object
// of a server mcptray started (the server, or anything it started). Such
// a program counts as sandboxed, as one in a sandbox's PID namespace does
// on Linux: it is refused every guarded route, whatever key it holds.
func peerOf(c net.Conn) peer {
	var p peer
	h, ok := pipeHandle(c)
	if !ok {
		p.sandboxed = "mcptray cannot tell which process it is"
		return p
	}
	var pid uint32
	if err := windows.GetNamedPipeClientProcessId(h, &pid); err != nil || pid == 0 {
		p.sandboxed = "mcptray cannot tell which process it is"
		return p
	}
	p.pid = int(pid)
	p.program = programOf(pid)
	in, err := transport.ServerProcess(p.pid)
	switch {
	case err != nil:
		p.sandboxed = fmt.Sprintf("mcptray cannot tell whether a server started it: %v", err)
	case in:
		p.sandboxed = "it runs in the job object of a server mcptray started"
	}
	return p
}

// programOf is the file name of process pid's program, "" where it
// cannot be read.
func programOf(pid uint32) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return ""
	}
	return filepath.Base(windows.UTF16ToString(buf[:n]))
}
