package window

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
)

// newEgressForm builds the dialog for the network proxy's question: may a
// sandboxed server reach a host? Allow once, Always or Deny.
func (v *window) newEgressForm(q control.Question) *questionForm {
	f := &questionForm{q: q}
	eq := q.Egress
	if eq == nil {
		eq = &control.EgressQuestion{}
	}
	server, dest := sanitize.Line(q.Server), sanitize.Line(eq.Dest)
	ask := fmt.Sprintf("Allow %s to reach %s?", server, dest)
	head := widget.NewLabelWithStyle(ask, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(head,
		wrapped(fmt.Sprintf("%s runs in mcptray's sandbox, where it reaches only the hosts it may. It is trying to connect to %s, which is not one of them.", server, dest)))
	if eq.Local {
		warn := wrapped(fmt.Sprintf("%s is this computer or your local network: a database, another app or mcptray's own gateway may answer there. Allow it only if you know why %s needs it.", dest, server))
		warn.Importance = widget.WarningImportance
		body.Add(warn)
	}
	note := wrapped(fmt.Sprintf("Allow once: until %s stops. Always: from now on. Without an answer within a minute, mcptray says no.", server))
	note.Importance = widget.LowImportance
	body.Add(note)
	// This computer is no place to nudge the person towards.
	v.allowDialog(f, server+" wants to reach the network", body, "Always", !eq.Local)
	return f
}
