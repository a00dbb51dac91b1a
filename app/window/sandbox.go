package window

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// sandboxText is what a local server may do, for the approval dialog and
// the detail: the words, then how well this system enforces them, then
// the names of the variables it gets.
func sandboxText(box *service.Sandbox) string {
	if box == nil {
		return ""
	}
	text := sanitize.String(box.Words)
	if box.Protection.Files && box.Protection.Words != "" {
		text += "\n(" + capitalise(sanitize.Line(box.Protection.Words)) + ".)"
	}
	if env := box.Environment.Words; env != "" {
		text += "\n" + sanitize.Line(env)
	}
	if box.SecretArgs != "" {
		text += "\n" + sanitize.Line(box.SecretArgs)
	}
	return text
}

// showSandbox fills the detail's sandbox section: the words, a Take back
// button by each thing the person allowed (what its entry asks for says
// how to change it in its file instead), a Let it… button by each
// refused file, and Run without a sandbox (or Run in its sandbox).
func (d *detail) showSandbox(v *window, sv service.Server) {
	d.sandbox.RemoveAll()
	box := sv.Sandbox
	if box == nil || sv.BuiltIn() {
		d.sandboxHeader.Hide()
		d.sandbox.Hide()
		return
	}
	d.sandboxHeader.Show()
	d.sandbox.Show()
	words := wrapped(sandboxText(box))
	if !box.Protection.Files {
		words.Importance = widget.WarningImportance
	}
	d.sandbox.Add(words)
	name := sv.Name
	for _, g := range box.Grants {
		if g.AskedBy != "" {
			d.sandbox.Add(wrapped(sanitize.Line(capitalise(g.Words)) + ": its entry asks for it."))
			continue
		}
		if g.TakeBack == nil {
			continue
		}
		d.sandbox.Add(v.changeRow(wrapped(sanitize.Line(capitalise(g.Words))), "Take back", *g.TakeBack))
	}
	if box.AskedChange != "" {
		how := wrapped(sanitize.Line(box.AskedChange))
		how.Importance = widget.LowImportance
		d.sandbox.Add(how)
	}
	if len(box.Refusals) > 0 {
		// The server's own words, checked: only a true claim, to a place
		// a click may give, has a button, and it gives the path it says.
		d.sandbox.Add(wrapped("Refused lately, as the server tells it:"))
		for _, r := range box.Refusals {
			if r.Label == "" {
				d.sandbox.Add(wrapped(sanitize.Line(r.Claim) + ". Not offered here: " + sanitize.Line(r.Kept) + "."))
				continue
			}
			d.sandbox.Add(v.changeRow(wrapped(sanitize.Line(r.Claim)+" (mcptray checked: it is there, and its sandbox does not give it)"), sanitize.Line(r.Label)+"…", r.Change))
		}
	}
	if len(box.Network) > 0 {
		d.sandbox.Add(wrapped("Kept from the network lately:"))
		for _, r := range box.Network {
			change := service.SandboxChange{Server: name, Allow: true, Host: r.Dest}
			d.sandbox.Add(v.changeRow(wrapped(sanitize.Line(r.Dest)+": "+sanitize.Line(r.Reason)), "Let it reach "+sanitize.Line(r.Dest), change))
		}
	}
	if len(box.Withheld) > 0 {
		d.sandbox.Add(wrapped("Named in its command, and not given (its publisher wrote the command, not you):"))
		for _, w := range box.Withheld {
			d.sandbox.Add(v.changeRow(mono(sanitize.Line(w.What)), sanitize.Line(w.Label)+"…", w.Change))
		}
	}
	if box.Off {
		d.sandbox.Add(container.NewHBox(widget.NewButton("Run in its sandbox", func() {
			v.act("Could not change "+sanitize.Line(name)+"'s sandbox", func(ctx context.Context) error { return v.b.SetSandbox(ctx, name, true) })
		})))
	} else if box.Protection.Files {
		d.sandboxOff = widget.NewButton("Run without a sandbox…", func() { v.confirmNoSandbox(name) })
		d.sandboxOff.Importance = widget.DangerImportance
		d.sandbox.Add(container.NewHBox(d.sandboxOff))
	}
}

// changeRow is a row of the detail's sandbox section: what, and a button
// that makes change.
func (v *window) changeRow(what *widget.Label, button string, change service.SandboxChange) fyne.CanvasObject {
	return container.NewBorder(nil, nil, nil, widget.NewButton(button, func() {
		v.act("Could not change "+sanitize.Line(change.Server)+"'s sandbox", func(ctx context.Context) error { return v.b.ChangeSandbox(ctx, change) })
	}), what)
}

// confirmNoSandbox warns before a server runs with every right the person
// has.
func (v *window) confirmNoSandbox(name string) {
	msg := fmt.Sprintf("Without its sandbox, %s may read and change every file you can (your SSH keys, your browsers' data, your other apps' settings) and connect anywhere. Do this only for a server you trust as much as any program you install.", sanitize.Line(name))
	d := dialog.NewCustomConfirm("Run "+sanitize.Line(name)+" without a sandbox?", "Run without a sandbox", "Keep the sandbox", wrapped(msg), func(ok bool) {
		if !ok {
			return
		}
		v.act("Could not change "+sanitize.Line(name)+"'s sandbox", func(ctx context.Context) error { return v.b.SetSandbox(ctx, name, false) })
	}, v.win)
	d.SetConfirmImportance(widget.DangerImportance)
	d.Resize(fyne.NewSize(460, 0))
	v.confirm = d
	d.Show()
}
