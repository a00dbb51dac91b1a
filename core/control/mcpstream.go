package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/sets"
)

// An app's MCP session through mcptray stdio. The bridge asks for a
// stream (POST /v1/mcp-stream, answered 101), and then either
//
//   - hands its stdin and stdout over (Unix, when they are pipes or
//     sockets): the running mcptray reads the app's messages and writes
//     its answers on them itself, and the bridge only waits, so an app's
//     call crosses no process but mcptray's; or
//   - copies the app's messages to the connection and the answers back
//     (Windows, or a terminal).
//
// Either way the connection stays open for the session: when the bridge
// dies the session ends, and when the session ends mcptray closes the
// connection and the bridge exits. A handed-over session's connection
// carries one byte at its end, saying why.

// streamPath is the control endpoint's route for an app's session.
const streamPath = "/v1/mcp-stream"

// handoverHeader asks to hand the bridge's stdin and stdout over.
const handoverHeader = "Mcptray-Handover"

// appHeader names the app, as mcptray named it in the config it wrote
// for it (mcptray stdio --app NAME).
const appHeader = "Mcptray-App"

// Why a session's stream ended, the last byte mcptray sends the bridge.
const (
	endDone     = '0' // the app closed its end
	endStopping = '1' // mcptray is stopping
)

// StreamFunc serves one app's MCP session on r and w until r ends or ctx
// is done: the gateway's ServeStream.
type StreamFunc func(ctx context.Context, r io.Reader, w io.Writer) error

// mcpStream serves POST /v1/mcp-stream.
func (s *Endpoint) mcpStream(w http.ResponseWriter, r *http.Request) {
	if s.Stream == nil {
		reply(w, nil, &service.Error{Code: service.NotFound, Msg: "this mcptray runs no gateway"})
		return
	}
	ctx := r.Context()
	if app := r.Header.Get(appHeader); app != "" {
		if err := sets.CheckApp(app); err != nil {
			reply(w, nil, &service.Error{Code: service.Invalid, Msg: err.Error()})
			return
		}
		ctx = sets.WithApp(ctx, app)
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		reply(w, nil, errors.New("the control endpoint cannot hand over its connection"))
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: mcp-stream\r\n\r\n")
	if brw.Flush() != nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in, out := io.Reader(brw.Reader), io.Writer(conn)
	var files []*os.File
	if r.Header.Get(handoverHeader) != "" {
		files, err = receiveFiles(conn, 2)
		if err != nil {
			s.logger().Warn("control: taking over an app's stdin and stdout", "err", err)
			return
		}
		defer closeAll(files)
		in, out = files[0], files[1]
		// The connection now only says whether the bridge lives.
		go func() {
			_, _ = io.Copy(io.Discard, brw)
			cancel()
		}()
	}
	// Reads do not end with ctx: closing what they read from ends them.
	var once sync.Once
	stop := func() {
		once.Do(func() {
			if files != nil {
				closeAll(files)
			} else {
				conn.Close()
			}
		})
	}
	go func() { <-ctx.Done(); stop() }()
	err = s.Stream(ctx, in, out)
	if err != nil && ctx.Err() == nil {
		s.logger().Debug("control: an app's session ended", "err", err)
	}
	if files != nil {
		why := byte(endDone)
		if r.Context().Err() != nil {
			why = endStopping
		}
		_, _ = conn.Write([]byte{why})
	}
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// Stream is an app's session with the running mcptray's gateway, opened
// by OpenStream. Without a hand-over it is the session's connection:
// messages written to it reach the gateway, one a line, and its answers
// are read from it.
type Stream struct {
	conn net.Conn
	r    *bufio.Reader
}

// ErrStopping is what Stream.Wait and Stream.Copy return when the running
// mcptray stopped, and the session with it.
var ErrStopping = errors.New("the running mcptray stopped")

// OpenStream opens an app's MCP session with the gateway of the running
// mcptray for p. With in and out (the app's end of the session: pipes or
// sockets, on Unix; see CanHandOver), they are handed over to the running
// mcptray and the caller only waits (Stream.Wait); with nil, the caller
// reads and writes the Stream, or copies through it (Stream.Copy).
func OpenStream(ctx context.Context, p config.Paths, in, out *os.File) (*Stream, error) {
	return OpenStreamAs(ctx, p, "", in, out)
}

// OpenStreamAs is OpenStream for the app mcptray named app in the config
// it wrote for it ("" for none): the gateway gives the session that app's
// set (core/sets).
func OpenStreamAs(ctx context.Context, p config.Paths, app string, in, out *os.File) (*Stream, error) {
	conn, err := dial(ctx, p)
	if err != nil {
		return nil, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://mcptray"+streamPath, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "mcp-stream")
	if in != nil {
		req.Header.Set(handoverHeader, "stdio")
	}
	if app != "" {
		req.Header.Set(appHeader, app)
	}
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("asking the running mcptray for a session: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("asking the running mcptray for a session: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		return nil, answerError(resp)
	}
	if in != nil {
		if err := sendFiles(conn, in, out); err != nil {
			conn.Close()
			return nil, fmt.Errorf("handing the app's connection to the running mcptray: %w", err)
		}
	}
	return &Stream{conn: conn, r: br}, nil
}

// Read reads the gateway's messages.
func (s *Stream) Read(p []byte) (int, error) { return s.r.Read(p) }

// Write sends the gateway messages, one a line.
func (s *Stream) Write(p []byte) (int, error) { return s.conn.Write(p) }

// CloseWrite tells the gateway the app is done; the session ends.
func (s *Stream) CloseWrite() error {
	if cw, ok := s.conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return s.conn.Close()
}

// Close drops the session at once, as a killed app would.
func (s *Stream) Close() error { return s.conn.Close() }

// Wait waits until the session ends: nil when the app ended it,
// ErrStopping when the running mcptray stopped.
func (s *Stream) Wait() error {
	defer s.conn.Close()
	b, err := io.ReadAll(s.r)
	if err == nil && len(b) > 0 && b[len(b)-1] == endDone {
		return nil
	}
	return ErrStopping
}

// Copy passes the app's messages from in to the session and the session's
// messages to out, until the session ends: nil when in ended (the app is
// done), ErrStopping when the running mcptray stopped first.
func (s *Stream) Copy(in io.Reader, out io.Writer) error {
	defer s.conn.Close()
	var appDone atomic.Bool
	go func() {
		_, _ = io.Copy(s.conn, in)
		appDone.Store(true)
		_ = s.CloseWrite() // the session ends, and the connection with it
	}()
	_, _ = io.Copy(out, s.r)
	if appDone.Load() {
		return nil
	}
	return ErrStopping
}
