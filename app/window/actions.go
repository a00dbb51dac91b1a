package window

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// reconnect connects sv again at once.
func (v *window) reconnect(sv service.Server) {
	name := sv.Name
	v.act("Could not reconnect "+sanitize.Line(name), func(ctx context.Context) error { return v.b.Retry(ctx, name) })
}

// confirmRemove asks before taking sv out of mcptray's config. Only the
// person's own servers can be removed; for the others the service says
// which file to edit.
func (v *window) confirmRemove(sv service.Server) {
	name := sv.Name
	msg := fmt.Sprintf("Remove %s from mcptray's config? It stops, and its sign-in is forgotten.", sanitize.Line(name))
	if sv.Scope != service.User {
		msg = fmt.Sprintf("%s comes from %s, not from mcptray's own config. mcptray will say what to do instead.", sanitize.Line(name), sanitize.Line(sv.Origin.String()))
	}
	text := wrapped(msg)
	d := dialog.NewCustomConfirm("Remove "+sanitize.Line(name)+"?", "Remove", "Keep it", text, func(ok bool) {
		if !ok {
			return
		}
		v.act("Could not remove "+sanitize.Line(name), func(ctx context.Context) error {
			res, err := v.b.Remove(ctx, name)
			if err == nil && res.Warning != "" {
				return fmt.Errorf("%s was removed, but %s", sanitize.Line(name), sanitize.Line(res.Warning))
			}
			return err
		})
	}, v.win)
	d.SetConfirmImportance(widget.DangerImportance)
	d.Resize(fyne.NewSize(460, 0))
	v.confirm = d
	d.Show()
}

// copyDiagnostics puts sv's diagnostics, secrets left out, on the
// clipboard.
func (v *window) copyDiagnostics(sv service.Server) {
	text := diagnostics(sv, v.snap, time.Now())
	v.app.Clipboard().SetContent(text)
	v.detail.copy.SetText("Copied")
	v.detail.copy.Refresh()
	time.AfterFunc(2*time.Second, func() {
		v.do(func() { v.detail.copy.SetText("Copy diagnostics") })
	})
}
