package trust

import (
	"context"
	"errors"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
)

// Attach gives the keeper the service's way to the activity record, which
// says who decided. service.New calls it, once, before the keeper is used;
// nothing else does. core/instance makes the keeper beside the service and
// gives it in the service's Options. A keeper serves one service: a second
// Attach is refused, and changes nothing.
func (k *Keeper) Attach(record func(ctx context.Context, action activity.TrustAction, target, detail string)) error {
	if !k.attached.CompareAndSwap(false, true) {
		return errors.New("the trust keeper serves another service already")
	}
	if record != nil {
		k.opts.Record = record
	}
	return nil
}

// Approvals is the file of the person's approvals the keeper records in:
// the service's config loader reads the same one, so that a decision and
// the load that follows it go through one lock.
func (k *Keeper) Approvals() *config.ApprovalStore { return k.opts.Approvals }
