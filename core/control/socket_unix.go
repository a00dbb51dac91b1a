//go:build !windows

package control

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/core/config"
)

// SocketPath is where the running mcptray listens: a Unix socket in its
// private control folder.
func SocketPath(p config.Paths) string { return filepath.Join(p.ControlDir(), "control.sock") }

// listenSocket listens on the Unix socket at path, readable and writable
// by its owner only. The caller holds the instance lock, so a socket
// already there is a dead instance's, and is replaced.
func listenSocket(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing the socket a stopped mcptray left: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("making the socket private: %w", err)
	}
	keep(path)
	return peerChecked{ln}, nil
}

// removeSocket removes the socket file a closed listener leaves.
func removeSocket(path string) { _ = os.Remove(path) }

// dialSocket connects to the Unix socket at path.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}
