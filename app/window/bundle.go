package window

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// previewDelay is how long the bundle dialog waits after a change to its
// form before it asks the running mcptray what installing would now do.
const previewDelay = 300 * time.Millisecond

// bundleHelp says, at the top of the bundle dialog, that nothing has run.
const bundleHelp = "Nothing of it has run yet. Read what it is and what it will get, fill in what it asks for, then install it. " +
	"Secrets are kept in your system's keychain, never in a file."

// showBundleChooser asks the person for an MCP Bundle file, then shows
// what installing it would do.
func (v *window) showBundleChooser() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			v.showError("Could not open the file", err)
			return
		}
		if r == nil {
			return // cancelled
		}
		path := r.URI().Path()
		_ = r.Close() // the running mcptray reads it, not the window
		v.openBundle(service.BundleRequest{File: path})
	}, v.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".mcpb", ".dxt"}))
	d.SetTitleText("Install a server from an MCP Bundle (.mcpb)")
	d.SetConfirmText("Open")
	d.Resize(fyne.NewSize(800, 540))
	v.bundleChooser = d
	d.Show()
}

// openBundle asks the running mcptray what the bundle req names is and
// asks for, then shows the install dialog; or says, in words, why it
// cannot be installed.
func (v *window) openBundle(req service.BundleRequest) { v.openBundleThen(req, nil) }

// openBundleThen is openBundle, then calls installed (when not nil) on
// the UI goroutine once the bundle is installed.
func (v *window) openBundleThen(req service.BundleRequest, installed func()) {
	req.Preview = true
	what := bundleLabel(req)
	go func() {
		res, err := v.b.InstallBundle(v.ctx, req)
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			if err != nil {
				v.showError("Cannot install "+what, err)
			} else {
				v.showBundle(req, res, installed)
			}
			v.done("bundle")
		})
	}()
}

// bundleLabel names the bundle req asks about, for a title.
func bundleLabel(req service.BundleRequest) string {
	if req.Registry != nil {
		return sanitize.Line(req.Registry.Name)
	}
	return sanitize.Line(filepath.Base(req.File))
}

// bundleDialog is the one dialog that installs an MCP Bundle: what it is
// and who signed it, its settings, what will run, the folders it gets,
// and the tools and prompts it declares. It asks the running mcptray for
// a new preview whenever the form changes, and installs exactly what the
// last preview showed.
type bundleDialog struct {
	v   *window
	d   *dialog.CustomDialog
	req service.BundleRequest // where the bundle is: File or Registry
	// installed, when not nil, runs once it is installed.
	installed func()

	name     *widget.Entry
	fields   []*bundleField
	runs     *widget.Label
	runsMore *widget.Label
	places   *fyne.Container
	needs    *fyne.Container
	update   *widget.Label
	problem  *widget.Label
	install  *widget.Button
	body     *fyne.Container
	scroll   *container.Scroll

	// shown is the last preview shown, and asked what it was asked with;
	// Install installs asked, once shown is complete and current.
	shown   service.BundleResult
	asked   service.BundleRequest
	current bool // shown is for the form as it is now
	gen     int  // the latest preview asked for
	timer   *time.Timer
	closed  bool
}

// bundleField is one setting the bundle asks for.
type bundleField struct {
	st     service.BundleSetting
	entry  *widget.Entry  // text, a number, paths (one a line when several), a secret
	check  *widget.Check  // a boolean
	write  *widget.Check  // a folder or file setting: it may change them
	choose *widget.Button // a folder or file setting: pick one
	err    *widget.Label
}

// showBundle opens the install dialog for the bundle req names, from
// its first preview res.
func (v *window) showBundle(req service.BundleRequest, res service.BundleResult, installed func()) {
	b := &bundleDialog{v: v, req: req, installed: installed, name: widget.NewEntry(), runs: mono(""), runsMore: wrapped(""),
		places: container.NewVBox(), needs: container.NewVBox(), update: wrapped(""), problem: wrapped("")}
	b.req.Preview, b.req.Name, b.req.Values, b.req.Secrets, b.req.Write = true, "", nil, nil, nil
	b.problem.Importance = widget.DangerImportance
	b.problem.Hide()
	b.update.Hide()
	b.name.SetText(res.Name)
	b.name.OnChanged = func(string) { b.changed() }

	form := widget.NewForm(widget.NewFormItem("Name *", b.name))
	form.Items[0].HintText = "What the server is called in mcptray and in your apps"
	for _, st := range res.Settings {
		fl := b.newField(st)
		b.fields = append(b.fields, fl)
		label := sanitize.Line(cmpOr(st.Title, st.Key))
		if st.Required {
			label += " *"
		}
		item := widget.NewFormItem(label, container.NewVBox(fl.widget(), fl.err))
		item.HintText = settingHint(st)
		form.AppendItem(item)
	}

	b.body = container.NewVBox(bundleAbout(res)...)
	b.body.Add(b.update)
	b.body.Add(b.needs)
	help := wrapped(bundleHelp)
	help.TextStyle.Italic = true
	b.body.Add(help)
	b.body.Add(section("What it asks for"))
	b.body.Add(form)
	b.body.Add(caption("* needed"))
	b.body.Add(section("What will run"))
	b.body.Add(b.runs)
	b.body.Add(b.runsMore)
	b.body.Add(section("Folders and files it gets"))
	b.body.Add(b.places)
	b.body.Objects = append(b.body.Objects, declaredBox("Tools it says it offers", "tools", res.Tools, res.ToolsGenerated)...)
	b.body.Objects = append(b.body.Objects, declaredBox("Prompts it says it offers", "prompts", res.Prompts, res.PromptsGenerated)...)
	b.body.Add(b.problem)
	b.showPreview(b.req, res)

	b.scroll = container.NewVScroll(b.body)
	b.scroll.SetMinSize(fyne.NewSize(600, 420))
	verb := "Install "
	if res.Update != nil {
		verb = "Update "
	}
	b.d = dialog.NewCustomWithoutButtons(verb+sanitize.Line(res.Title), b.scroll, v.win)
	b.install = widget.NewButton(strings.TrimSpace(verb), b.installNow)
	b.install.Importance = widget.HighImportance
	b.d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", b.d.Hide), b.install})
	b.d.SetOnClosed(b.closedNow)
	b.d.Resize(fyne.NewSize(700, 600))
	b.setInstallable()
	v.bundle = b
	b.d.Show()
}

// cmpOr is the first of a and b that is not "".
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// bundleAbout says what the bundle is: its name, version, author,
// description and signature.
func bundleAbout(res service.BundleResult) []fyne.CanvasObject {
	head := widget.NewLabelWithStyle(sanitize.Line(res.Title), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.SizeName = theme.SizeNameSubHeadingText
	facts := []string{"version " + sanitize.Line(res.Bundle.Version)}
	if res.Author != "" {
		facts = append(facts, "by "+sanitize.Line(res.Author))
	}
	if res.Bundle.Source == "registry" {
		facts = append(facts, "from the MCP Registry ("+sanitize.Line(res.Bundle.From)+"), checked against the SHA-256 it lists")
	} else if res.Bundle.From != "" {
		facts = append(facts, "from "+sanitize.Line(res.Bundle.From))
	}
	about := wrapped(strings.Join(facts, " · "))
	out := []fyne.CanvasObject{head, about}
	if res.Description != "" {
		out = append(out, wrapped(sanitize.String(res.Description)))
	}
	sig := wrapped(signatureLine(res.Bundle.Signature))
	sig.TextStyle.Bold = true
	if !strings.HasPrefix(res.Bundle.Signature, "Signed by") || strings.Contains(res.Bundle.Signature, "self-signed") {
		sig.Importance = widget.WarningImportance
	} else {
		sig.Importance = widget.SuccessImportance
	}
	return append(out, sig)
}

// signatureLine says who signed the bundle, and what that proves.
func signatureLine(sig string) string {
	sig = sanitize.Line(sig)
	switch {
	case sig == "" || sig == "Not signed":
		return "Not signed: nothing says who made this file."
	case strings.Contains(sig, "self-signed"):
		return sig + ": the signer vouches for themself; no one else checked who they are."
	}
	return sig
}

// settingHint is the line under a setting: its description, what its
// default is, and where a secret goes.
func settingHint(st service.BundleSetting) string {
	parts := []string{}
	if st.Description != "" {
		parts = append(parts, sanitize.Line(st.Description))
	}
	if st.Multiple {
		parts = append(parts, "one a line")
	}
	switch {
	case st.Sensitive && st.Kept:
		parts = append(parts, "kept in your keychain already: leave it empty to keep it")
	case st.Sensitive:
		parts = append(parts, "kept in your keychain")
	case st.DefaultValue != "" && st.Type != "boolean":
		parts = append(parts, "if left empty: "+sanitize.Line(strings.ReplaceAll(st.DefaultValue, "\n", ", ")))
	}
	return strings.Join(parts, " · ")
}

// newField makes the widget for one setting; every change asks for a new
// preview.
func (b *bundleDialog) newField(st service.BundleSetting) *bundleField {
	fl := &bundleField{st: st, err: wrapped("")}
	fl.err.Importance = widget.DangerImportance
	fl.err.Hide()
	changed := func() { fl.err.Hide(); b.changed() }
	switch {
	case st.Type == "boolean":
		fl.check = widget.NewCheck("Yes", func(bool) { changed() })
		fl.check.Checked = st.DefaultValue == "true"
		return fl
	case st.Sensitive:
		fl.entry = widget.NewPasswordEntry()
	case st.Multiple:
		fl.entry = widget.NewMultiLineEntry()
		fl.entry.SetMinRowsVisible(2)
	default:
		fl.entry = widget.NewEntry()
	}
	if st.DefaultValue != "" {
		fl.entry.SetPlaceHolder(sanitize.Line(strings.ReplaceAll(st.DefaultValue, "\n", ", ")))
	}
	fl.entry.OnChanged = func(string) { changed() }
	if st.Type == "directory" || st.Type == "file" {
		fl.write = widget.NewCheck(writeLabel(st.Type), func(bool) { changed() })
		fl.choose = widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() { b.choosePath(fl) })
	}
	return fl
}

// writeLabel is the words of a path setting's "may change" box.
func writeLabel(kind string) string {
	if kind == "file" {
		return "It may change this file, not only read it"
	}
	return "It may change what is in this folder, not only read it"
}

func (fl *bundleField) widget() fyne.CanvasObject {
	if fl.check != nil {
		return fl.check
	}
	if fl.choose == nil {
		return fl.entry
	}
	return container.NewVBox(container.NewBorder(nil, nil, nil, fl.choose, fl.entry), fl.write)
}

// choosePath lets the person pick the folder or file of fl; with several
// allowed, it adds a line.
func (b *bundleDialog) choosePath(fl *bundleField) {
	set := func(path string) {
		if fl.st.Multiple && strings.TrimSpace(fl.entry.Text) != "" {
			fl.entry.SetText(strings.TrimRight(fl.entry.Text, "\n") + "\n" + path)
			return
		}
		fl.entry.SetText(path)
	}
	if fl.st.Type == "directory" {
		d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				set(u.Path())
			}
		}, b.v.win)
		d.Resize(fyne.NewSize(760, 520))
		b.v.pathChooser = d
		d.Show()
		return
	}
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err == nil && r != nil {
			set(r.URI().Path())
			_ = r.Close()
		}
	}, b.v.win)
	d.Resize(fyne.NewSize(760, 520))
	b.v.pathChooser = d
	d.Show()
}

// request is the settings as the form holds them: the values by key, the
// secrets, the paths it may change, and what cannot be used, in words.
func (b *bundleDialog) request() (service.BundleRequest, bool) {
	req := b.req
	req.Name = strings.TrimSpace(b.name.Text)
	req.Values, req.Secrets = map[string][]string{}, map[string]string{}
	ok := true
	for _, fl := range b.fields {
		st := fl.st
		if fl.check != nil {
			v := strconv.FormatBool(fl.check.Checked)
			if v != st.DefaultValue || !st.Default {
				req.Values[st.Key] = []string{v}
			}
			continue
		}
		var vals []string
		for _, line := range strings.Split(fl.entry.Text, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				vals = append(vals, line)
			}
		}
		if !st.Multiple && len(vals) > 1 {
			vals = []string{strings.TrimSpace(fl.entry.Text)}
		}
		if len(vals) == 0 {
			continue
		}
		if msg := checkSetting(st, vals); msg != "" {
			fl.err.SetText(msg)
			fl.err.Show()
			ok = false
			continue
		}
		if st.Sensitive {
			// A preview needs to know a secret is given, not what it
			// is: its value leaves the window only to be installed.
			if strings.ContainsAny(fl.entry.Text, "\x00\r\n") {
				fl.err.SetText("A secret cannot hold a line break.")
				fl.err.Show()
				ok = false
				continue
			}
			req.Secrets[st.Key] = secretGiven
			continue
		}
		req.Values[st.Key] = vals
		if fl.write != nil && fl.write.Checked {
			req.Write = append(req.Write, st.Key)
		}
	}
	return req, ok
}

// checkSetting says what is wrong with a value the window can tell by
// itself, or "": the running mcptray checks the rest.
func checkSetting(st service.BundleSetting, vals []string) string {
	if st.Type == "number" {
		for _, v := range vals {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return fmt.Sprintf("%s is not a number; write it with digits, like 42 or 2.5.", sanitize.Line(v))
			}
		}
	}
	return ""
}

// changed asks for a new preview once the person pauses.
func (b *bundleDialog) changed() {
	if b.closed || b.install == nil {
		return
	}
	b.current = false
	b.setInstallable()
	b.gen++
	gen := b.gen
	if b.timer != nil {
		b.timer.Stop()
	}
	delay := b.v.previewDelay
	if delay == 0 {
		delay = previewDelay
	}
	b.timer = time.AfterFunc(delay, func() { b.v.do(func() { b.preview(gen) }) })
}

// preview asks the running mcptray what installing with the form as it
// is would do, and shows it, unless the form changed again meanwhile.
func (b *bundleDialog) preview(gen int) {
	if b.closed || gen != b.gen {
		return
	}
	req, ok := b.request()
	if !ok {
		b.problem.SetText("Fix what is marked above.")
		b.problem.Show()
		b.body.Refresh()
		b.v.done("bundle-preview")
		return
	}
	go func() {
		res, err := b.v.b.InstallBundle(b.v.ctx, req)
		if b.v.ctx.Err() != nil {
			return
		}
		b.v.do(func() {
			if !b.closed && gen == b.gen {
				if err != nil {
					b.current = false
					b.problem.SetText(capitalise(sanitize.Line(err.Error())) + ".")
					b.problem.Show()
					b.setInstallable()
					b.body.Refresh()
				} else {
					b.showPreview(req, res)
				}
			}
			b.v.done("bundle-preview")
		})
	}()
}

// showPreview shows what installing with req would do, as res says.
func (b *bundleDialog) showPreview(req service.BundleRequest, res service.BundleResult) {
	b.shown, b.asked, b.current = res, req, true
	b.problem.Hide()
	b.problem.Importance = widget.DangerImportance
	if len(res.Missing) > 0 {
		b.runs.SetText("")
		b.runs.Hide()
		b.runsMore.SetText("Fill in " + b.titles(res.Missing) + " to see the exact command it will run.")
		b.problem.SetText("It needs " + b.titles(res.Missing) + " before it can be installed.")
		b.problem.Importance = widget.WarningImportance
		b.problem.Show()
	} else {
		b.runs.SetText(commandLine(res.Command, res.Args))
		b.runs.Show()
		b.runsMore.SetText(runsMore(res))
	}
	b.places.Objects = placesOf(res, b.fields)
	b.places.Refresh()
	b.needs.Objects = nil
	for _, n := range res.Needs {
		l := wrapped("It " + sanitize.Line(strings.TrimPrefix(n, "it ")) + ".")
		l.Importance = widget.WarningImportance
		b.needs.Add(l)
	}
	b.needs.Refresh()
	if u := res.Update; u != nil {
		text := fmt.Sprintf("You have version %s of it as %s; installing this one updates it and keeps its secrets.", sanitize.Line(u.From), sanitize.Line(res.Name))
		if len(u.Changes) > 0 {
			text += " What it says it offers changed: " + sanitize.Line(strings.Join(u.Changes, "; ")) + "."
		}
		b.update.SetText(text)
		b.update.Show()
	} else {
		b.update.Hide()
	}
	b.setInstallable()
	b.body.Refresh()
}

// titles names settings by their titles.
func (b *bundleDialog) titles(keys []string) string {
	var out []string
	for _, k := range keys {
		i := slices.IndexFunc(b.fields, func(fl *bundleField) bool { return fl.st.Key == k })
		if i >= 0 && b.fields[i].st.Title != "" {
			out = append(out, sanitize.Line(b.fields[i].st.Title))
		} else {
			out = append(out, sanitize.Line(k))
		}
	}
	return strings.Join(out, ", ")
}

// runsMore says where the command runs, its environment's names and the
// secrets it is given.
func runsMore(res service.BundleResult) string {
	lines := []string{"in " + sanitize.Line(res.Cwd) + " (its own files, which it may read but not change)"}
	if len(res.EnvNames) > 0 {
		lines = append(lines, "with the settings "+names(res.EnvNames)+" in its environment")
	}
	if len(res.SecretNames) > 0 {
		lines = append(lines, "given "+names(res.SecretNames)+" from your keychain")
	}
	return capitalise(strings.Join(lines, ", ")) + "."
}

// placesOf says which folders and files the server gets, and what it may
// do with each: as the service said, or, while it still lacks a setting
// (and so said no more), as the form holds them.
func placesOf(res service.BundleResult, fields []*bundleField) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	line := func(path, access string) {
		p := widget.NewLabelWithStyle(sanitize.Line(path), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		p.Wrapping = fyne.TextWrapBreak
		out = append(out, container.NewBorder(nil, nil, nil, widget.NewLabel(access), p))
	}
	for _, p := range res.Read {
		line(p, "read only")
	}
	for _, p := range res.Write {
		line(p, "read and change")
	}
	for _, fl := range fields {
		if len(res.Missing) == 0 || fl.st.Sensitive || fl.st.Type != "directory" && fl.st.Type != "file" {
			continue
		}
		access := "read only"
		if fl.write.Checked {
			access = "read and change"
		}
		given := false
		for _, p := range strings.Split(fl.entry.Text, "\n") {
			if p = strings.TrimSpace(p); p != "" {
				line(p, access)
				given = true
			}
		}
		if !given && fl.st.Required {
			what := "the folder"
			if fl.st.Type == "file" {
				what = "the file"
			}
			out = append(out, wrapped(fmt.Sprintf("%s you choose for %s, to read (or change, if you tick the box).", capitalise(what), sanitize.Line(cmpOr(fl.st.Title, fl.st.Key)))))
		}
	}
	if len(out) == 0 {
		out = append(out, wrapped("None of yours: only its own files."))
	} else {
		out = append(out, wrapped("Nothing else of your home folder: its sandbox keeps it out."))
	}
	return out
}

// declaredBox lists the tools or prompts a bundle declares, each with
// what reads as orders to the AI.
func declaredBox(title, what string, list []service.Declared, generated bool) []fyne.CanvasObject {
	if len(list) == 0 && !generated {
		return nil
	}
	out := []fyne.CanvasObject{section(title)}
	flagged := false
	for _, d := range list {
		name := widget.NewLabelWithStyle(sanitize.Line(d.Name), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		out = append(out, name)
		if d.Description != "" {
			out = append(out, indent(wrapped(sanitize.String(d.Description))))
		}
		if len(d.Flags) > 0 {
			flagged = true
			// The review's words (review.go), for a prompt as for a tool.
			text := strings.TrimPrefix(flagText(d.Flags), flaggedIntro+"\n")
			l := wrapped("Its description gives the AI instructions:\n" + text)
			l.Importance = widget.DangerImportance
			out = append(out, indent(l))
		}
	}
	if generated {
		out = append(out, wrapped(fmt.Sprintf("And %s it makes up as it runs: each is held for you to review before your apps see it.", what)))
	}
	if flagged {
		l := wrapped("What is marked in red reads as orders to the AI: mcptray will ask you before each call of such a tool.")
		l.Importance = widget.WarningImportance
		out = append(out, l)
	}
	pinned := wrapped(fmt.Sprintf("These are pinned as you see them: if it offers other %s when it runs, they are held for you to review.", what))
	pinned.TextStyle.Italic = true
	out = append(out, pinned)
	return out
}

// setInstallable lets Install be pressed once what is shown is what
// installing would do, and it lacks nothing.
func (b *bundleDialog) setInstallable() {
	if b.install == nil {
		return
	}
	if b.current && len(b.shown.Missing) == 0 && b.shown.Command != "" {
		b.install.Enable()
	} else {
		b.install.Disable()
	}
}

// installNow installs what the last preview showed: the running mcptray
// refuses a bundle that changed since.
func (b *bundleDialog) installNow() {
	if !b.current || len(b.shown.Missing) > 0 {
		return
	}
	req := b.asked
	req.Preview, req.SHA256 = false, b.shown.Bundle.SHA256
	req.Secrets = map[string]string{}
	for k := range b.asked.Secrets {
		if fl := b.fieldOf(k); fl != nil {
			req.Secrets[k] = fl.entry.Text
		}
	}
	b.install.Disable()
	v := b.v
	go func() {
		res, err := v.b.InstallBundle(v.ctx, req)
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			if err != nil {
				b.problem.SetText("Not installed: " + sanitize.Line(err.Error()))
				b.problem.Importance = widget.DangerImportance
				b.problem.Show()
				b.body.Refresh()
				b.setInstallable()
				v.done("install")
				return
			}
			b.d.Hide()
			if b.installed != nil {
				b.installed()
			}
			v.focus(res.Name)
			if res.Server != nil && res.Server.Suppressed != "" {
				v.showError("Installed, but not used", errors.New(sanitize.Line(res.Server.Suppressed)))
			}
			v.done("install")
		})
	}()
}

// closedNow forgets what was typed: no secret stays in a closed form.
func (b *bundleDialog) closedNow() {
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
	for _, fl := range b.fields {
		if fl.st.Sensitive && fl.entry != nil {
			fl.entry.SetText("")
		}
	}
}

// secretGiven stands for a secret's value in a preview.
const secretGiven = "(given)"

// fieldOf is the field of the setting key, or nil.
func (b *bundleDialog) fieldOf(key string) *bundleField {
	for _, fl := range b.fields {
		if fl.st.Key == key {
			return fl
		}
	}
	return nil
}
