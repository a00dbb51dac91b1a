package control

import (
	"io/fs"
	"net"
)

// checkOwner has nothing to check on Windows: the folder is under the
// person's own %LOCALAPPDATA%, which other users cannot open.
func checkOwner(fs.FileInfo) error { return nil }

// peerChecked serves every connection: Windows has no peer credentials on
// AF_UNIX sockets, and the socket's folder admits only its owner.
type peerChecked struct{ net.Listener }

// peerOf knows nothing of the process at the other end of a connection on
// Windows, where servers run without a sandbox of mcptray's.
func peerOf(net.Conn) peer { return peer{} }
