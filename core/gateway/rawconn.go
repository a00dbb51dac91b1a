package gateway

import (
	"io"
	"net"
	"syscall"

	"github.com/mcptray/mcptray/core/rawio"
)

// rawListener gives the HTTP face the apps' connections read and written
// with raw system calls (rawio), as the stdio face's pipes are: each of a
// call's reads and writes woke the runtime's monitor thread otherwise.
type rawListener struct{ net.Listener }

func (l rawListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	r, w := rawio.Reader(c), rawio.Writer(c)
	if r == io.Reader(c) || w == io.Writer(c) {
		return c, nil
	}
	return &rawConn{Conn: c, r: r, w: w}, nil
}

// rawConn is an app's connection read and written raw; the rest (its
// deadlines, its addresses, its end) is the connection's own.
type rawConn struct {
	net.Conn
	r io.Reader
	w io.Writer
}

func (c *rawConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *rawConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// SyscallConn is the connection's, for watchConn.
func (c *rawConn) SyscallConn() (syscall.RawConn, error) {
	return c.Conn.(syscall.Conn).SyscallConn()
}
