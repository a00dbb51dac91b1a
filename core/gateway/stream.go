package gateway

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/rawio"
)

// The stdio face serves each app's session on a stream of its own: one
// JSON-RPC message a line, the app's stdin and stdout (handed over by
// mcptray stdio) or the control socket's connection. Every message goes
// straight to the gateway's MCP server with the session in its context;
// there is no HTTP, and no per-request machinery, between the app and the
// gateway. mcp-go's own StdioServer cannot do this: it has one session per
// process.

// maxMessage bounds one message from an app, as on the HTTP face.
const maxMessage = 32 << 20

// ServeStream serves one app's MCP session: messages from the app are read
// from r, one a line, and the answers, notifications and the gateway's own
// requests to the app are written to w. It returns when r ends (the app is
// gone) or ctx is done; the session ends with it, and the calls it had in
// flight are cancelled.
func (g *Gateway) ServeStream(ctx context.Context, r io.Reader, w io.Writer) error {
	s := newStreamSession(w)
	if err := g.mcp.RegisterSession(ctx, s); err != nil {
		return fmt.Errorf("starting the app's session: %w", err)
	}
	ctx, cancel := context.WithCancel(g.mcp.WithContext(ctx, s))
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		g.mcp.UnregisterSession(context.WithoutCancel(ctx), s.id)
	}()
	wg.Go(func() { s.passNotifications(ctx) })
	work := newWorkers(ctx, &wg)

	// The app's pipes are read and written with raw system calls
	// (rawio), as a call's are on its way to the server and back.
	in := bufio.NewReaderSize(rawio.Reader(r), 64<<10)
	for {
		line, err := readLine(in)
		if len(line) > 0 {
			g.streamMessage(ctx, s, work, line)
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil // the app closed its end: it is done with us
		case err != nil:
			return err
		case ctx.Err() != nil:
			return nil
		}
	}
}

// readLine reads one message, without its newline; a line longer than
// maxMessage is an error.
func readLine(in *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := in.ReadSlice('\n')
		if len(line)+len(part) > maxMessage {
			return nil, fmt.Errorf("a message from the app is larger than %d MiB", maxMessage>>20)
		}
		if err == nil && line == nil {
			return bytes.TrimSpace(part), nil // the usual case: no copy
		}
		line = append(line, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSpace(line), err
		}
	}
}

// envelope is what tells one message from another.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// streamMessage handles one message from the app. Requests run side by
// side, so a slow tool holds up neither the next call nor its own
// cancellation; notifications and answers are handled in order. A plain
// tools/call is sent on from here, and the goroutine that reads its
// server's answer writes it to the app (directCall): handing each call to
// a worker and each answer back to it woke a goroutine twice a call, and
// without it the face adds a fifth to a third less to a call (bench/).
func (g *Gateway) streamMessage(ctx context.Context, s *streamSession, work *workers, line []byte) {
	// A plain call, the message apps send all day, is tried first: the
	// direct call reads it once, where routing it first would read it
	// twice.
	if g.streamCall(ctx, s, work.wg, line) {
		s.open()
		return // on its way: the answer is written when it comes
	}
	var m envelope
	if err := json.Unmarshal(line, &m); err != nil {
		s.writeRaw([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON-RPC message"}}` + "\n"))
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	if m.Method == string(mcp.MethodInitialize) {
		msg := bytes.Clone(line)
		work.run(func() {
			g.handleStream(ctx, s, msg)
			s.open()
		})
		return
	}
	s.open()
	switch {
	case m.Method == "" && hasID:
		s.answered(m.ID, line)
		return
	case !hasID:
		g.handleStream(ctx, s, line)
		return
	case isList(m.Method) && !s.first.done.Load():
		// One of its first lists: it waits for servers still starting,
		// on a worker, while the app's other messages go on.
		msg := bytes.Clone(line)
		work.run(func() {
			g.waitFirstList(ctx, &s.first)
			if !g.streamList(s, m.Method, msg) {
				g.handleStream(ctx, s, msg)
			}
		})
		return
	case g.streamList(s, m.Method, line):
		return
	}
	msg := bytes.Clone(line) // line is the reader's buffer
	work.run(func() { g.handleStream(ctx, s, msg) })
}

// streamList answers line, a request whose method is method, when it is
// a plain tools/list that the encoded list answers, and reports whether
// it did.
func (g *Gateway) streamList(s *streamSession, method string, line []byte) bool {
	if method != string(mcp.MethodToolsList) || !s.answersDirect() {
		return false
	}
	out, ok := g.listAnswer(s.id, line, g.listJSON.Load())
	if ok {
		s.writeRaw(out)
	}
	return ok
}

// streamCall makes a direct call of line, if it is one, whose answer is
// written to the app when it comes; ServeStream waits for it with wg.
func (g *Gateway) streamCall(ctx context.Context, s *streamSession, wg *sync.WaitGroup, line []byte) (ok bool) {
	wg.Add(1)
	ok = g.directCall(ctx, line, func(out []byte, isResult bool) {
		defer wg.Done()
		s.answerSoon(out, isResult)
	})
	if !ok {
		wg.Done()
	}
	return ok
}

// handleStream passes one message to the gateway's MCP server and its
// answer, if any, to the app.
func (g *Gateway) handleStream(ctx context.Context, s *streamSession, msg []byte) {
	if res, _ := g.handle(ctx, msg); res != nil {
		s.writeRaw(append(res, '\n'))
	}
}

// streamSession is one app's session on a stream. It implements mcp-go's
// session interfaces, so that the gateway's requests to the app
// (elicitation, roots, sampling) and its notifications reach it.
type streamSession struct {
	clientState
	notifications chan mcp.JSONRPCNotification
	// opened is closed once the app may be told things: its initialize
	// is answered (mcp-go counts a session in before it answers, and a
	// change told meanwhile would come first), or it began with anything
	// else (a 2026-07-28 app needs no initialize).
	opened   chan struct{}
	openOnce sync.Once

	outMu sync.Mutex
	out   io.Writer
	now   nowWriter // out without waiting, when it can (answerSoon)
}

var (
	_ server.SessionWithClientInfo  = (*streamSession)(nil)
	_ server.SessionWithLogging     = (*streamSession)(nil)
	_ server.SessionWithElicitation = (*streamSession)(nil)
	_ server.SessionWithRoots       = (*streamSession)(nil)
	_ server.SessionWithSampling    = (*streamSession)(nil)
)

func newStreamSession(w io.Writer) *streamSession {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return &streamSession{
		clientState:   newClientState("stdio-" + hex.EncodeToString(b)),
		notifications: make(chan mcp.JSONRPCNotification, 100),
		opened:        make(chan struct{}),
		out:           rawio.Writer(w),
		now:           newNowWriter(w),
	}
}

func (s *streamSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

// open lets the session's notifications go to the app.
func (s *streamSession) open() { s.openOnce.Do(func() { close(s.opened) }) }

// passNotifications writes the session's notifications, once it is open,
// until ctx ends.
func (s *streamSession) passNotifications(ctx context.Context) {
	select {
	case <-s.opened:
	case <-ctx.Done():
		return
	}
	for {
		select {
		case n := <-s.notifications:
			s.write(n)
		case <-ctx.Done():
			return
		}
	}
}

// write sends one message to the app.
func (s *streamSession) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	s.writeRaw(append(b, '\n'))
}

// answerSoon writes a direct call's answer for a goroutine that must not
// wait on this app (the one that reads a server's answers for every app):
// when the app does not take it at once (it does not read, and its pipe is
// full), or another message is being written, the rest is written by a
// goroutine of its own.
func (s *streamSession) answerSoon(out []byte, _ bool) {
	if out == nil {
		return // a call the app cancelled: it gets no answer
	}
	out = append(out, '\n')
	if s.now == nil || !s.outMu.TryLock() {
		go s.writeRaw(out)
		return
	}
	n, err := s.now.TryWrite(out)
	if n == len(out) || err != nil {
		s.outMu.Unlock() // written, or the app is gone
		return
	}
	go func() {
		defer s.outMu.Unlock()
		_, _ = s.out.Write(out[n:])
	}()
}

// writeRaw sends one encoded message, newline included, to the app.
func (s *streamSession) writeRaw(b []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	_, _ = s.out.Write(b)
}

// send writes one encoded message, without its newline, for the gateway's
// requests to the app.
func (s *streamSession) send(msg []byte) error {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	_, err := s.out.Write(append(msg, '\n'))
	return err
}

func (s *streamSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return s.elicit(ctx, s.send, req)
}

func (s *streamSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return s.listRoots(ctx, s.send)
}

func (s *streamSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return s.sample(ctx, s.send, req)
}
