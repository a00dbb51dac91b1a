package service

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// Pins: what a server's tools and prompts say stays what the person saw.
// The holding policy is core/pins' Policy; the service tells it every list
// a server gives, on one path: the running servers' tools whenever the
// connection manager says something changed (seeLists, before the change
// notice goes out), and a server's prompts whenever they are listed
// (Prompts). A Snapshot only reads what the policy made of them: a
// server's changed, new or renamed tools are held in its Review, and the
// gateway, which offers a snapshot's tools, never sees them; it asks
// OfferablePrompts which prompts it may offer. The person's decisions
// (AcceptTools, KeepHeld, SetAcceptChanges) go to the policy too.

// Review is what a person should look at in a server's tools and prompts
// (pins.Review): a Snapshot's Server has one when there is anything to say.
type Review = pins.Review

// ToolChange is one held tool or prompt, in words (pins.ToolChange).
type ToolChange = pins.ToolChange

// pinState is the service's side of the pins: the lists it told the
// policy (trust.Keeper.Policy).
type pinState struct {
	// mu is held while the lists are told to the policy, so that an
	// older report never follows a newer one.
	mu sync.Mutex
	// told is the connection manager's report the policy was last told
	// of: a Snapshot shows a server whose tools the policy has not been
	// told of yet as it was then.
	told atomic.Pointer[conn.Report]
	// looked is, by server, the connection and the prompts-changed count
	// its prompts were last listed at (lookAtPrompts); looks are the
	// listings under way, which Settle waits for.
	looked map[string]promptsLook
	looks  sync.WaitGroup
}

// promptsLook is when a server's prompts were listed: on which connection
// (its Since) and after how many of its notices that they changed.
type promptsLook struct {
	since time.Time
	gen   uint64
}

// promptsLookWait bounds one listing of a server's prompts at first sight;
// settleLookWait how long Settle waits for the listings under way: a
// server that does not answer prompts/list must not hold up mcptray
// status, which then says what it knows.
const (
	promptsLookWait = 30 * time.Second
	settleLookWait  = 2 * time.Second
)

// seeLists tells the policy every running server's tools as the connection
// manager has them now. It runs whenever they may have changed: at each of
// the manager's events, before the change notice goes out, and when a
// command waits for the servers to settle.
func (s *Service) seeLists() {
	s.pins.mu.Lock()
	defer s.pins.mu.Unlock()
	report := s.conns.Report()
	running := make([]pins.Listed, 0, len(report.Servers))
	for _, i := range report.Servers {
		if len(i.Tools) > 0 {
			running = append(running, pins.Listed{Server: i.Name, Tools: i.Tools, Own: i.Transport == config.InProcess})
		}
	}
	s.trust.Policy().SeeTools(running)
	s.pins.told.Store(&report)
	s.lookAtPrompts(report)
}

// lookAtPrompts lists the prompts of each configured server that
// connected, or said its prompts changed, since they were last listed, so
// that they are pinned and read for orders at first sight as its tools
// are, and not first when an app lists them. With s.pins.mu held.
func (s *Service) lookAtPrompts(report conn.Report) {
	if s.ctx.Err() != nil {
		return // closing: no new listing
	}
	if s.pins.looked == nil {
		s.pins.looked = map[string]promptsLook{}
	}
	for _, i := range report.Servers {
		if i.Status.State != conn.Connected || i.Transport == config.InProcess {
			delete(s.pins.looked, i.Name)
			continue
		}
		look := promptsLook{since: i.Status.Since, gen: i.PromptsChanged}
		if s.pins.looked[i.Name] == look {
			continue
		}
		s.pins.looked[i.Name] = look
		s.pins.looks.Add(1)
		go func() {
			defer s.pins.looks.Done()
			ctx, cancel := context.WithTimeout(s.ctx, promptsLookWait)
			defer cancel()
			_, _ = s.Prompts(ctx, i.Name) // a server without prompts answers an error
		}()
	}
}

// waitLooks waits for the prompts' listings under way, for
// settleLookWait at most, or until ctx ends.
func (s *Service) waitLooks(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, settleLookWait)
	defer cancel()
	done := make(chan struct{})
	go func() { s.pins.looks.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// toldInfo is a server as a Snapshot shows it, from the manager's report
// now: as it is, unless its tools are a list the policy has not been told
// of yet (seeLists is about to) — then as it was when the policy last was,
// for a list the policy has not checked is never offered. It returns the
// tools that may be offered and the server's Review with it.
func (s *Service) toldInfo(live conn.Report, name string) (info conn.ServerInfo, ok bool, offered []tools.Tool, review *Review) {
	info, ok = live.Find(name)
	if !ok || len(info.Tools) == 0 || info.Transport == config.InProcess {
		return info, ok, info.Tools, nil
	}
	if offered, review, known := s.trust.Policy().Tools(name, info.Tools); known {
		return info, true, offered, review
	}
	if told := s.pins.told.Load(); told != nil {
		info, ok = told.Find(name)
	} else {
		info, ok = conn.ServerInfo{}, false
	}
	if !ok || len(info.Tools) == 0 {
		return info, ok, nil, nil
	}
	offered, review, known := s.trust.Policy().Tools(name, info.Tools)
	if !known {
		offered, review = nil, nil // changed again meanwhile: none until told
	}
	return info, true, offered, review
}

// readPins gives each server that does not run its Review from its pins,
// and every server its held prompts. It only reads.
func (s *Service) readPins(snap *Snapshot) {
	policy := s.trust.Policy()
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if sv.BuiltIn() {
			continue
		}
		switch {
		case sv.State == conn.AwaitingApproval:
			sv.Review = policy.Remembered(sv.Name, true)
		case sv.State != conn.Connected && sv.Runnable:
			sv.Review = policy.Remembered(sv.Name, false)
		}
		sv.Review = policy.HeldPrompts(sv.Name, sv.Review)
	}
}

// OfferablePrompts are the prompts of list, a server's as the gateway
// listed them, that apps may be offered: those the person saw as they are
// now (pins.Policy.OfferablePrompts). The gateway withholds every other
// one, and all of them on an error.
func (s *Service) OfferablePrompts(server string, list []mcp.Prompt) ([]mcp.Prompt, error) {
	return s.trust.Policy().OfferablePrompts(server, list)
}

// seePrompts tells the policy a configured server's prompts as just
// listed (nil when listing failed: a server may have none), and tells
// front ends when what it holds changed.
func (s *Service) seePrompts(name string, list []mcp.Prompt) {
	if s.trust.Policy().SeePrompts(name, list) {
		s.notices.Publish(struct{}{})
	}
}

// pinsError is the service's words for the policy's errors; other says
// what failed otherwise, with a %s for the server's name.
func pinsError(name, other string, err error) error {
	var notHeld *pins.NotHeldError
	var unreadable *pins.UnreadableError
	n := sanitize.Line(name)
	switch {
	case errors.Is(err, pins.ErrNotRunning):
		return newError(NotAllowed, "%s is not connected: its tools can be accepted once it runs", n)
	case errors.As(err, &notHeld) && len(notHeld.Names) > 0:
		return newError(NotFound, "%s holds no changed tool called %s; `mcptray review %s` lists them", n, sanitize.Line(strings.Join(notHeld.Names, ", ")), n)
	case errors.As(err, &notHeld):
		return newError(NotFound, "%s holds no changed tool; `mcptray review %s` says what it has", n, n)
	case errors.As(err, &unreadable):
		return newError(Other, "%v", err)
	}
	return newError(Other, other+": %v", n, err)
}

// AcceptTools pins what a server's held tools and prompts say now, so
// that apps are offered them: those named (by their names now, or a
// renamed one's old name), or every held one when names is empty. The
// pins of removed tools go too.
func (s *Service) AcceptTools(ctx context.Context, server string, names []string) (Server, error) {
	if err := s.checkOpen(); err != nil {
		return Server{}, err
	}
	name, err := s.configuredName(server)
	if err != nil {
		return Server{}, err
	}
	if err := s.trust.Accept(ctx, name, names); err != nil {
		return Server{}, pinsError(name, "accepting %s's tools", err)
	}
	return s.decided(ctx, name)
}

// KeepHeld records the person's "Keep it held" for a server's held tools
// and prompts: those named (by their names now, or a renamed one's old
// name), or every held one when names is empty. They stay held from apps,
// are no longer counted as waiting to be looked at, and their review says
// since when they are kept; accepting them undoes it, and the server's
// next change of one is a new change to review.
func (s *Service) KeepHeld(ctx context.Context, server string, names []string) (Server, error) {
	if err := s.checkOpen(); err != nil {
		return Server{}, err
	}
	name, err := s.configuredName(server)
	if err != nil {
		return Server{}, err
	}
	if err := s.trust.Keep(ctx, name, names); err != nil {
		return Server{}, pinsError(name, "keeping %s's changed tools held", err)
	}
	return s.decided(ctx, name)
}

// decided tells front ends of a decision on a server's pins, and returns
// the server as it is now.
func (s *Service) decided(ctx context.Context, name string) (Server, error) {
	s.notices.Publish(struct{}{})
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return Server{}, err
	}
	sv, _ := snap.Find(name)
	return sv, nil
}

// SetAcceptChanges turns "Accept changes from this server" on or off.
func (s *Service) SetAcceptChanges(ctx context.Context, server string, on bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	name, err := s.configuredName(server)
	if err != nil {
		return err
	}
	if err := s.trust.Policy().SetAcceptChanges(name, on); err != nil {
		return newError(Other, "%v", err)
	}
	s.notices.Publish(struct{}{})
	return nil
}
