package window

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
)

// newGuardForm builds the dialog for the flow guard's question about a
// call it held: the chain in words, then Allow once, Allow for this
// session or Deny.
func (v *window) newGuardForm(q control.Question) *questionForm {
	f := &questionForm{q: q}
	gq := q.Guard
	if gq == nil {
		gq = &control.GuardQuestion{}
	}
	app := sanitize.Line(gq.App)
	if app == "" {
		app = "An app"
	}
	head := widget.NewLabelWithStyle(sanitize.String(gq.Chain), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(head,
		wrapped("What it read may have told it to send your data away. Allow this only if you asked for it."),
		caption("Apps see this tool as "+sanitize.Line(gq.Tool)+"."))
	if gq.Arguments != "" {
		addArguments(body, "It would send:", gq.Arguments, gq.Truncated)
	}
	note := wrapped("Allow for this session: " + app + " may use this tool without asking until it ends its session.")
	note.Importance = widget.LowImportance
	body.Add(note)
	scroll := container.NewVScroll(body)
	scroll.SetMinSize(fyne.NewSize(480, min(body.MinSize().Height, 380)))
	// The answers are sent as a permission's: "always" stands for the
	// session here (control.AskGuard).
	v.allowDialog(f, app+" wants to send data out", scroll, "Allow for this session", false)
	return f
}
