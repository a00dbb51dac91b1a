package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
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
	ctx           context.Context              // done when the session ends
	end           context.CancelFunc
	lastSeen      atomic.Int64 // unix nanoseconds of its last request
	listening     atomic.Int32 // its open listening streams
}

var (
	_ server.SessionWithClientInfo = (*httpSession)(nil)
	_ server.SessionWithLogging    = (*httpSession)(nil)
)

func newHTTPSession(id string) *httpSession {
	ctx, end := context.WithCancel(context.Background())
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

// postStream is one POST's answer: application/json when the answer is
// all there is, else an event stream of the messages that came before the
// answer, then the answer. It starts no goroutine until a notification
// comes.
type postStream struct {
	w http.ResponseWriter

	mu       sync.Mutex
	events   bool // the answer is an event stream: its header is written
	answered bool
	ch       chan mcp.JSONRPCNotification // made by the first notification
	stop     chan struct{}                // closed when the answer is ready
	stopped  chan struct{}                // closed when forward returns
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

// forward writes the request's notifications until the answer is ready.
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
	b, err := json.Marshal(n)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.event(b)
}

// send writes one message of the gateway's to the app on the POST, until
// it is answered.
func (p *postStream) send(msg []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.answered {
		return errAnswered
	}
	return p.event(msg)
}

// event writes msg as one event, turning the answer into an event stream
// first; p.mu is held.
func (p *postStream) event(msg []byte) error {
	if !p.events {
		h := p.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		p.w.WriteHeader(http.StatusOK)
		p.events = true
	}
	if err := writeEvent(p.w, msg); err != nil {
		return err
	}
	return http.NewResponseController(p.w).Flush()
}

// end marks the POST answered and writes the request's notifications that
// came before; it returns with p.mu held, for the answer.
func (p *postStream) end() {
	p.mu.Lock()
	p.answered = true
	ch := p.ch
	p.mu.Unlock()
	if ch != nil {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	for ch != nil {
		select {
		case n := <-ch:
			if b, err := json.Marshal(n); err == nil {
				_ = p.event(b)
			}
		default:
			ch = nil
		}
	}
}

// answer writes the request's answer after the messages that came before
// it. status applies to an answer that is not an event stream.
func (p *postStream) answer(msg []byte, status int) {
	p.end()
	defer p.mu.Unlock()
	if p.events {
		_ = writeEvent(p.w, msg)
		return
	}
	p.w.Header().Set("Content-Type", "application/json")
	p.w.WriteHeader(status)
	_, _ = p.w.Write(append(msg, '\n'))
}

// accepted answers a POST that needs no answer (a notification, or the
// app's answer to the gateway): 202, or the end of its event stream.
func (p *postStream) accepted() {
	p.end()
	defer p.mu.Unlock()
	if !p.events {
		p.w.WriteHeader(http.StatusAccepted)
	}
}

// writeEvent writes one server-sent event holding msg.
func writeEvent(w http.ResponseWriter, msg []byte) error {
	b := make([]byte, 0, len(msg)+len("event: message\ndata: \n\n"))
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	b = append(b, "\n\n"...)
	_, err := w.Write(b)
	return err
}
