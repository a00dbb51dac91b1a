package window

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// askSecret asks for the secret a server waits for, in a hidden entry, and
// hands it to the running mcptray, which keeps it in the keychain only.
func (v *window) askSecret(sv service.Server) {
	name, secret := sv.Name, sv.Fix.Secret
	entry := widget.NewPasswordEntry()
	entry.SetPlaceHolder(sanitize.Line(secret))
	v.secretEntry = entry
	items := []*widget.FormItem{widget.NewFormItem(sanitize.Line(secret), entry)}
	d := dialog.NewForm(sanitize.Line(name)+" needs "+sanitize.Line(secret), "Keep it", "Cancel", items, func(ok bool) {
		value := entry.Text
		entry.SetText("")
		if !ok || value == "" {
			return
		}
		v.act("Could not keep "+sanitize.Line(secret)+" for "+sanitize.Line(name), func(ctx context.Context) error {
			return v.b.SetSecret(ctx, service.SecretRequest{Server: name, Name: secret, Value: value})
		})
	}, v.win)
	d.Resize(fyne.NewSize(460, 0))
	v.secretDialog = d
	d.Show()
}
