package control

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sanitize"
)

// KindEgress is the Kind of the network proxy's questions: may a server
// reach a host?
const KindEgress = "egress"

// EgressQuestion is the proxy's question about a sandboxed server's
// connection, every text in it sanitised. Question.Server names the
// server.
type EgressQuestion struct {
	// Host and Port are where the server connects; Dest is the two as
	// the question writes them: "api.weather.gov", "localhost:5432".
	Host string `json:"host"`
	Port int    `json:"port"`
	Dest string `json:"dest"`
	// Local says that Dest is this computer or its local network.
	Local bool `json:"local,omitempty"`
	// Chain, when set, says that the server connects during a call for
	// an app session that read the person's data and content someone
	// else wrote, and how, in words (egress.Question.Chain): the
	// person must read it before allowing.
	Chain string `json:"chain,omitempty"`
}

// AskEgress asks the person, in the window and the tray, whether a
// sandboxed server may reach a host. It is the egress proxy's AskFunc
// (egress.Options.Ask). The answer is given as to a permission question
// (PermissionAnswer): accept once, accept always, or decline. With
// neither a window nor the tray following the questions (FollowEgress) it
// opens the window; with none to open it returns egress.ErrNoWindow. It waits until the person answers or ctx ends (the
// proxy bounds it with its 60 s). Keeping "Always" is the proxy's
// business (egress.Options.Remember), not this one's.
func (s *Endpoint) AskEgress(ctx context.Context, q egress.Question) (egress.Reply, error) {
	eq := &EgressQuestion{Host: sanitize.Line(q.Host), Port: q.Port, Dest: sanitize.Line(q.Dest), Local: q.Local, Chain: sanitize.String(q.Chain)}
	h := s.questions()
	p, followed, _ := h.add(Question{
		Kind:   KindEgress,
		Server: q.Server,
		Params: mcp.ElicitationParams{Message: q.Message()},
		Egress: eq,
	})
	defer h.remove(p.q.ID)
	if !followed {
		if s.OpenWindow == nil {
			return egress.Reply{Answer: egress.Deny}, egress.ErrNoWindow
		}
		if err := s.OpenWindow(q.Server); err != nil {
			s.logger().Warn("no window to ask about a server's connection in", "server", sanitize.Line(q.Server), "host", eq.Dest, "err", err)
			return egress.Reply{Answer: egress.Deny}, fmt.Errorf("%w: %v", egress.ErrNoWindow, err)
		}
	}
	select {
	case a := <-p.answer:
		res := a.res
		if res.Action != mcp.ElicitationResponseActionAccept {
			return egress.Reply{Answer: egress.Deny, By: a.by}, nil
		}
		if c, ok := res.Content.(map[string]any); ok && c["always"] == true {
			return egress.Reply{Answer: egress.AllowAlways, By: a.by}, nil
		}
		return egress.Reply{Answer: egress.AllowOnce, By: a.by}, nil
	case <-ctx.Done():
		return egress.Reply{Answer: egress.Deny}, ctx.Err()
	}
}

// FollowEgress follows the network proxy's questions in this process, as
// the tray does: those waiting now, then each new one and each that goes
// (Gone). While anything follows them, a proxy's question waits for an
// answer (AnswerQuestion, or a window's) instead of opening the window.
// The channel closes when ctx ends; a follower that stops reading misses
// what comes after 64 waiting.
func (s *Endpoint) FollowEgress(ctx context.Context) <-chan Question {
	h := s.questions()
	// Under h.mu, so that no question comes or goes between the two.
	h.mu.Lock()
	var pending []Question
	for _, id := range h.order {
		if q := h.pending[id].q; q.Kind == KindEgress {
			pending = append(pending, q)
		}
	}
	sub := h.egressFollowers.Subscribe(ctx)
	h.mu.Unlock()
	out := make(chan Question, len(pending)+1)
	for _, q := range pending {
		out <- q
	}
	go func() {
		defer close(out)
		for q := range sub {
			select {
			case out <- q:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// AnswerQuestion answers the question called id in this process, as a
// window's POST /v1/answer does: for the proxy's, PermissionAnswer. It is
// the tray's, and the record says so.
func (s *Endpoint) AnswerQuestion(id string, result mcp.ElicitationResult) error {
	return s.questions().answer(id, result, "the tray")
}
