package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// A trial start of an update: an update's code is reviewed (npmpin), but
// what its tools tell the AI is only known once it runs. When a check
// finds an update, mcptray starts the new tree once, in the server's
// sandbox as the server runs (its grants, its environment and secrets,
// the hosts it may reach and no other), lists its tools and prompts,
// stops it, and compares them with the server's pinned ones: the tools
// added, removed and changed, in words. Nothing of it is offered to an
// app, and nothing of it is accepted: the pins are only read. It runs in a
// fresh data folder, removed after, for the server's own keeps running
// beside it. A trial that fails says why, and the update is then held.

// Trial is what an update showed of itself when mcptray started it once
// in its server's sandbox.
type Trial struct {
	// Tree is the lockfile hash of the tree tried (PackageReview.ToHash).
	Tree string    `json:"tree"`
	At   time.Time `json:"at"`
	// Problem says in words why it did not start and list its tools; ""
	// when it did.
	Problem string `json:"problem,omitempty"`
	// Untried says why it was not started: its server does not run now
	// (turned off, or waiting for approval), or runs without a sandbox
	// (its sandbox is off, or this computer has none), and mcptray runs
	// no code the person has not accepted outside one. Its tools are then
	// held as any server's changes are, once it runs.
	Untried string `json:"untried,omitempty"`
	// Tools and Prompts are how its tools and prompts differ from those
	// pinned for the server, in words, sorted by name: added, removed,
	// changed (old and new words) and renamed; the flags are what reads
	// as orders to the AI in the new definition.
	Tools   []ToolChange `json:"tools,omitempty"`
	Prompts []ToolChange `json:"prompts,omitempty"`
	// Listed are the definitions it listed: its real start must list the
	// same, or the update is undone.
	Listed        []pins.Def `json:"listed,omitempty"`
	ListedPrompts []pins.Def `json:"listedPrompts,omitempty"`
	PromptsListed bool       `json:"promptsListed,omitempty"`
	// Network are the connections it tried that were refused.
	Network []egress.Refusal `json:"network,omitempty"`
}

// Started reports whether the trial started and listed its tools.
func (t *Trial) Started() bool { return t != nil && t.Problem == "" && t.Untried == "" }

// Words says the trial in words, one line for each change: what the
// update would show the AI.
func (t *Trial) Words() string {
	if t == nil {
		return "Not tried yet: mcptray starts an update once in its sandbox, when a check finds it, to show its tools."
	}
	if t.Untried != "" {
		return "Not tried: " + sanitize.Line(t.Untried) + ". Its tools are compared with those you accepted when it runs, and what changed is held until you accept it."
	}
	var b strings.Builder
	switch {
	case t.Problem != "":
		b.WriteString("It did not start in its sandbox: " + sanitize.Line(t.Problem) + "\nHeld: an update that does not start is not run.")
	case len(t.Tools)+len(t.Prompts) == 0:
		b.WriteString("Started once in its sandbox: its tools and prompts say what they said.")
	default:
		b.WriteString("Started once in its sandbox; its tools and prompts change:")
		changeWords(&b, "tool", t.Tools)
		changeWords(&b, "prompt", t.Prompts)
	}
	for _, r := range t.Network {
		fmt.Fprintf(&b, "\nIt tried to reach %s: refused.", sanitize.Line(r.Dest))
	}
	return b.String()
}

// ChangesWords says a look's Changes in words, as a trial's: "" when
// there are none.
func (l *Look) ChangesWords() string {
	if l == nil || len(l.Changes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Since you last accepted its tools, they change:")
	changeWords(&b, "tool", l.Changes)
	return b.String()
}

// changeWords writes one line for each change of a list of a kind ("tool",
// "prompt"), and the old and new words under it.
func changeWords(b *strings.Builder, kind string, list []ToolChange) {
	for _, c := range list {
		fmt.Fprintf(b, "\n  The %s %s %s.", kind, sanitize.Line(c.Name), sanitize.Line(c.Words.Summary))
		if c.Old != nil && c.New != nil && c.Old.Description != c.New.Description {
			fmt.Fprintf(b, "\n    Old words: %s\n    New words: %s", oneLine(c.Old.Description), oneLine(c.New.Description))
		} else if c.Old == nil && c.New != nil && c.New.Description != "" {
			fmt.Fprintf(b, "\n    Words: %s", oneLine(c.New.Description))
		}
		for _, l := range c.Words.Lines {
			if l != "its description changed" {
				fmt.Fprintf(b, "\n    %s", sanitize.Line(l))
			}
		}
		for _, f := range c.Flags {
			fmt.Fprintf(b, "\n    It %s (%s): %q", sanitize.Line(f.What), sanitize.Line(f.Where), sanitize.Line(f.Quote))
		}
	}
}

// oneLine is a description on one line, quoted.
func oneLine(s string) string {
	return fmt.Sprintf("%q", strings.ReplaceAll(sanitize.String(s), "\n", " "))
}

// Holds reports whether the trial holds the update: it did not start.
func (t *Trial) Holds() bool { return t != nil && t.Problem != "" }

// Changed reports whether the update changes any tool's or prompt's
// words: accepting the update then accepts them.
func (t *Trial) Changed() bool { return t != nil && len(t.Tools)+len(t.Prompts) > 0 }

// tryUpdate starts cand, the tree of an update found for the server
// called name, once in the server's sandbox, and says what its tools and
// prompts change. It always returns a Trial; one that failed says why.
func (s *Service) tryUpdate(ctx context.Context, name string, cand npmpin.Pin) Trial {
	t := Trial{Tree: cand.Lock.Hash, At: s.opts.Now().UTC()}
	listed, prompts, promptsListed, refused, err := s.trialStart(ctx, name, cand)
	t.Network = refused
	var untried errUntried
	if errors.As(err, &untried) {
		t.Untried = untried.why
		return t
	}
	if err != nil {
		t.Problem = err.Error()
		s.log.Info("an update did not start in its trial", "server", name, "err", err)
		return t
	}
	for _, d := range listed {
		t.Listed = append(t.Listed, pins.FromTool(d))
	}
	for _, p := range prompts {
		t.ListedPrompts = append(t.ListedPrompts, pins.FromPrompt(p))
	}
	t.PromptsListed = promptsListed
	others := s.otherToolNames(name)
	policy := s.trust.Policy()
	pinned, _, err := policy.Pinned(name, pins.Tools)
	if err != nil {
		t.Problem = "its tools cannot be compared: " + err.Error()
		return t
	}
	t.Tools = trialChanges(pins.Compare(pinned, t.Listed), others)
	if promptsListed {
		pinnedPrompts, _, _ := policy.Pinned(name, pins.Prompts)
		t.Prompts = trialChanges(pins.Compare(pinnedPrompts, t.ListedPrompts), nil)
	}
	s.log.Info("tried an update in its sandbox", "server", name, "tools", len(listed), "changed", len(t.Tools)+len(t.Prompts))
	return t
}

// trialChanges says each change in words, with what reads as orders to
// the AI in its new definition.
func trialChanges(changes []pins.Change, others func(string) bool) []ToolChange {
	var out []ToolChange
	for _, c := range changes {
		tc := ToolChange{Change: c, Words: pins.Describe(c)}
		if c.New != nil {
			if c.Old == nil {
				tc.Words.Lines = append(tc.Words.Lines, newHints(c.New.Annotations)...)
			}
			tc.Flags = pins.Scan(*c.New, others)
			if c.New.HiddenText && (c.Old == nil || !c.Old.HiddenText) {
				tc.Words.Lines = append(tc.Words.Lines, "its words now hold hidden characters (invisible or direction-changing), removed before you or the AI saw them")
			}
		}
		out = append(out, tc)
	}
	return out
}

// lookChanges are how a look's tools differ from those pinned for the
// server, when it ran before; nil when it never did (or the pins cannot
// be read: the look's flags still say what reads as orders).
func (s *Service) lookChanges(name string, list []tools.Tool, others func(string) bool) []ToolChange {
	pinned, ok, err := s.trust.Policy().Pinned(name, pins.Tools)
	if err != nil || !ok {
		return nil
	}
	defs := make([]pins.Def, 0, len(list))
	for _, t := range list {
		defs = append(defs, pins.FromTool(t))
	}
	return trialChanges(pins.Compare(pinned, defs), others)
}

// newHints says what a new tool's annotations claim: what it may do.
func newHints(h tools.Hints) []string {
	var out []string
	if h.ReadOnly == tools.HintTrue {
		out = append(out, "it says it only reads")
	}
	if h.Destructive == tools.HintTrue {
		out = append(out, "it says it may delete or overwrite")
	}
	if h.OpenWorld == tools.HintTrue {
		out = append(out, "it says it may reach outside (the internet, other services)")
	}
	return out
}

// otherToolNames says whether a server other than name has a tool of a
// given name, as the pins read them for shadowing.
func (s *Service) otherToolNames(name string) func(string) bool {
	owners := map[string]bool{}
	for _, i := range s.conns.Report().Servers {
		if i.Name != name {
			for _, t := range i.Tools {
				owners[t.Name] = true
			}
		}
	}
	return func(t string) bool { return owners[t] }
}

// trialStart runs the server called name from the tree cand in its
// sandbox, as its config runs it, until it has listed its tools and
// prompts, then stops it and waits until its processes are gone.
func (s *Service) trialStart(ctx context.Context, name string, cand npmpin.Pin) ([]tools.Tool, []mcp.Prompt, bool, []egress.Refusal, error) {
	if err := s.checkOpen(); err != nil {
		return nil, nil, false, nil, err
	}
	set := s.current()
	if set == nil {
		set = s.inUse()
	}
	e, ok := set.Find(name)
	if !ok {
		return nil, nil, false, nil, errors.New("it is not configured")
	}
	switch {
	case e.Transport != config.Stdio:
		return nil, nil, false, nil, errors.New("it does not run on this computer")
	case e.Disabled:
		return nil, nil, false, nil, errUntried{"it is turned off"}
	case e.Approval == config.Undecided || e.Approval == config.Denied:
		return nil, nil, false, nil, errUntried{"it waits for your approval"}
	case e.Sandbox.Off:
		return nil, nil, false, nil, errUntried{"its sandbox is off"}
	}
	entry := *e
	if err := s.runPinned(&entry, cand); err != nil {
		return nil, nil, false, nil, err
	}
	o := s.sandboxOpts()
	env := s.opts.Conn.BaseEnv
	if env == nil {
		env = os.Environ()
	}
	desc := o
	if desc.Egress != nil {
		desc.Egress = s.egressPort // no credential minted for a description
	}
	p, _ := sandbox.Default(desc.SandboxInput(&entry.Server, entry.Command, env))
	if !desc.Protection(&entry.Server, p).Files {
		return nil, nil, false, nil, errUntried{"it runs without a sandbox on this computer"}
	}
	key, endTrial, ok := s.net.StartTrial(name)
	if !ok {
		return nil, nil, false, nil, errors.New("a trial of its update runs already")
	}
	defer endTrial()
	if err := os.MkdirAll(o.ServersDir, 0o700); err != nil {
		return nil, nil, false, nil, fmt.Errorf("making the servers' folder: %w", err)
	}
	dir, err := os.MkdirTemp(o.ServersDir, ".trial-")
	if err != nil {
		return nil, nil, false, nil, fmt.Errorf("making a folder for the trial: %w", err)
	}
	defer os.RemoveAll(dir)

	timeout := s.lookTimeout()
	m := s.newConns(s.log.With("trial", sanitize.Line(name)), func(co *conn.Options) {
		co.ServersDir, co.HistoryFile = dir, ""
		co.ConnectTimeout = timeout + 5*time.Second
		co.MinBackoff, co.MaxBackoff = time.Hour, time.Hour
		if s.egress != nil {
			co.Egress = func(string) (int, map[string]string) { return s.egress.Port(), s.egress.Env(key) }
		}
	})
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		m.Close()
		return nil, nil, false, nil, conn.ErrClosed
	}
	s.adhoc[m] = struct{}{}
	s.mu.Unlock()
	var refused []egress.Refusal
	defer func() {
		s.closeAdhoc(m) // waits until its processes are gone
		if s.egress != nil {
			s.egress.Forget(key)
		}
	}()

	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := m.Apply(&config.Set{Servers: []config.Entry{entry}}); err != nil {
		return nil, nil, false, nil, err
	}
	err = s.waitConnected(tctx, m, name)
	var list []tools.Tool
	if err == nil {
		list, err = m.Tools(name)
	}
	if s.egress != nil {
		refused = s.egress.Refusals(key)
	}
	if err != nil {
		if ctx.Err() == nil && tctx.Err() != nil {
			return nil, nil, false, refused, fmt.Errorf("it did not start and list its tools within %s", timeout)
		}
		if ctx.Err() != nil {
			return nil, nil, false, refused, ctx.Err()
		}
		var se *Error
		if errors.As(err, &se) {
			return nil, nil, false, refused, errors.New(se.Msg)
		}
		return nil, nil, false, refused, errors.New(sanitize.Line(err.Error()))
	}
	prompts, perr := m.Prompts(tctx, name) // a server may have none
	if s.egress != nil {
		refused = s.egress.Refusals(key)
	}
	return list, prompts, perr == nil, refused, nil
}

// errUntried says why an update is not tried: its server runs without a
// sandbox, and an update is started before the person accepts it only in
// one.
type errUntried struct{ why string }

func (e errUntried) Error() string {
	return e.why + ", and mcptray starts an update you have not accepted only in a sandbox"
}
