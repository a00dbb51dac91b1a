package window

import (
	"errors"

	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/autostart"
	"github.com/mcptray/mcptray/core/sanitize"
)

// loginSwitch is Settings' "Start at login": a check box over the
// person's login entry (autostart), with a line that says where it is or
// what is wrong with it.
type loginSwitch struct {
	check *widget.Check
	note  *widget.Label
	// setting is true while the box is being set from the entry, so that
	// showing the state does not write it.
	setting bool
}

const loginLabel = "Start mcptray in the tray when you log in"

// newLoginSwitch builds the switch over sw; nil (no login entry on this
// system) shows why instead.
func newLoginSwitch(v *window, sw *autostart.Switch) *loginSwitch {
	l := &loginSwitch{note: wrapped("")}
	l.note.Importance = widget.LowImportance
	l.check = widget.NewCheck(loginLabel, func(on bool) {
		if l.setting {
			return
		}
		err := errors.New("this mcptray cannot set up start at login")
		if sw != nil {
			if on {
				err = sw.Enable()
			} else {
				err = sw.Disable()
			}
		}
		if err != nil {
			v.showError("Could not change start at login", err)
		}
		l.show(sw)
	})
	l.show(sw)
	return l
}

// show sets the box and the note from the entry as it is now.
func (l *loginSwitch) show(sw *autostart.Switch) {
	l.setting = true
	defer func() { l.setting = false }()
	if sw == nil {
		l.check.SetChecked(false)
		l.check.Disable()
		l.note.SetText("Start at login cannot be set up from this mcptray.")
		return
	}
	st, err := sw.Status()
	l.check.SetChecked(st.On)
	switch {
	case err != nil:
		l.note.SetText(sanitize.String(err.Error()))
	case st.On && !st.Current:
		l.note.SetText("The entry at login starts another copy of mcptray (" + sanitize.Line(st.Where) + "). Turn this off and on again to start this one.")
	case st.On:
		l.note.SetText("mcptray opens no window at login; it waits in the tray. The entry is " + sanitize.Line(st.Where) + ".")
	default:
		l.note.SetText("mcptray starts only when you open it.")
	}
}
