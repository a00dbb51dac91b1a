package tray

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
)

// A sandboxed server's first connection to a host not on its list waits
// while the person is asked "Allow weather to reach api.weather.gov?"
// (core/egress). The tray asks too, beside the window: the menu has the
// question with Allow once, Always and Deny under it, the icon asks for
// attention, the summary counts the questions, and a notification says so
// when the window is closed. Because the tray follows the questions, the
// proxy waits its minute for an answer instead of opening the window.

// Questions is where the tray reads the network proxy's questions and
// answers them: the control endpoint of the mcptray it runs in
// (control.Endpoint).
type Questions interface {
	// FollowEgress returns the proxy's questions waiting now, then each
	// new one and each that goes (Gone), until ctx ends.
	FollowEgress(ctx context.Context) <-chan control.Question
	// AnswerQuestion answers the question called id
	// (control.PermissionAnswer). It must return at once.
	AnswerQuestion(id string, result mcp.ElicitationResult) error
}

// maxQuestionItems is how many questions the menu shows with their
// answers before it folds the rest into one line that opens the window.
const maxQuestionItems = 3

// questionLine is a question's line in the menu: "weather asks to reach
// api.weather.gov".
func questionLine(q control.Question) string {
	var dest string
	local := false
	if q.Egress != nil {
		dest, local = q.Egress.Dest, q.Egress.Local
	}
	if guarded(q) {
		return shorten(sanitize.Line(q.Server), maxNameLen) + " wants to send data to " + shorten(sanitize.Line(dest), maxReasonLen)
	}
	line := shorten(sanitize.Line(q.Server), maxNameLen) + " asks to reach " + shorten(sanitize.Line(dest), maxReasonLen)
	if local {
		line += " (this computer or your network)"
	}
	return line
}

// questionsWaiting is "1 question waiting" or "N questions waiting".
func questionsWaiting(n int) string {
	if n == 1 {
		return "1 question waiting"
	}
	return fmt.Sprintf("%d questions waiting", n)
}

// withQuestions is m with the proxy's questions waiting (asks, oldest
// first): counted in its summary and tooltip, the icon asking for
// attention (unless something failed, or everything is paused), and
// under the summary each question with its three answers.
func withQuestions(m Menu, asks []control.Question) Menu {
	if len(asks) == 0 {
		return m
	}
	if m.Icon == assets.StateOK {
		m.Icon = assets.StateAttention
	}
	count := questionsWaiting(len(asks))
	m.Tooltip += " · " + count
	items := make([]Item, 0, len(m.Items)+4*len(asks)+2)
	rest := m.Items
	if len(rest) > 0 { // the summary
		first := rest[0]
		first.Label += " · " + count
		items, rest = append(items, first), rest[1:]
	}
	items = append(items, Item{Separator: true})
	for i, q := range asks {
		if i == maxQuestionItems {
			items = append(items, Item{Label: fmt.Sprintf("%d more questions — Open mcptray…", len(asks)-i), Action: OpenAction, Server: q.Server})
			break
		}
		if guarded(q) {
			// The chain does not fit a menu, and the person must read
			// it before saying yes: the window shows it.
			items = append(items,
				Item{Label: questionLine(q), Action: OpenAction, Server: q.Server},
				Item{Label: "Read what it read, and answer…", Action: OpenAction, Server: q.Server},
				Item{Label: "Deny", Action: DenyAction, Server: q.Server, Question: q.ID},
			)
			continue
		}
		items = append(items,
			Item{Label: questionLine(q), Action: OpenAction, Server: q.Server},
			Item{Label: "Allow once", Action: AllowOnceAction, Server: q.Server, Question: q.ID},
			Item{Label: "Always", Action: AllowAlwaysAction, Server: q.Server, Question: q.ID},
			Item{Label: "Deny", Action: DenyAction, Server: q.Server, Question: q.ID},
		)
	}
	m.Items = append(items, rest...)
	return m
}

// guarded says whether mcptray's flow guard asks q: the server connects
// during a call for an app session that read private data and untrusted
// content.
func guarded(q control.Question) bool { return q.Egress != nil && q.Egress.Chain != "" }

// questionNotice is the notification for a new question.
func questionNotice(q control.Question) Notice {
	if guarded(q) {
		return Notice{
			Server: q.Server,
			Title:  questionLine(q),
			Body:   sanitize.Line(q.Egress.Chain) + " Click to read it and answer in mcptray's window; without an answer within a minute, mcptray says no.",
		}
	}
	return Notice{
		Server: q.Server,
		Title:  sanitize.Line(q.Params.Message),
		Body:   "It waits a minute for your answer, then mcptray says no. Answer from mcptray's menu in the tray, or click to answer in its window.",
	}
}

// asked keeps the questions waiting as the tray hears of them, oldest
// first. It reports whether q is new.
func (t *tray) asked(q control.Question) bool {
	i := slices.IndexFunc(t.asks, func(x control.Question) bool { return x.ID == q.ID })
	switch {
	case q.Gone && i >= 0:
		t.asks = slices.Delete(t.asks, i, i+1)
	case !q.Gone && i < 0 && q.Kind == control.KindEgress:
		t.asks = append(t.asks, q)
		return true
	}
	return false
}

// question hears of a question that came or went: the menu shows it, a
// new one is notified when the window is closed, and the notification of
// one that went is taken back.
func (t *tray) question(ctx context.Context, q control.Question) {
	if t.asked(q) && (t.opts.WindowOpen == nil || !t.opts.WindowOpen()) {
		n := questionNotice(q)
		t.askNotesMu.Lock()
		if t.askNotes == nil {
			t.askNotes = map[string]uint32{}
		}
		t.askNotes[q.ID] = 0
		t.askNotesMu.Unlock()
		t.goDo(func() {
			id := t.notify(ctx, n)
			t.askNotesMu.Lock()
			_, waiting := t.askNotes[q.ID]
			if waiting {
				t.askNotes[q.ID] = id
			}
			t.askNotesMu.Unlock()
			if !waiting { // it went while it was being shown
				t.withdraw(ctx, id)
			}
		})
	}
	if q.Gone {
		t.askNotesMu.Lock()
		id, ok := t.askNotes[q.ID]
		delete(t.askNotes, q.ID)
		t.askNotesMu.Unlock()
		if ok && id != 0 {
			t.goDo(func() { t.withdraw(ctx, id) })
		}
	}
	t.show(t.menu(ctx, t.prev))
}

// withdraw takes a notification back, giving up after a few seconds.
func (t *tray) withdraw(ctx context.Context, id uint32) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	t.notes.withdraw(ctx, id)
}

// answer answers a question as the person picked in the menu, off the
// loop. A question that waits no longer (answered in the window, or its
// minute passed) is said so in a notification.
func (t *tray) answer(ctx context.Context, it Item, allow, always bool) {
	if t.opts.Questions == nil {
		return
	}
	t.run(ctx, it.Server, "Couldn't answer "+sanitize.Line(it.Server)+"'s question", func(context.Context) error {
		return t.opts.Questions.AnswerQuestion(it.Question, control.PermissionAnswer(allow, always))
	})
}

// followQuestions follows the proxy's questions when Options.Questions
// is set; else it returns nil, a channel that never receives.
func (t *tray) followQuestions(ctx context.Context) <-chan control.Question {
	if t.opts.Questions == nil {
		return nil
	}
	return t.opts.Questions.FollowEgress(ctx)
}
