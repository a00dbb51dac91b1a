package service

import (
	"context"

	"github.com/mcptray/mcptray/core/npmpin"
)

// withOrigin asks the registry where p's version says it was built
// (npmpin.NPM.Origin), once: a pin that knows already is kept as it is;
// one the registry did not answer for is asked again.
// What it finds is shown with the tree's facts, in the approval and in
// an update's review, the loss of a CI's provenance first.
func withOrigin(ctx context.Context, n *npmpin.NPM, p *npmpin.Pin) {
	if p.Image != nil || (p.Origin != nil && p.Origin.Unchecked == "") {
		return
	}
	o := n.Origin(ctx, *p)
	p.Origin = &o
}
