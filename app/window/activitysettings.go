package window

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/service"
)

// activitySettings is Settings' Activity section: Keep arguments and how
// long and how much the record keeps.
type activitySettings struct {
	box  *fyne.Container
	keep *widget.Check
	days *widget.Entry
	mb   *widget.Entry
	save *widget.Button
}

// newActivitySettings builds the section; it reads the settings in the
// background.
func newActivitySettings(v *window) *activitySettings {
	ab := v.b
	s := &activitySettings{keep: widget.NewCheck("Keep arguments (values that look like secrets, and your servers' secrets, are masked)", nil),
		days: widget.NewEntry(), mb: widget.NewEntry()}
	s.days.SetPlaceHolder(strconv.Itoa(activity.DefaultDays))
	s.mb.SetPlaceHolder(strconv.Itoa(activity.DefaultMaxMB))
	s.save = widget.NewButton("Save", func() {
		st, err := s.read()
		if err != nil {
			v.showError("Could not change the activity record's settings", err)
			return
		}
		v.act("Could not change the activity record's settings", func(ctx context.Context) error { return ab.SetActivitySettings(ctx, st) })
	})
	s.save.Disable()
	s.box = container.NewVBox(
		wrapped("mcptray keeps a record of every call your AI apps make through it, and of your approvals, sign-ins and permission changes, in its folder on this computer. Without Keep arguments, only each argument's type and length are kept; results never are."),
		s.keep,
		container.NewHBox(widget.NewLabel("Keep for"), sized(s.days), widget.NewLabel("days, at most"), sized(s.mb), widget.NewLabel("MB"), s.save),
	)
	go func() {
		st, err := ab.ActivitySettings(v.ctx)
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			if err != nil {
				v.showError("Could not read the activity record's settings", err)
			} else {
				s.show(st)
			}
			v.done("activity settings")
		})
	}()
	return s
}

// sized gives an entry room for a number.
func sized(e *widget.Entry) fyne.CanvasObject {
	return container.NewGridWrap(fyne.NewSize(90, e.MinSize().Height), e)
}

// show puts st into the section's widgets.
func (s *activitySettings) show(st service.ActivitySettings) {
	s.keep.SetChecked(st.KeepArguments)
	s.days.SetText("")
	if st.Days > 0 {
		s.days.SetText(strconv.Itoa(st.Days))
	}
	s.mb.SetText("")
	if st.MaxMB > 0 {
		s.mb.SetText(strconv.Itoa(st.MaxMB))
	}
	s.save.Enable()
}

// read is what the widgets say, or why it is not a setting.
func (s *activitySettings) read() (service.ActivitySettings, error) {
	st := service.ActivitySettings{KeepArguments: s.keep.Checked}
	num := func(e *widget.Entry, what string) (int, error) {
		t := strings.TrimSpace(e.Text)
		if t == "" {
			return 0, nil // the default
		}
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%s must be a whole number above 0, or empty for the default", what)
		}
		return n, nil
	}
	var err error
	if st.Days, err = num(s.days, "The days to keep"); err != nil {
		return st, err
	}
	if st.MaxMB, err = num(s.mb, "The size in MB"); err != nil {
		return st, err
	}
	return st, st.Check()
}
