package window

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// guardSwitches are one tool's switches of the flow guard's labels, kept
// for tests.
type guardSwitches struct {
	reasons                    *widget.Label
	private, untrusted, egress *widget.Check
	reset                      *widget.Button
}

// The labels' switches, as the person reads them.
const (
	privateSwitch   = "Reads your data"
	untrustedSwitch = "Brings in what others wrote"
	egressSwitch    = "Can send data out"
)

// guardLabels is what mcptray's flow guard says a tool can do, each label
// with its reason in words ("reads private data: it may read
// ~/Documents"), and a switch per label by which the person corrects it;
// nil when the guard knows no labels for it (a server not connected).
func (v *window) guardLabels(t tools.Tool) fyne.CanvasObject {
	if v.rules == nil {
		return nil
	}
	q := t.QualifiedName
	tl := v.rules.labels[q]
	if tl == nil {
		return nil
	}
	sw := &guardSwitches{reasons: wrappedCaption(labelReasons(*tl))}
	_, corrected := v.snap.Gateway.Guard.Labels[q]
	check := func(text string, on bool, change func(*bool) service.LabelChange) *widget.Check {
		c := widget.NewCheck(text, nil)
		c.SetChecked(on)
		c.OnChanged = func(on bool) {
			lc := change(&on)
			v.act("Could not correct the tool's labels", func(ctx context.Context) error {
				return v.b.SetGuardLabels(ctx, q, lc, false)
			})
		}
		return c
	}
	sw.private = check(privateSwitch, tl.Labels.Has(service.LabelPrivate), func(b *bool) service.LabelChange { return service.LabelChange{Private: b} })
	sw.untrusted = check(untrustedSwitch, tl.Labels.Has(service.LabelUntrusted), func(b *bool) service.LabelChange { return service.LabelChange{Untrusted: b} })
	sw.egress = check(egressSwitch, tl.Labels.Has(service.LabelEgress), func(b *bool) service.LabelChange { return service.LabelChange{Egress: b} })
	row := container.NewHBox(sw.private, sw.untrusted, sw.egress)
	if corrected {
		sw.reset = widget.NewButton("As mcptray sees it", func() {
			v.act("Could not correct the tool's labels", func(ctx context.Context) error {
				return v.b.SetGuardLabels(ctx, q, service.LabelChange{}, true)
			})
		})
		row.Add(sw.reset)
	}
	v.rules.guard[q] = sw
	return container.NewVBox(sw.reasons, row)
}

// labelReasons says a tool's labels with their reasons, one a line, under
// what they are for.
func labelReasons(tl service.ToolLabels) string {
	lines := strings.Split(sanitize.String(tl.Words()), "\n")
	return "mcptray's guard: " + strings.Join(lines, "\n")
}
