// Package trust is the service's part that keeps the person's trust
// decisions on what servers are and say: the approvals of project servers
// (in the approvals file), the holding policy on what the person saw of
// each server's tools and prompts (core/pins' Policy), the person's
// decisions on what it holds, and a look at an unapproved server's tools
// kept until its approval (looks.go). Each decision goes into the activity
// record.
//
// core/instance makes a Keeper on the approvals file beside the service
// and gives it in the service's Options; the service's config loader reads
// the keeper's approvals file, and the service attaches its record
// (Attach). The service finds the server a request names, checks that it
// may be decided, and gives a refusal its code, then hands the keeper the
// decision. The keeper never imports the service nor the engine that runs
// servers (core/conn), and core/deps_test.go pins what it may import.
package trust

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/pins"
)

// Options configure a Keeper.
type Options struct {
	// Dir is mcptray's folder, where the pins are kept.
	Dir string
	// Approvals is the file of the person's approvals, which the config
	// loader reads.
	Approvals *config.ApprovalStore
	// Record records a trust decision in the activity record (the
	// service's, which says who decided); nil records none.
	Record func(ctx context.Context, action activity.TrustAction, target, detail string)
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Keeper keeps the person's trust decisions. Its methods are safe for
// concurrent use.
type Keeper struct {
	opts     Options
	policy   *pins.Policy
	attached atomic.Bool // Attach was called

	mu     sync.Mutex
	looked map[string]*looked // looks kept until the approval, by server name
}

// New returns a keeper on the pins in o.Dir.
func New(o Options) *Keeper {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Record == nil {
		o.Record = func(context.Context, activity.TrustAction, string, string) {}
	}
	return &Keeper{opts: o, policy: pins.NewPolicy(filepath.Join(o.Dir, pins.FileName), o.Now, o.Logger)}
}

// Policy is the holding policy: the service tells it every list a server
// gives, and a Snapshot reads what it made of them.
func (k *Keeper) Policy() *pins.Policy { return k.policy }

// Decide records the person's approval or denial of e, a project server,
// as exactly what it runs now. An approval first pins what the person saw
// in a look at it (PinLook), before it starts.
func (k *Keeper) Decide(ctx context.Context, e *config.Entry, d config.Approval) error {
	err := k.opts.Approvals.Record(e.ApprovalKey, config.Decision{
		Approval: d, Name: e.Name, File: e.Origin.File, At: k.opts.Now().UTC(),
	})
	if err != nil {
		return fmt.Errorf("recording your decision: %w", err)
	}
	if d == config.Approved {
		k.PinLook(e) // before it starts: what the person looked at is what is pinned
	}
	k.opts.Record(ctx, trustOf(d), e.Name, e.Origin.File)
	return nil
}

// trustOf is the trust decision of an approval.
func trustOf(d config.Approval) activity.TrustAction {
	if d == config.Approved {
		return activity.Approved
	}
	return activity.Denied
}

// Accept pins what server's held tools and prompts say now (those named,
// or every held one when names is empty), and records each. The error is
// the policy's (pins.ErrNotRunning, *pins.NotHeldError…).
func (k *Keeper) Accept(ctx context.Context, server string, names []string) error {
	accepted, err := k.policy.Accept(server, names)
	if err != nil {
		return err
	}
	for _, d := range accepted {
		k.opts.Record(ctx, activity.ToolChangeAccept, d.Change.Name+" ("+server+")", "")
	}
	return nil
}

// Keep keeps server's held tools and prompts held (those named, or every
// held one when names is empty), and records each.
func (k *Keeper) Keep(ctx context.Context, server string, names []string) error {
	kept, err := k.policy.Keep(server, names)
	if err != nil {
		return err
	}
	for _, d := range kept {
		k.opts.Record(ctx, activity.ToolChangeKeep, d.Change.Name+" ("+server+")", "")
	}
	return nil
}
