package service

import (
	"context"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/sanitize"
)

// An update runs only as its trial showed it (trial.go). Before it runs,
// it must have started in its trial; when its tools' words change, the
// person must have read them (the update names the tree they read); and
// it is started once more, in a trial, while the old version still runs:
// one that fails now, or lists other tools than the person read, does not
// run. Then the new tree runs, with the definitions the person read pinned
// as accepted, and once it has started it must list what they read: if it
// fails to start, or lists anything else, the old tree runs again with
// its own pins, and the person is told. Going back pins again what was
// pinned before the update. An update of a server that runs without a
// sandbox is not tried (trial.go): it runs when the person says so, and its
// changed tools are held as any server's are.

// updateCheck bounds the wait for an update's real start.
func (s *Service) updateCheck() time.Duration { return s.lookTimeout() }

// readyToRun says whether the update to cand, for the server called name,
// may run, and returns the trial the person read of it.
func (s *Service) readyToRun(ctx context.Context, name string, req PackageUpdate, cand npmpin.Pin, running string) (*Trial, error) {
	n := sanitize.Line(name)
	trials, _ := s.loadTrials()
	t, ok := trials[name]
	if !ok || t.Tree != cand.Lock.Hash || t.Untried != "" {
		// Not tried yet (a check cut short), or not then: tried now, and
		// kept.
		t = s.tryUpdate(ctx, name, cand)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := s.changeTrials(ctx, func(f *trialsFile) { f.Trials[name] = t }); err != nil {
			return nil, wrapError(err)
		}
		if t.Started() && t.Changed() && req.Tree != "" {
			return nil, newError(NotAllowed, "%s's update was tried only now, and its tools change; read them first (mcptray update %s); version %s keeps running", n, n, sanitize.Line(running))
		}
	}
	if t.Untried != "" {
		return nil, nil // runs as any update did: its changed tools held when it runs
	}
	if !t.Started() {
		return nil, newError(NotAllowed, "%s's update did not start in its sandbox when mcptray tried it (%s): it is held, and version %s keeps running", n, sanitize.Line(t.Problem), sanitize.Line(running))
	}
	if t.Changed() && req.Tree == "" {
		return nil, newError(NotAllowed, "%s's update changes what its tools say: read the changes first (mcptray update %s shows them and asks); version %s keeps running", n, n, sanitize.Line(running))
	}
	// Started once more while the old version runs: it must start now,
	// and list what the person read.
	list, prompts, promptsListed, _, err := s.trialStart(ctx, name, cand)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, newError(Other, "%s's update did not start in its sandbox just now (%s); nothing changed: version %s keeps running", n, sanitize.Line(err.Error()), sanitize.Line(running))
	}
	again := Trial{PromptsListed: promptsListed}
	for _, d := range list {
		again.Listed = append(again.Listed, pins.FromTool(d))
	}
	for _, p := range prompts {
		again.ListedPrompts = append(again.ListedPrompts, pins.FromPrompt(p))
	}
	if what := t.differs(again.Listed, again.ListedPrompts, again.PromptsListed); what != "" {
		// What the person read no longer holds: the next check tries it
		// anew.
		if err := s.changeTrials(ctx, func(f *trialsFile) { delete(f.Trials, name) }); err != nil {
			s.log.Warn("forgetting an update's trial", "server", name, "err", err)
		}
		return nil, newError(NotAllowed, "%s's update, started again just now, %s than it did in its trial, which you read; nothing changed: version %s keeps running. mcptray updates tries it anew", n, what, sanitize.Line(running))
	}
	return &t, nil
}

// differs says how a start's tools and prompts differ from the trial's,
// in words that follow "it": "lists other tools (echo)"; "" when they do
// not.
func (t *Trial) differs(list, prompts []pins.Def, promptsListed bool) string {
	if c := pins.Compare(t.Listed, list); len(c) > 0 {
		return "lists other tools (" + changedNames(c) + ")"
	}
	if t.PromptsListed && promptsListed {
		if c := pins.Compare(t.ListedPrompts, prompts); len(c) > 0 {
			return "lists other prompts (" + changedNames(c) + ")"
		}
	}
	return ""
}

func changedNames(changes []pins.Change) string {
	out := ""
	for i, c := range changes {
		if i > 0 {
			out += ", "
		}
		out += sanitize.Line(c.Name)
	}
	return out
}

// pinnedNow are the definitions pinned for the server called name now,
// as the tree tree runs.
func (s *Service) pinnedNow(name, tree string) (pinnedBefore, error) {
	policy := s.trust.Policy()
	tools, _, err := policy.Pinned(name, pins.Tools)
	if err != nil {
		return pinnedBefore{}, err
	}
	prompts, promptsPinned, err := policy.Pinned(name, pins.Prompts)
	if err != nil {
		return pinnedBefore{}, err
	}
	return pinnedBefore{Tree: tree, Tools: tools, Prompts: prompts, PromptsPinned: promptsPinned}, nil
}

// pinFor pins, as the server called name switches from the tree from to
// the tree to, what the person read of to: its trial's lists on an
// update, and on going back what was pinned while it ran; and keeps what
// was pinned for from, to go back to.
func (s *Service) pinFor(ctx context.Context, name string, before pinnedBefore, to npmpin.Pin, trial *Trial) error {
	f, _ := s.loadTrialsFile()
	policy := s.trust.Policy()
	switch back, ok := f.Before[name]; {
	case trial != nil:
		if err := policy.PinRead(name, trial.Listed, trial.ListedPrompts, trial.PromptsListed); err != nil {
			return err
		}
	case ok && back.Tree == to.Lock.Hash:
		if err := policy.PinRead(name, back.Tools, back.Prompts, back.PromptsPinned); err != nil {
			return err
		}
	}
	return s.changeTrials(ctx, func(f *trialsFile) { f.Before[name] = before })
}

// checkUpdateRuns waits for the updated server's real start and says
// whether it lists what its trial did; an error says, in words, why not.
// A server that does not run here (paused, disabled) is not waited for.
func (s *Service) checkUpdateRuns(ctx context.Context, name string, trial *Trial) error {
	if s.isPaused() {
		return nil
	}
	if _, ok := s.conns.Status(name); !ok {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, s.updateCheck())
	defer cancel()
	if err := s.waitConnected(wctx, s.conns, name); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("it did not start: %s", sanitize.Line(err.Error()))
	}
	list, err := s.conns.Tools(name)
	if err != nil {
		return fmt.Errorf("it did not list its tools: %s", sanitize.Line(err.Error()))
	}
	defs := make([]pins.Def, 0, len(list))
	for _, t := range list {
		defs = append(defs, pins.FromTool(t))
	}
	if what := trial.differs(defs, nil, false); what != "" {
		return fmt.Errorf("it %s than in its trial, which you read", what)
	}
	return nil
}

// undoUpdate runs the tree from again for the server called name, as it
// ran before the update to to, with the pins it had then, and keeps to as
// the update found, with its review.
func (s *Service) undoUpdate(ctx context.Context, name string, from npmpin.Pin, previous *npmpin.Pin, to npmpin.Pin, review *npmpin.Review, before pinnedBefore) error {
	err := s.packageStore().Change(ctx, func(all map[string]npmpin.Record) error {
		r, ok := all[name]
		if !ok || r.Current.Lock.Hash != to.Lock.Hash {
			return nil // changed meanwhile
		}
		r.Current, r.Previous, r.Candidate, r.Review = from, previous, &to, review
		all[name] = r
		return nil
	})
	if err != nil {
		return err
	}
	if err := s.trust.Policy().PinRead(name, before.Tools, before.Prompts, before.PromptsPinned); err != nil {
		return err
	}
	s.reload()
	return s.changeTrials(ctx, func(f *trialsFile) { delete(f.Before, name) })
}

// switchPlan is an update's (or a going back's) way from the tree that
// runs to another, made before the record changes and followed after.
type switchPlan struct {
	name string
	back bool
	// trial is what the person read of the update; nil going back.
	trial *Trial
	// before are the pins while the tree that runs ran.
	before    pinnedBefore
	hasBefore bool
	// The record as it was, filled in as it changes: to undo it.
	from, to npmpin.Pin
	previous *npmpin.Pin
	review   *npmpin.Review
}

// planSwitch makes the plan for req: for an update, whether it may run
// (readyToRun); nil when the server has no record, which the record's
// change then says.
func (s *Service) planSwitch(ctx context.Context, req PackageUpdate) (*switchPlan, error) {
	r, ok, err := s.packageStore().Get(req.Name)
	if err != nil || !ok {
		return nil, wrapError(err)
	}
	p := &switchPlan{name: req.Name, back: req.Back}
	if !req.Back && r.Candidate != nil {
		if req.Tree != "" && !sameTree(req.Tree, r.Candidate.Lock.Hash) {
			return nil, nil // the record's change says it is not the one read
		}
		if p.trial, err = s.readyToRun(ctx, req.Name, req, *r.Candidate, r.Current.Version()); err != nil {
			return nil, err
		}
	}
	if b, err := s.pinnedNow(req.Name, r.Current.Lock.Hash); err == nil {
		p.before, p.hasBefore = b, true
	}
	return p, nil
}

// switching checks, as the record changes, that the tree to run is the
// one planned for (tried, when an update), and keeps what is needed to
// undo the change.
func (p *switchPlan) switching(r npmpin.Record, to npmpin.Pin) error {
	if p == nil {
		return nil
	}
	if p.trial != nil && p.trial.Tree != to.Lock.Hash {
		return newError(NotAllowed, "%s's update is no longer the one mcptray tried: a check found %s %s since; read its review first", sanitize.Line(p.name), to.Spec.Package, to.Version())
	}
	p.from, p.previous, p.to, p.review = r.Current, r.Previous, to, r.Review
	return nil
}

// switched runs the new tree: it pins what the person read of it, puts
// the change to use, and, for an update, waits for its real start: one
// that fails, or lists other tools than its trial, is undone, and the
// error says so.
func (s *Service) switched(ctx context.Context, p *switchPlan) error {
	if p == nil || !p.hasBefore {
		s.reload()
		return nil
	}
	if err := s.pinFor(ctx, p.name, p.before, p.to, p.trial); err != nil {
		s.log.Warn("pinning what an update's trial showed", "server", p.name, "err", err)
	}
	s.reload()
	if p.back || p.trial == nil {
		return nil
	}
	err := s.checkUpdateRuns(ctx, p.name, p.trial)
	if err == nil {
		s.log.Info("an update runs as its trial showed", "server", p.name, "version", p.to.Version())
		// The person accepted its changed words with it: recorded as an
		// accept of each is.
		for _, c := range append(append([]ToolChange{}, p.trial.Tools...), p.trial.Prompts...) {
			if c.Held() {
				s.recordTrustBy(ctx, activity.ToolChangeAccept, c.Name+" ("+p.name+")", "with its update to version "+p.to.Version())
			}
		}
		return nil
	}
	s.log.Warn("an update did not run as its trial showed; the version before runs again", "server", p.name, "err", err)
	if uerr := s.undoUpdate(context.WithoutCancel(ctx), p.name, p.from, p.previous, p.to, p.review, p.before); uerr != nil {
		return wrapError(fmt.Errorf("%s's update did not run as its trial showed (%v), and going back failed: %w", sanitize.Line(p.name), err, uerr))
	}
	return newError(Other, "%s's update %s: %s; version %s runs again, and the update stays to be looked at", sanitize.Line(p.name), p.to.Version(), err, sanitize.Line(p.from.Version()))
}
