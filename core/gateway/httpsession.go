package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// An app's session on the HTTP face, as the gateway serves it itself
// (httpface.go): the session lives between the requests, and each POST
// gets a view of it (postSession) whose messages go on that POST's own
// answer. What the gateway sends in the course of a request (the progress
// of that call, the servers' questions to the app, roots/list and
// sampling/createMessage) goes on its POST, which turns from an
// application/json answer into an event stream when the first such message
// comes; everything else (tools/list_changed and the like) waits on the
// session for its listening stream (GET).

// httpSession is one app's session on the HTTP face. It is the session
// mcp-go's server knows (RegisterSession): broadcasts reach its
// notifications, which the listening streams pass on.
type httpSession struct {
	clientState
	notifications chan mcp.JSONRPCNotification // for the listening stream
	ctx           context.Context              // the face's; done when the session ends
	end           context.CancelFunc
	lastSeen      atomic.Int64 // unix nanoseconds of its last request
	listening     atomic.Int32 // its open listening streams
}

var (
	_ server.SessionWithClientInfo = (*httpSession)(nil)
	_ server.SessionWithLogging    = (*httpSession)(nil)
)

func newHTTPSession(id string) *httpSession {
	ctx, end := context.WithCancel(context.WithValue(context.Background(), faceKey{}, FaceHTTP))
	s := &httpSession{
		clientState:   newClientState(id),
		notifications: make(chan mcp.JSONRPCNotification, 100),
		ctx:           ctx,
		end:           end,
	}
	s.touch()
	return s
}

func (s *httpSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

// touch records that the app used the session now.
func (s *httpSession) touch() { s.lastSeen.Store(time.Now().UnixNano()) }

// idle says whether the session went unused, with no listening stream
// open, since before.
func (s *httpSession) idle(before time.Time) bool {
	return s.listening.Load() == 0 && s.lastSeen.Load() < before.UnixNano()
}

// postSession is the session as one POST's request sees it: its messages
// go on the POST's answer while the request runs.
type postSession struct {
	*httpSession
	p *postStream
}

var (
	_ server.SessionWithClientInfo  = postSession{}
	_ server.SessionWithLogging     = postSession{}
	_ server.SessionWithElicitation = postSession{}
	_ server.SessionWithRoots       = postSession{}
	_ server.SessionWithSampling    = postSession{}
)

// NotificationChannel is the POST's while its request runs, then the
// session's.
func (ps postSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	if ch := ps.p.channel(); ch != nil {
		return ch
	}
	return ps.notifications
}

func (ps postSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return ps.elicit(ctx, ps.p.send, req)
}

func (ps postSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return ps.listRoots(ctx, ps.p.send)
}

func (ps postSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return ps.sample(ctx, ps.p.send, req)
}

// errAnswered says that a request's POST was answered: nothing more goes
// on it.
var errAnswered = errors.New("the request was already answered")

// errAppGone says that the app went away from its request's POST.
var errAppGone = errors.New("the app went away")

// postStream is one POST's answer: application/json when the answer is
// all there is, else an event stream of the messages that came before the
// answer, then the answer. The POST's handler waits for the first of
// them (ready); when it is the answer, it answers and returns. Otherwise
// it starts the event stream, which the HTTP server writes on a goroutine
// of its own (stream), and returns. It starts no goroutine of its own
// until a notification comes.
type postStream struct {
	ready  wakeup        // something to answer with: a message or the answer
	done   chan struct{} // closed once the POST is answered
	cancel func()        // ends the request: the app went away

	mu       sync.Mutex
	queued   [][]byte      // messages before the answer, until the stream is written
	w        *bufio.Writer // the event stream, once it is written
	failed   bool          // a write to the stream failed
	answered bool
	answer   []byte                       // nil: a notification's, or an answer's
	ch       chan mcp.JSONRPCNotification // made by the first notification
	stop     chan struct{}                // closed when the answer is ready
	stopped  chan struct{}                // closed when forward returns
}

func newPostStream(cancel func()) *postStream {
	p := &postStream{done: make(chan struct{}), cancel: cancel}
	p.ready.init()
	return p
}

// channel is where the request's notifications go, passed on by a
// goroutine of the POST's own; nil once the POST is answered.
func (p *postStream) channel() chan mcp.JSONRPCNotification {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.answered {
		return nil
	}
	if p.ch == nil {
		p.ch = make(chan mcp.JSONRPCNotification, 16)
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.forward()
	}
	return p.ch
}

// forward passes the request's notifications on until the answer is
// ready.
func (p *postStream) forward() {
	defer close(p.stopped)
	for {
		select {
		case n := <-p.ch:
			p.notify(n)
		case <-p.stop:
			return
		}
	}
}

func (p *postStream) notify(n mcp.JSONRPCNotification) {
	if b, err := json.Marshal(n); err == nil {
		_ = p.send(b)
	}
}

// send puts one message of the gateway's to the app on the POST, until
// it is answered.
func (p *postStream) send(msg []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.answered:
		return errAnswered
	case p.failed:
		return errAppGone
	case p.w == nil:
		p.queued = append(p.queued, msg)
		p.wake()
		return nil
	}
	return p.write(msg)
}

// write writes msg as one event of the stream; p.mu is held. A write that
// fails ends the request: the app went away.
func (p *postStream) write(msg []byte) error {
	err := writeEvent(p.w, msg)
	if err == nil {
		err = p.w.Flush()
	}
	if err != nil {
		p.failed = true
		p.cancel()
		return errAppGone
	}
	return nil
}

// wake tells the POST's handler that there is something to answer with.
func (p *postStream) wake() { p.ready.wake() }

// finish takes the request's answer (nil: none). It is called once,
// perhaps on the goroutine that reads a stdio server (Gateway.forward),
// so it waits on nothing: when notifications or a stream are under way,
// a goroutine of its own writes the answer after them.
func (p *postStream) finish(out []byte, _ bool) {
	p.mu.Lock()
	if p.ch == nil && p.w == nil {
		p.answered, p.answer = true, out
		p.mu.Unlock()
		close(p.done)
		p.wake()
		return
	}
	p.mu.Unlock()
	go p.end(out)
}

// end passes on the notifications that came before the answer, then
// the answer.
func (p *postStream) end(out []byte) {
	p.mu.Lock()
	ch := p.ch
	p.mu.Unlock()
	if ch != nil {
		close(p.stop)
		<-p.stopped
		for drained := false; !drained; {
			select {
			case n := <-ch:
				p.notify(n)
			default:
				drained = true
			}
		}
	}
	p.mu.Lock()
	p.answered, p.answer = true, out
	if p.w != nil && !p.failed && out != nil {
		_ = p.write(out)
	}
	p.mu.Unlock()
	close(p.done)
	p.wake()
}

// plain reports whether the POST is answered with nothing before the
// answer, and then the answer (nil: none).
func (p *postStream) plain() (answer []byte, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answer, p.answered && len(p.queued) == 0
}

// stream writes the event stream to w: the messages that came before it
// started, the ones that come while the request runs, then the answer. The
// HTTP server calls it on a goroutine of its own once the POST's handler
// returned.
func (p *postStream) stream(w *bufio.Writer) {
	p.mu.Lock()
	p.w = w
	for _, m := range p.queued {
		if p.write(m) != nil {
			break
		}
	}
	p.queued = nil
	if p.answered && !p.failed && p.answer != nil {
		_ = p.write(p.answer)
	}
	p.mu.Unlock()
	<-p.done
}

// writeEvent writes one server-sent event holding msg.
func writeEvent(w io.Writer, msg []byte) error {
	b := make([]byte, 0, len(msg)+len("event: message\ndata: \n\n"))
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	b = append(b, "\n\n"...)
	_, err := w.Write(b)
	return err
}
