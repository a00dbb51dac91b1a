package service

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// Pins: what a server's tools say stays what the person saw. The first
// time a server's tools are seen (a project server's once it is approved,
// since it never runs before) they are pinned in mcptray's folder
// (core/pins). From then on a Snapshot offers a server's unchanged tools
// only: a changed, new or renamed tool is held in the server's Review
// until the person accepts it (AcceptTools), and the gateway, which offers
// a snapshot's tools, never sees it. Every tool is read for hidden
// instructions when first seen and on every change (and for shadowing
// again when another server's tool names come or go); a flagged tool is
// marked in the Review, and the gateway asks before each of its calls
// whatever its annotations say. The person may keep a held change held
// (KeepHeld): it stays held and no longer waits to be looked at. What is
// held is kept with the pins, so that a server that does not run now has
// the Review of when it last ran.

// Review is what a person should look at in a server's tools: what changed
// since they were pinned and is held, what went, and what reads as orders
// to the AI. A Snapshot's Server has one when there is anything to say.
type Review struct {
	// Held are the changed, new and renamed tools kept from apps until
	// the person accepts them, by name.
	Held []ToolChange `json:"held,omitempty"`
	// HeldPrompts are its changed, new and renamed prompts, held in the
	// same way.
	HeldPrompts []ToolChange `json:"heldPrompts,omitempty"`
	// Removed are the pinned tools the server no longer lists.
	Removed []string `json:"removed,omitempty"`
	// Flags are the tools (offered or held) whose definitions read as
	// instructions to the AI, by the tool's name.
	Flags map[string][]pins.Flag `json:"flags,omitempty"`
	// Changes counts how often the server's tools changed since they were
	// first pinned; LastChange is when they last did.
	Changes    int       `json:"changes,omitempty"`
	LastChange time.Time `json:"lastChange,omitzero"`
	// AcceptChanges is the person's "Accept changes from this server":
	// its changes are pinned as they come, but for flagged ones and
	// those whose annotations claim less than before.
	AcceptChanges bool `json:"acceptChanges,omitempty"`
	// Problem says why the pins cannot be read, with what to do; every
	// tool of every server is held until they can.
	Problem string `json:"problem,omitempty"`
}

// ToolChange is one held tool: what changed, in words.
type ToolChange struct {
	pins.Change
	Words pins.Words  `json:"words"`
	Flags []pins.Flag `json:"flags,omitempty"`
	// KeptSince is when the person chose to keep it held (Keep it held,
	// KeepHeld); zero while it waits to be looked at.
	KeptSince time.Time `json:"keptSince,omitzero"`
}

// Kept reports whether the person chose to keep the change held.
func (c ToolChange) Kept() bool { return !c.KeptSince.IsZero() }

// Summary is the review in a few words for lists and the tray: "1 tool
// changed, held", "1 tool kept held", both, or "".
func (r *Review) Summary() string {
	if r == nil {
		return ""
	}
	if r.Problem != "" {
		return "tools held: " + r.Problem
	}
	count := func(kept bool) string {
		var parts []string
		for _, c := range []struct {
			list []ToolChange
			word string
		}{{r.Held, "tool"}, {r.HeldPrompts, "prompt"}} {
			n := 0
			for _, h := range c.list {
				if h.Kept() == kept {
					n++
				}
			}
			switch {
			case n == 1:
				parts = append(parts, "1 "+c.word)
			case n > 1:
				parts = append(parts, fmt.Sprintf("%d %ss", n, c.word))
			}
		}
		return strings.Join(parts, " and ")
	}
	var out []string
	if s := count(false); s != "" {
		out = append(out, s+" changed, held")
	}
	if s := count(true); s != "" {
		out = append(out, s+" kept held")
	}
	return strings.Join(out, "; ")
}

// Pending counts the held tools and prompts the person has yet to look
// at: those not kept held.
func (r *Review) Pending() int {
	if r == nil {
		return 0
	}
	n := 0
	for _, h := range slices.Concat(r.Held, r.HeldPrompts) {
		if !h.Kept() {
			n++
		}
	}
	return n
}

// Flagged reports whether the tool called name reads as instructions to
// the AI.
func (r *Review) Flagged(name string) bool {
	return r != nil && len(r.Flags[name]) > 0
}

// pinState is the service's pins and what it last made of each server's
// tools.
type pinState struct {
	once  sync.Once
	store *pins.Store
	err   error

	mu    sync.Mutex
	cache map[string]*pinCheck // by server name
	// prompts are each server's prompts as the gateway last listed them,
	// and those held, by server name.
	prompts map[string]promptCheck
	// scanned are the flags of each server's tools as last read, by
	// server and tool: a change reads only what changed.
	scanned map[string]map[string]scanned
	// toolNames are each server's tool names as last seen, by server:
	// when one comes or goes, the tools of other servers that mention it
	// are read again for shadowing.
	toolNames map[string][]string
}

// scanned is one definition as Scan read it, and what it found.
type scanned struct {
	def   pins.Def
	flags []pins.Flag
	// shadowing says it was read for other servers' tool names, and
	// mentions are the words in it that could be one (pins.Read).
	shadowing bool
	mentions  []string
}

// promptCheck is a server's prompts as last listed, and those held.
type promptCheck struct {
	seen []pins.Def
	held []ToolChange
}

// pinCheck is a server's tools as last checked, and the outcome.
type pinCheck struct {
	seen    []tools.Tool
	offered []tools.Tool
	review  *Review
}

// pinStore opens the pins once.
func (s *Service) pinStore() (*pins.Store, error) {
	s.pins.once.Do(func() {
		s.pins.store, s.pins.err = pins.Open(filepath.Join(s.opts.Paths.Dir(), pins.FileName))
		if s.pins.err != nil {
			s.log.Error("the pinned tools cannot be read: every server's tools are held", "err", s.pins.err)
		}
		s.pins.cache = map[string]*pinCheck{}
		s.pins.prompts = map[string]promptCheck{}
		s.pins.scanned = map[string]map[string]scanned{}
		s.pins.toolNames = map[string][]string{}
	})
	return s.pins.store, s.pins.err
}

// applyPins holds back each connected server's tools that differ from its
// pins, and gives it its Review.
func (s *Service) applyPins(snap *Snapshot) {
	store, err := s.pinStore()
	// Every tool name of every server as it lists them (held ones too),
	// for shadowing: made only when a server's list must be checked.
	listed := make([][]tools.Tool, len(snap.Servers))
	for i := range snap.Servers {
		listed[i] = snap.Servers[i].Tools
	}
	var owners map[string][]string
	ownersOf := func(n string) []string {
		if owners == nil {
			owners = map[string][]string{}
			for i := range snap.Servers {
				for _, t := range listed[i] {
					owners[t.Name] = append(owners[t.Name], snap.Servers[i].Name)
				}
			}
		}
		return owners[n]
	}
	s.pins.mu.Lock()
	defer s.pins.mu.Unlock()
	var same []bool // by server: its list is the one last checked
	if err == nil {
		same = s.shadowingAgain(snap)
	}
	defer func() {
		if store != nil {
			if err := store.Flush(); err != nil {
				s.log.Warn("keeping the pinned tools", "err", err)
			}
		}
	}()
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if sv.State == conn.AwaitingApproval && err == nil && !sv.BuiltIn() {
			sv.Review = s.approvalReview(store, sv.Name)
			continue
		}
		if sv.State != conn.Connected && err == nil && !sv.BuiltIn() && sv.Runnable {
			sv.Review = s.rememberedReview(store, sv.Name)
			continue
		}
		if sv.BuiltIn() || len(sv.Tools) == 0 {
			continue
		}
		if err != nil {
			sv.Review = &Review{Problem: "the pinned tools cannot be read (" + sanitize.Line(err.Error()) + "); move the file aside to pin them anew"}
			for _, t := range sv.Tools {
				sv.Review.Held = append(sv.Review.Held, ToolChange{Change: pins.Change{Kind: pins.New, Name: t.Name},
					Words: pins.Words{Summary: "is held until the pinned tools can be read"}})
			}
			sv.Tools = nil
			continue
		}
		if c := s.pins.cache[sv.Name]; c != nil && same[i] {
			sv.Tools, sv.Review = c.offered, c.review
			continue
		}
		others := func(n string) bool {
			return slices.ContainsFunc(ownersOf(n), func(o string) bool { return o != sv.Name })
		}
		c := s.checkPins(store, sv.Name, sv.Tools, others)
		s.pins.cache[sv.Name] = c
		sv.Tools, sv.Review = c.offered, c.review
	}
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if held := s.pins.prompts[sv.Name].held; len(held) > 0 {
			var r Review
			if sv.Review != nil {
				r = *sv.Review // the cached one is shared: a copy
			}
			r.HeldPrompts = held
			sv.Review = &r
		}
	}
}

// rememberedReview is what a server that does not run now held when it
// last ran, as its pins remember it: so that a command that starts no
// server (mcptray list) says what is held as one that does. Nil when
// nothing was. Called with s.pins.mu held.
func (s *Service) rememberedReview(store *pins.Store, name string) *Review {
	pinned, ok := store.Server(name)
	if !ok || len(pinned.Held)+len(pinned.HeldPrompts) == 0 {
		return nil
	}
	r := &Review{Changes: pinned.Changes, LastChange: pinned.LastChange, AcceptChanges: pinned.AcceptChanges}
	for _, ch := range pinned.Held {
		if ch.New == nil {
			continue
		}
		h := ToolChange{Change: ch, Words: pins.Describe(ch), Flags: pins.Scan(*ch.New, nil)}
		h.KeptSince, _ = pinned.KeptSince(false, ch)
		r.Held = append(r.Held, h)
	}
	r.HeldPrompts = heldPrompts(pinned, pinned.HeldPrompts)
	return r
}

// shadowingAgain notes which tool names came or went since the last
// snapshot (a server's list changed, it connected, or it went), and has
// the tools of other servers that mention one read again for shadowing:
// a tool whose description names get_forecast is flagged when another
// server starts to offer get_forecast, though the tool itself did not
// change. It reports, by server, whose list is the one last checked.
// Called with s.pins.mu held.
func (s *Service) shadowingAgain(snap *Snapshot) []bool {
	same := make([]bool, len(snap.Servers))
	var came []string
	present := make(map[string]bool, len(snap.Servers))
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if len(sv.Tools) == 0 {
			continue
		}
		present[sv.Name] = true
		if c := s.pins.cache[sv.Name]; c != nil && sameTools(c.seen, sv.Tools) {
			same[i] = true
			continue // the same list: the same names
		}
		was := s.pins.toolNames[sv.Name]
		now := make([]string, len(sv.Tools))
		for j, t := range sv.Tools {
			now[j] = t.Name
		}
		if slices.Equal(was, now) {
			continue
		}
		for _, n := range now {
			if !slices.Contains(was, n) {
				came = append(came, n)
			}
		}
		for _, n := range was {
			if !slices.Contains(now, n) {
				came = append(came, n)
			}
		}
		s.pins.toolNames[sv.Name] = now
	}
	for name, was := range s.pins.toolNames {
		if !present[name] {
			came = append(came, was...)
			delete(s.pins.toolNames, name)
		}
	}
	if len(came) == 0 {
		return same
	}
	changed := make(map[string]bool, len(came))
	for _, n := range came {
		changed[n] = true
	}
	for server, read := range s.pins.scanned {
		for tool, r := range read {
			if slices.ContainsFunc(r.mentions, func(n string) bool { return changed[n] }) {
				delete(read, tool) // read again by checkPins
				delete(s.pins.cache, server)
			}
		}
	}
	for i := range snap.Servers {
		same[i] = same[i] && s.pins.cache[snap.Servers[i].Name] != nil
	}
	return same
}

// OfferedPrompts are the prompts of list, a server's as the gateway
// listed them, that it may offer: the first list is pinned, and a changed,
// new or renamed prompt is held in the server's Review until accepted.
func (s *Service) OfferedPrompts(server string, list []mcp.Prompt) []mcp.Prompt {
	store, err := s.pinStore()
	if err != nil {
		return nil
	}
	defs := make([]pins.Def, len(list))
	for i, p := range list {
		defs[i] = pins.FromPrompt(p)
	}
	s.pins.mu.Lock()
	pinned, _ := store.Server(server)
	// Staged, the first sight is written by the next Snapshot (applyPins)
	// with those of the other servers the gateway lists meanwhile; the
	// notice below brings one.
	staged := false
	if !pinned.PromptsPinned {
		store.Stage(server, func(sv *pins.Server, _ bool) bool {
			sv.Prompts, sv.PromptsPinned = defs, true
			return true
		})
		staged = true
		pinned.Prompts = defs
	}
	held := map[string]bool{}
	changes := pins.Compare(pinned.Prompts, defs)
	if pinned.PruneKept(true, changes) {
		store.Stage(server, func(sv *pins.Server, _ bool) bool { return sv.PruneKept(true, changes) })
		staged = true
	}
	if rememberHeld(store, server, true, pinned.HeldPrompts, changes) {
		staged = true
	}
	check := promptCheck{seen: defs, held: heldPrompts(pinned, changes)}
	for _, h := range check.held {
		held[h.Name] = true
	}
	before := len(s.pins.prompts[server].held)
	s.pins.prompts[server] = check
	s.pins.mu.Unlock()
	if staged || before != len(check.held) {
		s.notices.Publish(struct{}{})
	}
	out := make([]mcp.Prompt, 0, len(list))
	for _, p := range list {
		if !held[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// heldPrompts are the held ones of a server's prompt changes, in words,
// and whether the person kept each held.
func heldPrompts(pinned pins.Server, changes []pins.Change) []ToolChange {
	var out []ToolChange
	for _, ch := range changes {
		if ch.Held() {
			h := ToolChange{Change: ch, Words: pins.Describe(ch), Flags: pins.Scan(*ch.New, nil)}
			h.KeptSince, _ = pinned.KeptSince(true, ch)
			out = append(out, h)
		}
	}
	return out
}

// approvalReview is what a server that waits for approval again (what
// it runs changed) said when it last ran: its pinned tools that read as
// orders to the AI, so that the approval dialog can say so. A server
// never seen has none: it has never run. Called with s.pins.mu held.
func (s *Service) approvalReview(store *pins.Store, name string) *Review {
	pinned, ok := store.Server(name)
	if !ok || len(pinned.Tools) == 0 {
		return nil
	}
	flags := map[string][]pins.Flag{}
	last := s.pins.scanned[name]
	read := make(map[string]scanned, len(pinned.Tools))
	for _, d := range pinned.Tools {
		f := last[d.Name].flags
		if prev, ok := last[d.Name]; !ok || !prev.def.Equal(d) {
			f = pins.Scan(d, nil)
		}
		read[d.Name] = scanned{def: d, flags: f}
		if len(f) > 0 {
			flags[d.Name] = f
		}
	}
	s.pins.scanned[name] = read
	return reviewOf(pinned, nil, flags)
}

// checkPins compares a server's tools with its pins: the first sight pins
// them; a change is counted once, accepted when the person said so, and
// otherwise held. Called with s.pins.mu held.
func (s *Service) checkPins(store *pins.Store, name string, list []tools.Tool, others func(string) bool) *pinCheck {
	c := &pinCheck{seen: list}
	defs := make([]pins.Def, len(list))
	for i, t := range list {
		defs[i] = pins.FromTool(t)
	}
	flags := map[string][]pins.Flag{}
	last := s.pins.scanned[name]
	read := make(map[string]scanned, len(defs))
	scan := func(d pins.Def) {
		r, ok := last[d.Name]
		if !ok || !r.shadowing || !r.def.Equal(d) {
			r = scanned{def: d, shadowing: true}
			r.flags, r.mentions = pins.Read(d, others)
		}
		read[d.Name] = r
		if len(r.flags) > 0 {
			flags[d.Name] = r.flags
		}
	}
	defer func() { s.pins.scanned[name] = read }()
	pinned, ok := store.Server(name)
	if !ok || pinned.Pinned.IsZero() {
		now := s.opts.Now()
		store.Stage(name, func(sv *pins.Server, _ bool) bool {
			if !sv.Pinned.IsZero() {
				return false
			}
			sv.Tools, sv.Pinned = defs, now
			return true
		})
		for _, d := range defs {
			scan(d)
		}
		c.offered = list
		c.review = reviewOf(pinned, nil, flags)
		return c
	}
	changes := pins.Compare(pinned.Tools, defs)
	if len(changes) > 0 {
		pinned = s.countChange(store, name, pinned, changes)
	}
	for _, d := range defs {
		scan(d)
	}
	// The person accepts this server's changes as they come: but for
	// those that read as orders or claim less than before.
	if pinned.AcceptChanges && len(changes) > 0 {
		var accept []string
		for _, ch := range changes {
			if ch.Held() && !ch.Weakened && len(flags[ch.Name]) == 0 {
				accept = append(accept, ch.Name)
			}
		}
		if len(accept) > 0 {
			next, _ := pins.Accept(pinned.Tools, changes, accept)
			store.Stage(name, func(sv *pins.Server, _ bool) bool { sv.Tools = next; return true })
			pinned.Tools = next
			changes = pins.Compare(next, defs)
		}
	}
	// A decision to keep a change held holds for that change only.
	if pinned.PruneKept(false, changes) {
		store.Stage(name, func(sv *pins.Server, _ bool) bool { return sv.PruneKept(false, changes) })
	}
	held := map[string]bool{}
	for _, ch := range changes {
		if ch.Held() {
			held[ch.Name] = true
		}
	}
	for _, t := range list {
		if !held[t.Name] {
			c.offered = append(c.offered, t)
		}
	}
	rememberHeld(store, name, false, pinned.Held, changes)
	c.review = reviewOf(pinned, changes, flags)
	return c
}

// rememberHeld keeps with a server's pins which of its tools (or prompts)
// are held now, when that differs from what they kept, and reports
// whether it did.
func rememberHeld(store *pins.Store, name string, prompts bool, was []pins.Change, changes []pins.Change) bool {
	held := pins.HeldOf(changes)
	if slices.EqualFunc(held, was, func(a, b pins.Change) bool {
		return a.Kind == b.Kind && a.Name == b.Name && a.Was == b.Was && a.Weakened == b.Weakened && a.New != nil && b.New != nil && a.New.Equal(*b.New)
	}) {
		return false
	}
	store.Stage(name, func(sv *pins.Server, _ bool) bool {
		if prompts {
			sv.HeldPrompts = held
		} else {
			sv.Held = held
		}
		return true
	})
	return true
}

// countChange counts a server's change once: a list that differs from the
// pins as one already counted does is the same change.
func (s *Service) countChange(store *pins.Store, name string, pinned pins.Server, changes []pins.Change) pins.Server {
	fp := pins.ChangesFingerprint(changes)
	if fp == pinned.Seen {
		return pinned
	}
	now := s.opts.Now()
	store.Stage(name, func(sv *pins.Server, _ bool) bool {
		sv.Seen, sv.Changes, sv.LastChange = fp, sv.Changes+1, now
		return true
	})
	held := 0
	for _, ch := range changes {
		if ch.Held() {
			held++
		}
	}
	s.log.Info("a server's tools changed", "server", name, "held", held, "changes", len(changes))
	pinned.Seen, pinned.Changes, pinned.LastChange = fp, pinned.Changes+1, now
	return pinned
}

// reviewOf is what a person should look at, or nil when nothing.
func reviewOf(pinned pins.Server, changes []pins.Change, flags map[string][]pins.Flag) *Review {
	r := &Review{Changes: pinned.Changes, LastChange: pinned.LastChange, AcceptChanges: pinned.AcceptChanges}
	if len(flags) > 0 {
		r.Flags = flags
	}
	for _, ch := range changes {
		switch {
		case ch.Kind == pins.Removed:
			r.Removed = append(r.Removed, ch.Name)
		case ch.Held():
			h := ToolChange{Change: ch, Words: pins.Describe(ch), Flags: flags[ch.Name]}
			h.KeptSince, _ = pinned.KeptSince(false, ch)
			r.Held = append(r.Held, h)
		}
	}
	if r.Held == nil && r.Removed == nil && r.Flags == nil && r.Changes == 0 && !r.AcceptChanges {
		return nil
	}
	return r
}

// sameTools reports whether two lists of a server's tools say the same,
// cheaply: an unchanged list shares its strings and bytes with the last.
func sameTools(a, b []tools.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y tools.Tool) bool {
		return x.Name == y.Name && x.QualifiedName == y.QualifiedName && x.Title == y.Title && x.Description == y.Description &&
			x.Hints == y.Hints && bytes.Equal(x.InputSchema, y.InputSchema) && bytes.Equal(x.OutputSchema, y.OutputSchema) && bytes.Equal(x.Meta, y.Meta)
	})
}

// AcceptTools pins what a server's held tools say now, so that apps are
// offered them: the tools named (by their names now, or a renamed one's
// old name), or every held one when tools is empty. The pins of removed
// tools go too.
func (s *Service) AcceptTools(ctx context.Context, server string, names []string) (Server, error) {
	if err := s.checkOpen(); err != nil {
		return Server{}, err
	}
	name, err := s.configuredName(server)
	if err != nil {
		return Server{}, err
	}
	info, ok := s.conns.Report().Find(name)
	if !ok || len(info.Tools) == 0 {
		return Server{}, newError(NotAllowed, "%s is not connected: its tools can be accepted once it runs", sanitize.Line(name))
	}
	store, err := s.pinStore()
	if err != nil {
		return Server{}, newError(Other, "the pinned tools cannot be read: %v", err)
	}
	defs := make([]pins.Def, len(info.Tools))
	for i, t := range info.Tools {
		defs[i] = pins.FromTool(t)
	}
	var missing, accepted []string
	s.pins.mu.Lock()
	prompts := s.pins.prompts[name]
	err = store.Update(name, func(sv *pins.Server, _ bool) bool {
		changes := pins.Compare(sv.Tools, defs)
		next, toolsMissing := pins.Accept(sv.Tools, changes, names)
		accepted = accepted[:0]
		for _, ch := range changes {
			if ch.Held() && (len(names) == 0 || slices.Contains(names, ch.Name) || (ch.Was != "" && slices.Contains(names, ch.Was))) {
				accepted = append(accepted, ch.Name)
			}
		}
		var promptChanges []pins.Change
		if sv.PromptsPinned {
			promptChanges = pins.Compare(sv.Prompts, prompts.seen)
		}
		nextPrompts, promptsMissing := pins.Accept(sv.Prompts, promptChanges, names)
		for _, n := range toolsMissing {
			if slices.Contains(promptsMissing, n) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 || len(changes)+len(promptChanges) == 0 {
			return false
		}
		sv.Tools = next
		// Accepting undoes keeping it held.
		sv.PruneKept(false, pins.Compare(next, defs))
		if sv.PromptsPinned {
			sv.Prompts = nextPrompts
			left := pins.Compare(nextPrompts, prompts.seen)
			sv.PruneKept(true, left)
			s.pins.prompts[name] = promptCheck{seen: prompts.seen, held: heldPrompts(*sv, left)}
		}
		if sv.Pinned.IsZero() {
			sv.Pinned = s.opts.Now()
		}
		return true
	})
	delete(s.pins.cache, name)
	s.pins.mu.Unlock()
	if err != nil {
		return Server{}, newError(Other, "accepting %s's tools: %v", sanitize.Line(name), err)
	}
	if len(missing) > 0 {
		return Server{}, newError(NotFound, "%s holds no changed tool called %s; `mcptray review %s` lists them", sanitize.Line(name), sanitize.Line(strings.Join(missing, ", ")), sanitize.Line(name))
	}
	for _, tool := range accepted {
		s.recordTrustBy(ctx, activity.ToolChangeAccept, tool+" ("+name+")", "")
	}
	s.notices.Publish(struct{}{})
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return Server{}, err
	}
	sv, _ := snap.Find(name)
	return sv, nil
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
	store, err := s.pinStore()
	if err != nil {
		return Server{}, newError(Other, "the pinned tools cannot be read: %v", err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return Server{}, err
	}
	sv, _ := snap.Find(name)
	type keep struct {
		prompt bool
		ch     pins.Change
	}
	var keeps []keep
	found := map[string]bool{}
	if sv.Review != nil {
		for _, group := range []struct {
			prompt bool
			list   []ToolChange
		}{{false, sv.Review.Held}, {true, sv.Review.HeldPrompts}} {
			for _, h := range group.list {
				if len(names) == 0 || slices.Contains(names, h.Name) || (h.Was != "" && slices.Contains(names, h.Was)) {
					keeps = append(keeps, keep{group.prompt, h.Change})
					found[h.Name], found[h.Was] = true, true
				}
			}
		}
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	switch {
	case len(missing) > 0:
		return Server{}, newError(NotFound, "%s holds no changed tool called %s; `mcptray review %s` lists them", sanitize.Line(name), sanitize.Line(strings.Join(missing, ", ")), sanitize.Line(name))
	case len(keeps) == 0:
		return Server{}, newError(NotFound, "%s holds no changed tool; `mcptray review %s` says what it has", sanitize.Line(name), sanitize.Line(name))
	}
	now := s.opts.Now()
	s.pins.mu.Lock()
	err = store.Update(name, func(p *pins.Server, _ bool) bool {
		for _, k := range keeps {
			p.Keep(k.prompt, k.ch, now)
		}
		return true
	})
	if err == nil {
		if pinned, ok := store.Server(name); ok {
			if prompts := s.pins.prompts[name]; len(prompts.held) > 0 {
				s.pins.prompts[name] = promptCheck{seen: prompts.seen, held: heldPrompts(pinned, pins.Compare(pinned.Prompts, prompts.seen))}
			}
		}
	}
	delete(s.pins.cache, name)
	s.pins.mu.Unlock()
	if err != nil {
		return Server{}, newError(Other, "keeping %s's changed tools held: %v", sanitize.Line(name), err)
	}
	for _, k := range keeps {
		s.recordTrustBy(ctx, activity.ToolChangeKeep, k.ch.Name+" ("+name+")", "")
	}
	s.notices.Publish(struct{}{})
	if snap, err = s.Snapshot(ctx); err != nil {
		return Server{}, err
	}
	sv, _ = snap.Find(name)
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
	store, err := s.pinStore()
	if err != nil {
		return newError(Other, "the pinned tools cannot be read: %v", err)
	}
	s.pins.mu.Lock()
	err = store.Update(name, func(sv *pins.Server, _ bool) bool {
		if sv.AcceptChanges == on {
			return false
		}
		sv.AcceptChanges = on // a server not seen yet is pinned when first seen
		return true
	})
	delete(s.pins.cache, name)
	s.pins.mu.Unlock()
	if err != nil {
		return newError(Other, "%v", err)
	}
	s.notices.Publish(struct{}{})
	return nil
}
