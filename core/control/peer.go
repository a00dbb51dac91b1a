package control

import (
	"context"
	"fmt"
	"net"

	"github.com/mcptray/mcptray/core/sanitize"
)

// peer is what the kernel says of the process at the other end of a
// control connection, read as the connection is accepted (the kernel
// keeps what it was when it connected) and carried in each of its
// requests' context.
type peer struct {
	// pid is its process id, 0 where the system does not tell.
	pid int
	// program is its program's file name, "" where not told.
	program string
	// sandboxed, when not "", says why it counts as a program that runs
	// in a sandbox of mcptray's (Linux: another PID namespace): such a
	// program is refused every guarded route, whatever key it holds.
	sandboxed string
}

type peerKey struct{}

// connContext is the endpoint's http.Server.ConnContext: it is called as
// each connection is accepted, before a byte of it is read.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, peerKey{}, peerOf(c))
}

// peerFrom is the peer connContext put in ctx. A request that came some
// other way has no peer, and so counts as sandboxed.
func peerFrom(ctx context.Context) peer {
	if p, ok := ctx.Value(peerKey{}).(peer); ok {
		return p
	}
	return peer{sandboxed: "mcptray cannot tell which process it is"}
}

// words is the peer for the activity record: " (mcptray, pid 4242)".
func (p peer) words() string {
	prog := sanitize.Line(p.program)
	switch {
	case p.pid > 0 && prog != "":
		return fmt.Sprintf(" (%s, pid %d)", prog, p.pid)
	case p.pid > 0:
		return fmt.Sprintf(" (pid %d)", p.pid)
	}
	return ""
}
