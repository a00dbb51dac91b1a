package control

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/hub"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// DefaultAskTimeout is how long Ask waits for the person to answer a
// server's question before it answers with the question's defaults.
const DefaultAskTimeout = 5 * time.Minute

// Question is a question for the person, as the window receives it over
// GET /v1/questions: a server's (an MCP elicitation), the gateway's
// about an app's call of a tool whose permission is Ask (Kind
// KindPermission), the flow guard's about a call it held (Kind KindGuard),
// or the network proxy's about a sandboxed server's connection to a host
// (Kind KindEgress).
type Question struct {
	// ID names the question in Answer.
	ID string `json:"id"`
	// Kind is "" for a server's question, KindPermission for the
	// gateway's and KindEgress for the network proxy's.
	Kind string `json:"kind,omitempty"`
	// Server is the name of the server that asks, or whose tool an app
	// wants to use.
	Server string `json:"server"`
	// Params are the question: its message (sanitised) and the JSON schema
	// of the answer.
	Params mcp.ElicitationParams `json:"params"`
	// Permission is the gateway's question, with Kind KindPermission.
	Permission *PermissionQuestion `json:"permission,omitempty"`
	// Egress is the network proxy's question, with Kind KindEgress.
	Egress *EgressQuestion `json:"egress,omitempty"`
	// Guard is the flow guard's question, with Kind KindGuard.
	Guard *GuardQuestion `json:"guard,omitempty"`
	// Gone says the question waits no longer (it was answered, it timed
	// out, or the server gave up): a form showing it should close.
	Gone bool `json:"gone,omitempty"`
}

type answerRequest struct {
	ID     string                `json:"id"`
	Result mcp.ElicitationResult `json:"result"`
}

type folderRequest struct {
	Folder string `json:"folder"`
}

// waitingQuestions holds the questions waiting for an answer and the windows
// that follow them.
type waitingQuestions struct {
	mu      sync.Mutex
	next    int
	timeout time.Duration
	pending map[string]*pendingQuestion
	order   []string // pending ids, oldest first
	// followers are the windows following the questions, each with room
	// for 64: a follower that far behind has stopped reading.
	followers hub.Hub[Question]
	// egressFollowers follow only the network proxy's questions, in this
	// process: the tray (FollowEgress).
	egressFollowers hub.Hub[Question]
}

type pendingQuestion struct {
	q      Question
	answer chan answered
}

// answered is the person's answer to a question, and which of their tools
// gave it, for the activity record: the window's words (guard), or "the
// tray" (AnswerQuestion).
type answered struct {
	res mcp.ElicitationResult
	by  string
}

// questions returns the Server's waiting questions, made on first use so
// that a Server needs no constructor.
func (s *Endpoint) questions() *waitingQuestions {
	s.asksOnce.Do(func() {
		s.asks = &waitingQuestions{
			timeout:         DefaultAskTimeout,
			pending:         map[string]*pendingQuestion{},
			followers:       hub.Hub[Question]{Buffer: 64},
			egressFollowers: hub.Hub[Question]{Buffer: 64},
		}
	})
	return s.asks
}

// SetAskTimeout changes how long Ask waits for an answer (tests).
func (s *Endpoint) SetAskTimeout(d time.Duration) {
	h := s.questions()
	h.mu.Lock()
	h.timeout = d
	h.mu.Unlock()
}

// Ask hands a server's question to the window and waits for the person's
// answer. It is a conn.ElicitFunc for the service's Options.Elicit. With
// no window following the questions it opens the window at that server;
// when nobody answers within the timeout (DefaultAskTimeout), or no
// window can be opened, it answers with the question's defaults, as the
// command line does when nobody is at the terminal. A URL-mode question
// is declined: the window does not open pages for servers.
func (s *Endpoint) Ask(ctx context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if req.Params.Mode == mcp.ElicitationModeURL {
		return conn.AcceptDefaults(req), nil
	}
	h := s.questions()
	p, followed, timeout := h.add(Question{Server: server, Params: req.Params})
	defer h.remove(p.q.ID)
	if !followed {
		if s.OpenWindow == nil {
			return conn.AcceptDefaults(req), nil
		}
		if err := s.OpenWindow(server); err != nil {
			s.logger().Warn("no window to ask a server's question in; answering with its defaults", "server", sanitize.Line(server), "err", err)
			return conn.AcceptDefaults(req), nil
		}
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case a := <-p.answer:
		return &a.res, nil
	case <-t.C:
		s.logger().Info("nobody answered a server's question; answering with its defaults", "server", sanitize.Line(server))
		return conn.AcceptDefaults(req), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *Endpoint) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// add makes a question pending and sends it to every follower. It reports
// whether any follows (a window, or for the proxy's questions the tray),
// and the timeout.
func (h *waitingQuestions) add(q Question) (*pendingQuestion, bool, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	q.ID = strconv.Itoa(h.next)
	p := &pendingQuestion{q: q, answer: make(chan answered, 1)}
	p.q.Params.Message = sanitize.String(p.q.Params.Message)
	h.pending[p.q.ID] = p
	h.order = append(h.order, p.q.ID)
	h.sendLocked(p.q)
	followed := h.followers.Len() > 0 || q.Kind == KindEgress && h.egressFollowers.Len() > 0
	return p, followed, h.timeout
}

// remove forgets a question and tells the followers it is gone.
func (h *waitingQuestions) remove(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.pending[id]
	if !ok {
		return
	}
	delete(h.pending, id)
	for i, x := range h.order {
		if x == id {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
	gone := p.q
	gone.Gone = true
	h.sendLocked(gone)
}

func (h *waitingQuestions) sendLocked(q Question) {
	h.followers.Publish(q)
	if q.Kind == KindEgress {
		h.egressFollowers.Publish(q)
	}
}

// answer delivers the person's answer to a pending question, given with
// by.
func (h *waitingQuestions) answer(id string, res mcp.ElicitationResult, by string) error {
	switch res.Action {
	case mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel:
	default:
		return &service.Error{Code: service.Invalid, Msg: "an answer must accept, decline or cancel"}
	}
	h.mu.Lock()
	p, ok := h.pending[id]
	h.mu.Unlock()
	if !ok {
		return &service.Error{Code: service.NotFound, Msg: "the question waits no longer: it was answered, or its server stopped asking"}
	}
	select {
	case p.answer <- answered{res: res, by: by}:
		return nil
	default:
		return &service.Error{Code: service.NotAllowed, Msg: "the question has been answered already"}
	}
}

// answerQuestion hands the person's answer to a waiting question, given
// by the window the request comes from.
func (s *Endpoint) answerQuestion(w http.ResponseWriter, r *http.Request) {
	var req answerRequest
	if !decode(w, r, &req) {
		return
	}
	reply(w, struct{}{}, s.questions().answer(req.ID, req.Result, deciderOf(r)))
}

// questionStream sends the pending questions, then each new one and each
// that goes, one JSON line each.
func (s *Endpoint) questionStream(ctx context.Context) (<-chan Question, []Question, error) {
	h := s.questions()
	// Under h.mu, so that no question comes or goes between the two.
	h.mu.Lock()
	defer h.mu.Unlock()
	pending := make([]Question, 0, len(h.order))
	for _, id := range h.order {
		pending = append(pending, h.pending[id].q)
	}
	return h.followers.Subscribe(ctx), pending, nil
}

// Questions follows the servers' questions for the person: those waiting
// now, then each new one, and each that goes (Gone). The channel closes
// when ctx ends or the running mcptray goes away.
func (c *Client) Questions(ctx context.Context) (<-chan Question, error) {
	return follow[Question](ctx, c, "questions", 8, false)
}

// Answer answers the question called id: accept (with its content),
// decline or cancel, as MCP defines them.
func (c *Client) Answer(ctx context.Context, id string, result mcp.ElicitationResult) error {
	return c.do(ctx, http.MethodPost, "answer", answerRequest{ID: id, Result: result}, nil)
}

// AddFolder adds a project folder (a full path) whose configs mcptray
// reads.
func (c *Client) AddFolder(ctx context.Context, dir string) (service.FolderResult, error) {
	var r service.FolderResult
	err := c.do(ctx, http.MethodPost, "folders/add", folderRequest{Folder: dir}, &r)
	return r, err
}

// AddDemo makes the demo project folder, whose server is mcptray's own
// demo server, and adds it to the project folders.
func (c *Client) AddDemo(ctx context.Context) (service.FolderResult, error) {
	var r service.FolderResult
	err := c.do(ctx, http.MethodPost, "folders/demo", struct{}{}, &r)
	return r, err
}

// RemoveFolder stops reading a project folder's configs.
func (c *Client) RemoveFolder(ctx context.Context, dir string) error {
	return c.do(ctx, http.MethodPost, "folders/remove", folderRequest{Folder: dir}, nil)
}
