package window

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// canMoveKeys reports whether sv's plain-text keys can go into the
// keychain from the window: those of mcptray's own config and of the
// person's apps' configs, for the copy of the server that runs.
func canMoveKeys(sv service.Server) bool {
	return len(sv.PlainKeys) > 0 && sv.Suppressed == "" && (sv.Scope == service.User || sv.Scope == service.Imported)
}

// plainKeysText says that sv's file holds a key anyone can read, and what
// keeping it in the keychain does.
func plainKeysText(sv service.Server) string {
	what := "This server's API key (" + names(sv.PlainKeys) + ") is"
	if len(sv.PlainKeys) > 1 {
		what = "This server's keys (" + names(sv.PlainKeys) + ") are"
	}
	text := fmt.Sprintf("%s stored in plain text in %s: anyone who can read that file can use it. Keep it in your keychain instead.",
		what, sanitize.Line(sv.Origin.File))
	if sv.Scope == service.Imported {
		text += fmt.Sprintf(" mcptray then runs its own copy of the server; %s's file is not changed.", sanitize.Line(sv.Origin.App))
	}
	return text
}

// showPlainKeys shows the banner and its button when sv's file holds a
// key in plain text.
func (d *detail) showPlainKeys(sv service.Server) {
	if !canMoveKeys(sv) {
		d.plainKeys.Hide()
		d.moveKeys.Hide()
		return
	}
	d.plainKeys.SetText(plainKeysText(sv))
	d.plainKeys.Show()
	d.moveKeys.Show()
}

// moveKeys keeps sv's plain-text keys in the keychain, and says what is
// left to do in another app's file.
func (v *window) moveKeys(sv service.Server) {
	name := sv.Name
	var res service.MoveSecretsResult
	v.actThen("Could not keep the key of "+sanitize.Line(name)+" in your keychain", func(ctx context.Context) error {
		var err error
		res, err = v.b.MoveSecrets(ctx, name)
		return err
	}, func() {
		if res.Left == "" {
			return
		}
		msg := fmt.Sprintf("%s is in your keychain now, and mcptray's own copy of %s uses it.\n\n%s still holds it in plain text: mcptray did not change that file. Remove the key there once %s uses mcptray for this server.",
			sanitize.Line(strings.Join(res.Secrets, ", ")), sanitize.Line(name), sanitize.Line(res.Left), sanitize.Line(sv.Origin.App))
		text := widget.NewLabel(msg)
		text.Wrapping = fyne.TextWrapWord
		d := dialog.NewCustom("Kept in your keychain", "OK", text, v.win)
		d.Resize(fyne.NewSize(440, 0))
		d.Show()
	})
}
