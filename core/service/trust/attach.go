package trust

import (
	"context"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
)

// Attach gives the keeper the service's way to the activity record, which
// says who decided. service.New calls it, once, before the keeper is used;
// nothing else does. core/instance makes the keeper beside the service and
// gives it in the service's Options.
func (k *Keeper) Attach(record func(ctx context.Context, action activity.TrustAction, target, detail string)) {
	if record != nil {
		k.opts.Record = record
	}
}

// Approvals is the file of the person's approvals the keeper records in:
// the service's config loader reads the same one, so that a decision and
// the load that follows it go through one lock.
func (k *Keeper) Approvals() *config.ApprovalStore { return k.opts.Approvals }
