package window

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
)

// newPermissionForm builds the dialog for the gateway's question about an
// app's call of a tool whose permission is Ask: Allow once, Allow always
// or Deny.
func (v *window) newPermissionForm(q control.Question) *questionForm {
	f := &questionForm{q: q}
	pq := q.Permission
	if pq == nil {
		pq = &control.PermissionQuestion{}
	}
	app := sanitize.Line(pq.App)
	if app == "" {
		app = "An app"
	}
	server := sanitize.Line(q.Server)
	tool := sanitize.Line(pq.ServerTool)
	head := widget.NewLabelWithStyle(fmt.Sprintf("%s wants to use %s from %s", app, tool, server), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(head, caption("Apps see this tool as "+sanitize.Line(pq.Tool)+"."))
	if pq.ReadOnly {
		body.Add(wrapped(server + " says this tool only reads and changes nothing. mcptray cannot check that."))
	}
	if pq.Arguments != "" {
		addArguments(body, "With these arguments:", pq.Arguments, pq.Truncated)
	} else {
		body.Add(wrapped("It passes no arguments."))
	}
	note := wrapped("Allow always: every app may use this tool from now on without asking.")
	note.Importance = widget.LowImportance
	body.Add(note)
	scroll := container.NewVScroll(body)
	scroll.SetMinSize(fyne.NewSize(480, min(body.MinSize().Height, 380)))
	v.allowDialog(f, app+" wants to use a tool", scroll, "Allow always", true)
	return f
}

// allowDialog makes f's dialog: title, body, and the buttons Deny, always
// (its label) and Allow once, whose answers answerPermission sends. nudge
// makes Allow once the button that stands out.
func (v *window) allowDialog(f *questionForm, title string, body fyne.CanvasObject, always string, nudge bool) {
	f.d = dialog.NewCustomWithoutButtons(title, body, v.win)
	f.accept = widget.NewButton("Allow once", func() { v.answerPermission(f, true, false) })
	if nudge {
		f.accept.Importance = widget.HighImportance
	}
	f.always = widget.NewButton(always, func() { v.answerPermission(f, true, true) })
	f.decline = widget.NewButton("Deny", func() { v.answerPermission(f, false, false) })
	f.d.SetButtons([]fyne.CanvasObject{f.decline, f.always, f.accept})
	f.d.Resize(fyne.NewSize(520, 0))
}

// answerPermission sends the person's answer to a permission question,
// or to an egress question, which is answered the same way (once, always
// or no).
func (v *window) answerPermission(f *questionForm, allow, always bool) {
	f.d.Hide()
	if v.question == f {
		v.question = nil
	}
	id, res := f.q.ID, control.PermissionAnswer(allow, always)
	v.act("Could not answer about "+sanitize.Line(f.q.Server), func(ctx context.Context) error { return v.b.Answer(ctx, id, res) })
	v.nextQuestion()
}

// addArguments adds a call's arguments under title to a question's body:
// as the app gave them, in monospace, and whether only their beginning
// is shown.
func addArguments(body *fyne.Container, title, arguments string, truncated bool) {
	body.Add(widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	args := widget.NewLabelWithStyle(sanitize.String(arguments), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	args.Wrapping = fyne.TextWrapBreak
	body.Add(args)
	if truncated {
		body.Add(caption("(The arguments are longer; this is their beginning.)"))
	}
}
