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
	if eq.Chain != "" {
		return v.newEgressGuardForm(f, server, dest, eq)
	}
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

// newEgressGuardForm is the proxy's question when mcptray's flow guard
// asks it: the server connects during a call for an app session that read
// the person's data and content someone else wrote. The chain comes
// first, and no answer is the default.
func (v *window) newEgressGuardForm(f *questionForm, server, dest string, eq *control.EgressQuestion) *questionForm {
	head := widget.NewLabelWithStyle(sanitize.String(eq.Chain), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(head,
		wrapped(fmt.Sprintf("Allow %s to reach %s? What the app read may have told it to send your data away. Allow this only if you asked for it.", server, dest)))
	note := wrapped(fmt.Sprintf("Allow once: %s may reach %s with this chain until it stops. Always: %s may reach %s from now on, whatever was read. Without an answer within a minute, mcptray says no.", server, dest, server, dest))
	note.Importance = widget.LowImportance
	body.Add(note)
	v.allowDialog(f, server+" wants to send data out", body, "Always", false)
	return f
}
