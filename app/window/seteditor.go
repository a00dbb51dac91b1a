package window

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// The set editor: a set's name, its servers and, per server, all its
// tools or only some; each tool's permission and hiding in this set, which
// fall back to the general settings (a server's page) unless the set says
// otherwise; whether servers added later join it; and Remove set…, which
// asks first, saying which apps have the set and what they get after.

// The words of the set editor.
const (
	allServerTools = "All of this server's tools"
	hideInSet      = "Hide"
	setEditorWords = "Tick the servers this set gives. A server gives all its tools, or only those you tick. " +
		"Each tool is allowed, asked about or blocked as in the general settings (each server's page) unless you choose otherwise here."
)

// setEditor is the open New set or Edit set dialog, for tests.
type setEditor struct {
	from       string // the set's name before, "" for a new set
	d          *dialog.CustomDialog
	name       *widget.Entry
	findField  *widget.Entry          // Find a server or tool (setfind.go)
	findClear  *widget.Button         // its button that clears it
	none       *widget.Label          // that nothing matches what is typed there
	list       *fyne.Container        // each server's heading, then its part
	body       *fyne.Container        // the words, the list and New servers too
	scroll     *container.Scroll      // around the list
	servers    map[string]*serverPick // by the server's name
	newServers *widget.Check
	save       *widget.Button
	remove     *widget.Button // nil for a new set
	// removeWords are what Remove set… asks; removeAnswer answers it.
	removeWords  string
	removeAnswer func(bool)
}

// serverPick is one server in the set editor.
type serverPick struct {
	in    *widget.Check // the set gives it, whole or some of its tools; its heading
	all   *widget.Check // all of its tools
	tools map[string]*toolPick
	order []string        // its tools' names, as shown
	box   *fyne.Container // all, then its tools' rows: shown while it is ticked
	hint  *widget.Label   // how many of its tools match, while it is not ticked
	under *fyne.Container // what lies under its heading: hint and box
	// changed lays the editor out again once what it shows has changed.
	changed func()
	// What the find field found (setfind.go): text is its name in lower
	// case; finding, while something is typed; whole, when its name holds
	// it; matched, its tools shown.
	text           string
	finding, whole bool
	matched        int
}

// toolPick is one tool of a server in the set editor.
type toolPick struct {
	qualified string
	held      *widget.Check  // the set gives it (when not all)
	perm      *widget.Select // the general setting first, then Allow, Ask, Block
	general   string         // the general setting's option
	hide      *widget.Check
	row       *fyne.Container // its line, then what it says of itself when that is why it was found
	// text is its name and aboutText its titles and description, in lower
	// case, for the find field; aboutShown, those as shown; about, their
	// label, made the first time the find field shows it (setfind.go).
	text, aboutText, aboutShown string
	about                       *widget.Label
}

// generalWord is the permission option that falls back to the general
// setting p: "As in general: Ask".
func generalWord(p service.Permission) string { return "As in general: " + permissionWord(p) }

// generalPermission is what the gateway does with the tool t of sv for
// every app: the person's choice, or allowed when its server says it only
// reads (and it is not flagged), or asked.
func generalPermission(rules service.GatewayRules, sv service.Server, t tools.Tool) service.Permission {
	if p, ok := rules.Permissions[t.QualifiedName]; ok {
		return p
	}
	if t.Hints.ReadOnly == tools.HintTrue && !sv.Review.Flagged(t.Name) {
		return service.Allow
	}
	return service.Ask
}

// widestGeneral is the widest of the general settings' options.
func widestGeneral() string {
	widest, w := "", float32(0)
	for _, p := range []service.Permission{service.Allow, service.Ask, service.Block} {
		if m := fyne.MeasureText(generalWord(p), theme.TextSize(), fyne.TextStyle{}).Width; m > w {
			widest, w = generalWord(p), m
		}
	}
	return widest
}

// showSetEditor opens the set editor: for the set named from, or a new
// set when from is "".
func (v *window) showSetEditor(from string) {
	a := v.apps
	if a == nil {
		return
	}
	var set service.SetView
	if from != "" && a.sets != nil {
		for _, s := range a.sets.Sets {
			if s.Name == from {
				set = s
			}
		}
	}
	e := &setEditor{from: from, name: widget.NewEntry(), servers: map[string]*serverPick{},
		newServers: widget.NewCheck("Servers added later join it too", nil)}
	e.name.SetPlaceHolder("Work")
	e.name.SetText(from)
	e.newServers.SetChecked(set.NewServers)
	// Each container is made with what it holds, not added to one by one:
	// each Add lays the container out again, thousands of rows each time.
	var list []fyne.CanvasObject
	for _, sv := range v.snap.Servers {
		if sv.BuiltIn() || sv.Suppressed != "" {
			continue
		}
		p := v.serverPick(sv, set)
		p.changed = e.relayout
		e.servers[sv.Name] = p
		list = append(list, p.in, p.under)
	}
	if len(e.servers) == 0 {
		list = append(list, wrappedCaption("mcptray has no servers yet: add one first."))
	}
	e.none = wrappedCaption("")
	e.none.Hide()
	e.list = container.NewVBox(append(list, e.none)...)
	e.findField, e.findClear = newFindField(e)
	// The name and the find field stay in sight above the servers, however
	// far down the person has scrolled.
	top := container.NewVBox(widget.NewForm(widget.NewFormItem("Name", e.name)), e.findField)
	e.body = container.NewVBox(wrappedCaption(setEditorWords), e.list, e.newServers)
	e.scroll = container.NewVScroll(clearOfScrollBar(e.body))
	title := "New set"
	if from != "" {
		title = "Edit the " + sanitize.Line(from) + " set"
	}
	// The servers join the dialog once it has its buttons and size, just
	// before it shows: each of those redraws all it holds, which with
	// thousands of rows takes seconds.
	servers := container.NewStack()
	e.d = dialog.NewCustomWithoutButtons(title, container.NewBorder(top, nil, nil, nil, servers), v.win)
	cancel := widget.NewButton("Cancel", func() { e.d.Hide() })
	e.save = widget.NewButton("Save", func() { v.saveSet(e) })
	e.save.Importance = widget.HighImportance
	buttons := []fyne.CanvasObject{cancel, e.save}
	if from != "" {
		e.remove = widget.NewButtonWithIcon("Remove set…", theme.DeleteIcon(), func() { v.askRemoveSet(e, set) })
		e.remove.Importance = widget.DangerImportance
		buttons = append([]fyne.CanvasObject{e.remove}, buttons...)
	}
	e.d.SetButtons(buttons)
	e.d.SetOnClosed(func() {
		if a.setEditor == e {
			a.setEditor = nil
		}
	})
	a.setEditor = e
	e.d.Resize(fyne.NewSize(600, 560))
	servers.Objects = []fyne.CanvasObject{e.scroll}
	e.d.Show()
	// Typing goes where it is wanted first: a new set's name, or the find
	// field of a set that has one.
	if from == "" {
		v.win.Canvas().Focus(e.name)
	} else {
		v.win.Canvas().Focus(e.findField)
	}
}

// serverPick is sv's part of the set editor, as set has it.
func (v *window) serverPick(sv service.Server, set service.SetView) *serverPick {
	whole := slices.Contains(set.Servers, sv.Name) || slices.Contains(set.Joined, sv.Name)
	p := &serverPick{tools: map[string]*toolPick{}, hint: caption(""), changed: func() {}}
	p.in = widget.NewCheck(sanitize.Line(sv.Name), nil)
	p.text = strings.ToLower(p.in.Text)
	p.hint.Hide()
	p.all = widget.NewCheck(allServerTools, nil)
	p.all.SetChecked(whole || set.Name == "")
	rows := []fyne.CanvasObject{p.all}
	known := map[string]tools.Tool{}
	for _, t := range sv.Tools {
		if t.QualifiedName != "" && !slices.Contains(p.order, t.Name) {
			known[t.Name] = t
			p.order = append(p.order, t.Name)
		}
	}
	for _, ref := range set.Tools {
		if srv, tool, ok := strings.Cut(ref, "/"); ok && srv == sv.Name && !slices.Contains(p.order, tool) {
			known[tool] = tools.Tool{Name: tool, QualifiedName: tools.QualifiedName(sv.Name, tool)}
			p.order = append(p.order, tool)
		}
	}
	if len(sv.Tools) == 0 {
		rows = append(rows, wrappedCaption("Not connected now: its tools show here once it is."))
	}
	some := false
	for _, name := range p.order {
		t := known[name]
		held := slices.Contains(set.Tools, sv.Name+"/"+name)
		some = some || held
		p.tools[name] = v.toolPick(sv, t, set, held)
		tp := p.tools[name]
		tp.row = container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(tp.perm, tp.hide), tp.held))
		rows = append(rows, tp.row)
	}
	p.box = container.NewVBox(rows...)
	p.under = container.NewPadded(container.NewVBox(p.hint, p.box))
	p.in.SetChecked(whole || some)
	p.all.OnChanged = func(on bool) {
		if !on {
			for _, tp := range p.tools {
				tp.held.SetChecked(false)
			}
		}
		p.show()
	}
	p.in.OnChanged = func(bool) {
		p.show()
		p.changed()
	}
	p.show()
	return p
}

// show shows the server's tools while it is ticked, each enabled unless
// it gives all of them; and, while the find field finds some of them in a
// server not ticked, how many.
func (p *serverPick) show() {
	for _, tp := range p.tools {
		if p.all.Checked {
			tp.held.SetChecked(true)
			tp.held.Disable()
		} else {
			tp.held.Enable()
		}
	}
	if p.in.Checked {
		p.box.Show()
	} else {
		p.box.Hide()
	}
	if p.finding && !p.whole && !p.in.Checked && p.matched > 0 {
		p.hint.SetText(matchWords(p.matched, p.in.Text))
		p.hint.Show()
	} else {
		p.hint.Hide()
	}
}

// toolPick is the tool t's row in the set editor: whether the set gives
// it, its permission in the set, and whether the set hides it.
func (v *window) toolPick(sv service.Server, t tools.Tool, set service.SetView, held bool) *toolPick {
	q := t.QualifiedName
	tp := &toolPick{qualified: q, general: generalWord(generalPermission(v.snap.Gateway, sv, t))}
	tp.held = widget.NewCheck(sanitize.Line(t.Name), nil)
	tp.text = strings.ToLower(tp.held.Text)
	tp.aboutShown = toolAbout(t)
	tp.aboutText = strings.ToLower(tp.aboutShown)
	tp.held.SetChecked(held)
	tp.perm = widget.NewSelect(append([]string{tp.general}, permissionWords...), nil)
	tp.perm.PlaceHolder = widestGeneral() // its width: one column, whatever the option
	if own, ok := set.Permissions[q]; ok {
		tp.perm.SetSelected(permissionWord(own))
	} else {
		tp.perm.SetSelected(tp.general)
	}
	tp.hide = widget.NewCheck(hideInSet, nil)
	switch {
	case v.snap.Gateway.Hides(sv.Name, q):
		tp.hide.SetText("Hidden for every app")
		tp.hide.SetChecked(true)
		tp.hide.Disable()
	case slices.Contains(set.Hidden, q):
		tp.hide.SetChecked(true)
	}
	return tp
}

// request is the set the editor shows, as a change: its rules say each
// shown tool's permission and hiding, and leave those of tools not shown
// as they were.
func (e *setEditor) request(servers []service.Server) service.SetRequest {
	req := service.SetRequest{Name: strings.TrimSpace(e.name.Text), NewServers: e.newServers.Checked, From: e.from,
		Rules: &service.SetRules{Permissions: map[string]service.Permission{}}}
	for _, sv := range servers {
		p := e.servers[sv.Name]
		if p == nil {
			continue
		}
		if p.in.Checked && p.all.Checked {
			req.Servers = append(req.Servers, sv.Name)
		}
		for _, name := range p.order {
			tp := p.tools[name]
			if p.in.Checked && !p.all.Checked && tp.held.Checked {
				req.Tools = append(req.Tools, sv.Name+"/"+name)
			}
			req.Rules.Permissions[tp.qualified] = ""
			if perm, ok := permissionOf[tp.perm.Selected]; ok {
				req.Rules.Permissions[tp.qualified] = perm
			}
			switch {
			case tp.hide.Disabled(): // hidden for every app: the set says nothing
			case tp.hide.Checked:
				req.Rules.Hide = append(req.Rules.Hide, tp.qualified)
			default:
				req.Rules.Show = append(req.Rules.Show, tp.qualified)
			}
		}
	}
	return req
}

// saveSet saves the editor's set; the editor stays open, saying why, when
// mcptray refuses it, and what it could not check is shown after.
func (v *window) saveSet(e *setEditor) {
	req := e.request(v.snap.Servers)
	if req.Name == "" {
		v.showError("Couldn't save the set", fmt.Errorf("the set needs a name"))
		return
	}
	g := v.b
	e.save.Disable()
	v.appsWork.Add(1)
	go func() {
		defer v.appsWork.Done()
		sv, err := g.PutSet(v.ctx, req)
		if v.ctx.Err() != nil {
			return // the window is closing
		}
		v.do(func() {
			e.save.Enable()
			if err != nil {
				v.showError("Couldn't save the set", err)
			} else {
				e.d.Hide()
				// What the saved set risks, in the guard's words, and what
				// mcptray could not check.
				var said []string
				for _, set := range sv.Sets {
					if set.Name == req.Name && set.Warning != "" {
						said = append(said, capitalise(sanitize.Line(set.Warning))+".")
					}
				}
				if len(sv.Warnings) > 0 {
					said = append(said, capitalise(sanitize.Line(strings.Join(sv.Warnings, "; ")))+".")
				}
				if len(said) > 0 {
					msg := wrapped(strings.Join(said, " "))
					d := dialog.NewCustom("The set is saved", "OK", msg, v.win)
					d.Resize(fyne.NewSize(440, 0))
					d.Show()
				}
				v.reloadApps()
			}
			v.done("action")
		})
	}()
}

// removeSetWords say what removing set does: which apps have it, and
// what they get after.
func removeSetWords(set service.SetView, tray bool) string {
	name := sanitize.Line(set.Name)
	words := fmt.Sprintf("Remove the %s set?", name)
	switch len(set.Apps) {
	case 0:
		words += " No app gets it now."
	default:
		words += fmt.Sprintf(" %s %s it now; after, %s every server, until you give %s another set.",
			sanitize.Line(joinAnd(set.Apps)), verb(len(set.Apps), "gets", "get"), verb(len(set.Apps), "it gets", "they get"), verb(len(set.Apps), "it", "them"))
	}
	if tray {
		words += " It is the tray's set: the apps that follow the tray get every server."
	}
	return words
}

// verb is one when n is 1, else many.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// appName is the name people know the app of key by.
func (a *appsView) appName(key string) string {
	for _, app := range a.apps {
		if app.Key == key {
			return app.Name
		}
	}
	return key
}

// askRemoveSet asks whether to remove the editor's set, saying which apps
// have it and what they get after, and removes it when told.
func (v *window) askRemoveSet(e *setEditor, set service.SetView) {
	tray := v.apps != nil && v.apps.sets != nil && v.apps.sets.Tray == set.Name
	named := set
	named.Apps = nil
	for _, key := range set.Apps {
		named.Apps = append(named.Apps, v.apps.appName(key))
	}
	e.removeWords = removeSetWords(named, tray)
	e.removeAnswer = func(ok bool) {
		if !ok {
			return
		}
		name := set.Name
		v.actThen("Couldn't remove the set", func(ctx context.Context) error {
			_, err := v.b.RemoveSet(ctx, name)
			return err
		}, v.reloadApps)
		e.d.Hide()
	}
	d := dialog.NewCustomConfirm("Remove the set", "Remove", "Keep it", wrapped(e.removeWords), e.removeAnswer, v.win)
	d.Resize(fyne.NewSize(440, 0))
	d.Show()
}
