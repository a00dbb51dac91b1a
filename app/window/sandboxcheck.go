package window

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// sandboxCheck is Settings' Sandbox section: what the last check of the
// sandbox on this computer found, and a button that checks it again.
type sandboxCheck struct {
	box    *fyne.Container
	result *widget.Label
	check  *widget.Button
}

const sandboxCheckIntro = "mcptray proves its sandbox on this computer: a hostile server, run in the sandbox each kind of server gets, tries every way out mcptray knows (your SSH keys, other servers' files, other programs' sockets, the network past mcptray's proxy…). What mcptray says of a server's sandbox comes from the last check."

// newSandboxCheck builds the section; it reads the last check in the
// background.
func newSandboxCheck(v *window) *sandboxCheck {
	b := v.b
	s := &sandboxCheck{result: wrapped("Reading the last check…")}
	s.check = widget.NewButtonWithIcon("Check the sandbox", theme.ViewRefreshIcon(), func() {
		s.check.Disable()
		s.result.SetText("Checking: a hostile server tries every way out, in each kind of server's sandbox…")
		var r service.SandboxCheck
		v.actThen("Could not check the sandbox", func(ctx context.Context) error {
			var err error
			r, err = b.CheckSandbox(ctx)
			return err
		}, func() {
			s.check.Enable()
			if r.Time.IsZero() {
				s.result.SetText("The sandbox was not checked.")
				return
			}
			s.show(&r)
		})
	})
	s.check.Disable()
	s.box = container.NewVBox(wrapped(sandboxCheckIntro), s.result, container.NewHBox(s.check))
	go func() {
		r, err := b.LastSandboxCheck(v.ctx)
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			s.check.Enable()
			if err != nil {
				s.result.SetText("The last check cannot be read: " + sanitize.Line(err.Error()))
			} else {
				s.show(r)
			}
			v.done("sandbox check")
		})
	}()
	return s
}

// show says what r found: its summary, and each door that did not hold
// with what to do; nil is no check yet.
func (s *sandboxCheck) show(r *service.SandboxCheck) {
	if r == nil {
		s.result.SetText("mcptray has not checked its sandbox on this computer yet.")
		return
	}
	lines := r.Said()
	s.result.SetText(sanitize.String(strings.Join(lines, "\n")))
}
