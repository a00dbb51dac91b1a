package window

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// installHelp says, in the install form, where the values go.
const installHelp = "Fill in what the server asks for. Secrets are kept in your system's keychain, never in a file; " +
	"mcptray gives them to the server when it starts it."

// installForm is the dialog that installs one catalogue entry: how to run
// it (when there is a choice), its name, and a field for each value it
// asks for.
type installForm struct {
	d       *dialog.CustomDialog
	e       catalogueEntry
	opt     int
	ways    *widget.RadioGroup // nil when there is one way
	name    *widget.Entry
	nameErr *widget.Label
	fields  []*installField
	body    *fyne.Container
	form    *fyne.Container // holds the form of the way chosen
	runs    *widget.Label
	reach   *widget.Label // what it may reach of the home, as the values stand
	home    string
	missing *fyne.Container // the runtime warning, if any
	problem *widget.Label
	install *widget.Button
	closed  bool
	// typed keeps what was typed in each field by key, across changes of
	// the way chosen.
	typed map[string]string
}

// installField is one value the server asks for.
type installField struct {
	f      registry.Field
	entry  *widget.Entry  // text, or a password entry for a secret
	choice *widget.Select // for a value with choices
	err    *widget.Label
	// changed, when set, is called when its value changes.
	changed func()
}

func (fl *installField) value() string {
	if fl.choice != nil {
		return fl.choice.Selected
	}
	return fl.entry.Text
}

func (fl *installField) set(v string) {
	if fl.choice != nil {
		fl.choice.SetSelected(v)
		return
	}
	fl.entry.SetText(v)
}

// check says what is wrong with the field's value, in plain words, or "".
func (fl *installField) check() string {
	v := fl.value()
	if v == "" {
		if fl.f.Required && fl.f.Default == "" {
			return fmt.Sprintf("Fill in %s: the server needs it.", sanitize.Line(fl.f.Key))
		}
		return ""
	}
	if err := registry.CheckValue(fl.f, v); err != nil {
		return capitalise(sanitize.Line(err.Error())) + "."
	}
	return ""
}

// showInstall opens the install form for e.
func (v *window) showInstall(c *catalogueView, e catalogueEntry) {
	f := &installForm{e: e, name: widget.NewEntry(), nameErr: wrapped(""), form: container.NewVBox(),
		runs: mono(""), reach: wrapped(""), home: v.opts.Home, missing: container.NewVBox(), problem: wrapped("")}
	if f.home == "" {
		f.home, _ = os.UserHomeDir()
	}
	f.nameErr.Importance = widget.DangerImportance
	f.nameErr.Hide()
	f.problem.Importance = widget.DangerImportance
	f.problem.Hide()
	for _, o := range e.options {
		if o.plan != nil {
			f.name.SetText(o.plan.Name())
			break
		}
	}
	f.name.OnChanged = func(string) { f.nameErr.Hide(); f.showReach() }

	body := container.NewVBox(wrapped(installHelp))
	f.body = body
	if len(e.options) > 1 {
		var labels []string
		for _, o := range e.options {
			labels = append(labels, o.label)
		}
		f.ways = widget.NewRadioGroup(labels, func(s string) {
			for i, l := range labels {
				if l == s && i != f.opt {
					f.choose(i)
				}
			}
		})
		f.ways.Required = true
		f.ways.SetSelected(labels[0])
		body.Add(section("How to run it"))
		body.Add(f.ways)
	}
	body.Add(f.form)
	body.Add(f.runs)
	body.Add(f.reach)
	body.Add(f.missing)
	body.Add(f.problem)
	f.choose(0)

	title := sanitize.Line(e.resp.Server.Title)
	if title == "" {
		title = sanitize.Line(e.resp.Server.Name)
	}
	scroll := container.NewVScroll(body)
	scroll.SetMinSize(fyne.NewSize(520, 380))
	f.d = dialog.NewCustomWithoutButtons("Install "+title, scroll, v.win)
	f.install = widget.NewButton("Install", func() { v.installChosen(c, f) })
	f.install.Importance = widget.HighImportance
	f.d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", f.d.Hide), f.install})
	f.d.SetOnClosed(func() {
		f.closed, f.typed = true, nil
		for _, fl := range f.fields {
			if fl.f.Secret {
				fl.entry.SetText("") // no secret stays in a closed form
			}
		}
	})
	f.d.Resize(fyne.NewSize(600, 520))
	c.form = f
	f.d.Show()
}

// choose shows the fields of way i, keeping what was typed in fields of
// the same name.
func (f *installForm) choose(i int) {
	if f.typed == nil {
		f.typed = map[string]string{}
	}
	for _, fl := range f.fields {
		f.typed[fl.f.Key] = fl.value()
	}
	f.opt = i
	o := f.e.options[i]
	if o.bundle {
		// Its own dialog asks for what its manifest asks for.
		f.fields = nil
		f.form.Objects = []fyne.CanvasObject{wrapped(bundleWays(o))}
		f.form.Refresh()
		f.runs.SetText("")
		f.reach.SetText("")
		f.reach.Hide()
		f.missing.Objects = nil
		f.missing.Refresh()
		f.problem.Hide()
		if f.body != nil {
			f.relayout()
		}
		return
	}
	form := widget.NewForm(widget.NewFormItem("Name *", container.NewVBox(f.name, f.nameErr)))
	form.Items[0].HintText = "What the server is called in mcptray and in your apps"
	f.fields = nil
	for _, fd := range o.plan.Fields {
		fl := newInstallField(fd)
		if v, ok := f.typed[fd.Key]; ok {
			fl.set(v)
		}
		fl.changed = f.showReach
		f.fields = append(f.fields, fl)
		label := sanitize.Line(fd.Key)
		if fd.Required {
			label += " *"
		}
		item := widget.NewFormItem(label, container.NewVBox(fl.widget(), fl.err))
		item.HintText = hintOf(fd)
		form.AppendItem(item)
	}
	f.form.Objects = []fyne.CanvasObject{form, caption("* needed")}
	f.form.Refresh()
	f.runs.SetText("It " + runsLine(o.plan))
	f.showReach()
	f.missing.Objects = nil
	if o.missingRuntime != "" {
		f.missing.Objects = []fyne.CanvasObject{runtimeWarning(o.missingRuntime)}
	}
	f.missing.Refresh()
	f.problem.Hide()
	if f.body != nil {
		f.relayout()
	}
}

// showReach says what the server, installed with the values as they
// stand, may reach of the home, and what its command names that it is not
// given (registry.Plan.Reach).
func (f *installForm) showReach() {
	if f.reach == nil || f.opt >= len(f.e.options) || f.e.options[f.opt].bundle {
		return
	}
	o := f.e.options[f.opt]
	plan, _ := registry.MakePlan(&o.detail, o.prefer, f.values())
	var lines []string
	if plan != nil {
		for _, l := range plan.Reach(f.home, nil) {
			lines = append(lines, sanitize.Line(l))
		}
		if len(lines) > 1 { // folders its command names that it is not given
			lines = append(lines, "Once it is installed, its detail has a button that gives each of them.")
		}
	}
	f.reach.SetText(strings.Join(lines, "\n"))
	if len(lines) == 0 {
		f.reach.Hide()
	} else {
		f.reach.Show()
	}
}

// values are the fields' values by key, those left empty left out.
func (f *installForm) values() map[string]string {
	values := map[string]string{}
	for _, fl := range f.fields {
		if val := fl.value(); val != "" {
			values[fl.f.Key] = val
		}
	}
	return values
}

// relayout gives the messages just shown or hidden their room.
func (f *installForm) relayout() {
	f.form.Refresh()
	f.body.Refresh()
}

// hintOf is the line under a field: its description, and where a secret
// is kept. (The details pane says where each value goes.)
func hintOf(fd registry.Field) string {
	hint := sanitize.Line(fd.Description)
	if hint == "" {
		hint = capitalise(whereWords(fd.Where))
	}
	if fd.Secret {
		hint += " · kept in your keychain"
	}
	return hint
}

func newInstallField(fd registry.Field) *installField {
	fl := &installField{f: fd, err: wrapped("")}
	fl.err.Importance = widget.DangerImportance
	fl.err.Hide()
	choices := fd.Choices
	if len(choices) == 0 && fd.Format == "boolean" {
		choices = []string{"true", "false"}
	}
	switch {
	case len(choices) > 0:
		fl.choice = widget.NewSelect(choices, func(string) { fl.err.Hide(); fl.change() })
		fl.choice.PlaceHolder = "(choose one)"
		if fd.Default != "" {
			fl.choice.SetSelected(fd.Default)
		}
	case fd.Secret:
		fl.entry = widget.NewPasswordEntry()
	default:
		fl.entry = widget.NewEntry()
		fl.entry.SetText(fd.Default)
	}
	if fl.entry != nil {
		if fd.Placeholder != "" {
			fl.entry.SetPlaceHolder(sanitize.Line(fd.Placeholder))
		}
		fl.entry.OnChanged = func(string) { fl.err.Hide(); fl.change() }
	}
	return fl
}

func (fl *installField) change() {
	if fl.changed != nil {
		fl.changed()
	}
}

func (fl *installField) widget() fyne.CanvasObject {
	if fl.choice != nil {
		return fl.choice
	}
	return fl.entry
}

// check marks each field whose value cannot be used and reports whether
// all can.
func (f *installForm) check(v *window) bool {
	ok := true
	name, msg := f.name.Text, ""
	switch {
	case strings.TrimSpace(name) == "":
		msg = "Give it a name."
	case sanitize.Line(name) != name:
		msg = "Choose a plain name, without spaces at its ends or invisible characters."
	case ownServer(v.snap, name):
		msg = fmt.Sprintf("You already have a server called %s; choose another name.", name)
	}
	if msg != "" {
		f.nameErr.SetText(msg)
		f.nameErr.Show()
		ok = false
	} else {
		f.nameErr.Hide()
	}
	for _, fl := range f.fields {
		if msg := fl.check(); msg != "" {
			fl.err.SetText(msg)
			fl.err.Show()
			ok = false
		} else {
			fl.err.Hide()
		}
	}
	return ok
}

// installChosen adds the entry, the way chosen, with the values given:
// its secrets go to the keychain through the running mcptray, its entry
// (which refers to them by name) to mcptray's config. The new server is
// then shown, and signed in to when it asks.
func (v *window) installChosen(c *catalogueView, f *installForm) {
	if o := f.e.options[f.opt]; o.bundle {
		f.d.Hide()
		v.installFromCatalogue(c, o)
		return
	}
	ok := f.check(v)
	if !ok {
		f.problem.SetText("Fix what is marked above, then press Install again.")
		f.problem.Show()
		f.relayout()
		return
	}
	o := f.e.options[f.opt]
	plan, err := registry.MakePlan(&o.detail, o.prefer, f.values())
	if err != nil {
		var me *registry.MissingError
		if errors.As(err, &me) {
			err = fmt.Errorf("fill in %s", names(missingKeys(me)))
		}
		f.problem.SetText(capitalise(sanitize.Line(err.Error())) + ".")
		f.problem.Show()
		f.relayout()
		return
	}
	f.problem.Hide()
	f.relayout()
	f.install.Disable()
	req := service.AddRequest{Name: f.name.Text, Entry: plan.Entry(), Secrets: plan.Secrets, Registry: &o.detail, Given: plan.Given}
	go func() {
		res, err := v.b.Add(v.ctx, req)
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			if err != nil {
				f.problem.SetText("Not added: " + sanitize.Line(err.Error()))
				f.problem.Show()
				f.relayout()
				f.install.Enable()
				v.done("install")
				return
			}
			f.d.Hide()
			c.d.Hide()
			v.focus(res.Server.Name)
			if res.Note != "" {
				v.showError("Added, but not used", errors.New(sanitize.Line(res.Note)))
			} else if plan.Remote {
				v.signInWhenAsked(res.Server)
			} else if p := res.Package; p != nil {
				// What it runs, pinned as it was added: where it was
				// built, and its install scripts.
				words := "It runs " + sanitize.Line(p.Words) + ".\nPinned by its content: it runs this tree and no other until you update it."
				if p.HiddenWords != "" { // its code's hidden characters first
					words = sanitize.String(p.HiddenWords) + "\n" + words
				}
				dialog.ShowInformation("Added "+sanitize.Line(res.Server.Name), words, v.win)
			}
			v.done("install")
		})
	}()
}

func missingKeys(me *registry.MissingError) []string {
	var out []string
	for _, f := range me.Fields {
		out = append(out, f.Key)
	}
	return out
}

// ownServer reports whether mcptray's own config has a server called name.
func ownServer(s service.Snapshot, name string) bool {
	for _, sv := range s.Servers {
		if sv.Scope == service.User && configName(sv) == name {
			return true
		}
	}
	return false
}
