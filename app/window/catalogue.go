package window

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// searchDelay is how long the catalogue waits after a keystroke before it
// searches: typing "weather" searches once, not seven times.
const searchDelay = 300 * time.Millisecond

// catalogueLoading is what the catalogue says until its first results.
const catalogueLoading = "Reading the MCP Registry's list of servers… The first time takes a few seconds."

// catalogueHelp is what the catalogue says before anything is chosen.
const catalogueHelp = "Choose a server on the left to see what it does, what it runs and what it asks for."

// hasRuntime reports whether program (npx, uvx…) is installed here.
func (v *window) hasRuntime(program string) bool {
	if v.installed != nil {
		return v.installed(program)
	}
	return registry.Installed(program, runtime.GOOS, os.LookupEnv)
}

// badge is one fact a catalogue entry shows at a glance.
type badge struct {
	text string
	kind widget.Importance
}

// runOption is one way to run a catalogue entry: one of its packages on
// this computer, or one of its remotes.
type runOption struct {
	label string
	// detail is the entry narrowed to this one way, for MakePlan.
	detail registry.ServerDetail
	prefer registry.Prefer
	// plan is what it would add with defaults only: Fields complete,
	// required values missing. nil for a bundle.
	plan *registry.Plan
	// bundle says it is an MCP Bundle (detail's one package): the bundle
	// dialog installs it, once the running mcptray has downloaded and
	// checked it, with what its manifest says.
	bundle bool
	// missingRuntime is the runtime it needs and this computer lacks.
	missingRuntime string
}

// catalogueEntry is one server the catalogue lists.
type catalogueEntry struct {
	resp    registry.Response
	summary registry.Summary
	options []runOption
	badges  []badge
}

// entryOf sums r up for the catalogue; installed says whether a runtime
// is on this computer.
func entryOf(r registry.Response, installed func(string) bool) catalogueEntry {
	e := catalogueEntry{resp: r, summary: registry.Summarize(&r.Server), options: optionsOf(&r.Server)}
	for i := range e.options {
		if o := &e.options[i]; o.plan != nil && o.plan.Runtime != "" && !installed(o.plan.Runtime) {
			o.missingRuntime = o.plan.Runtime
		}
	}
	e.badges = badgesOf(e)
	return e
}

// optionsOf lists the ways mcptray can run d: each package it can run,
// then each remote it can reach, in the order MakePlan prefers them.
func optionsOf(d *registry.ServerDetail) []runOption {
	var out []runOption
	var locals, remotes []runOption
	for _, p := range d.Packages {
		n := *d
		n.Packages, n.Remotes = []registry.Package{p}, nil
		if p.RegistryType == registry.BundleType {
			if _, err := registry.BundlePackage(&n); err == nil {
				locals = append(locals, runOption{label: "On this computer, from its MCP Bundle", detail: n, prefer: registry.PreferLocal, bundle: true})
			}
			continue
		}
		plan, ok := defaultPlan(&n, registry.PreferLocal)
		if !ok {
			continue
		}
		label := "On this computer, with " + plan.Runtime
		locals = append(locals, runOption{label: label, detail: n, prefer: registry.PreferLocal, plan: plan})
	}
	if len(locals) > 1 {
		for i := range locals {
			p := locals[i].detail.Packages[0]
			locals[i].label += " (" + sanitize.Line(p.RegistryType) + " package " + sanitize.Line(p.Identifier) + ")"
		}
	}
	for _, r := range d.Remotes {
		n := *d
		n.Packages, n.Remotes = nil, []registry.Remote{r}
		plan, ok := defaultPlan(&n, registry.PreferRemote)
		if !ok {
			continue
		}
		remotes = append(remotes, runOption{label: "Online, at " + sanitize.Line(r.URL), detail: n, prefer: registry.PreferRemote, plan: plan})
	}
	out = append(out, locals...)
	out = append(out, remotes...)
	// The person chooses by label: two ways must not read the same.
	seen := map[string]int{}
	for i := range out {
		if seen[out[i].label]++; seen[out[i].label] > 1 {
			out[i].label += fmt.Sprintf(" (%d)", seen[out[i].label])
		}
	}
	return out
}

// defaultPlan is MakePlan with no values given; ok is false when mcptray
// cannot install d that way at all.
func defaultPlan(d *registry.ServerDetail, prefer registry.Prefer) (*registry.Plan, bool) {
	plan, err := registry.MakePlan(d, prefer, nil)
	var me *registry.MissingError
	if err != nil && !errors.As(err, &me) {
		return nil, false
	}
	return plan, true
}

// badgesOf says at a glance where e runs, whether it needs a key, and what
// this computer lacks for it.
func badgesOf(e catalogueEntry) []badge {
	var out []badge
	local, remote := false, false
	missing := ""
	for _, o := range e.options {
		if o.prefer == registry.PreferRemote {
			remote = true
		} else {
			local = true
			if o.missingRuntime != "" && missing == "" {
				missing = o.missingRuntime
			}
		}
	}
	if len(e.options) == 0 {
		return []badge{{"Cannot be installed", widget.DangerImportance}}
	}
	if local {
		out = append(out, badge{"Runs on this computer", widget.MediumImportance})
	}
	if remote {
		out = append(out, badge{"Online service", widget.MediumImportance})
	}
	if e.summary.NeedsKeys {
		out = append(out, badge{"Needs a key", widget.WarningImportance})
	}
	if missing != "" {
		out = append(out, badge{"Needs " + missing + " — not installed", widget.DangerImportance})
	}
	return out
}

// catalogueView is the "Find servers" dialog: a search box, the servers
// that match, and the one chosen.
type catalogueView struct {
	v       *window
	d       *dialog.CustomDialog
	ctx     context.Context // ends when the dialog closes
	cancel  context.CancelFunc
	search  *widget.Entry
	note    *widget.Label // the catalogue is offline, or nothing matches
	message *widget.Label // the registry cannot be reached, with no copy here
	retry   *widget.Button
	list    *widget.List
	detail  *fyne.Container
	install *widget.Button

	entries []catalogueEntry
	sel     int // the chosen entry, or -1
	query   string
	form    *installForm // the install form on show, or nil

	delay time.Duration
	timer *time.Timer
	gen   atomic.Int64 // the latest search asked for; older results are dropped
	// searches counts the searches made, for tests.
	searches atomic.Int64

	mu sync.Mutex // one search at a time, off the UI goroutine
}

// showCatalogue opens the "Find servers" dialog and lists the whole
// catalogue.
func (v *window) showCatalogue() {
	c := &catalogueView{v: v, sel: -1, delay: v.catalogueDelay}
	if c.delay == 0 {
		c.delay = searchDelay
	}
	c.ctx, c.cancel = context.WithCancel(v.ctx)
	c.search = widget.NewEntry()
	c.search.SetPlaceHolder("Search by name or by what it does: weather, calendar, github…")
	c.search.OnChanged = c.changed
	c.note = wrapped("")
	c.note.Importance = widget.WarningImportance
	c.note.Hide()
	c.message = wrapped(catalogueLoading)
	c.retry = widget.NewButton("Try again", func() { c.ask(c.search.Text, 0) })
	msgBox := container.NewVBox(c.message, container.NewHBox(c.retry))
	c.retry.Hide()

	c.list = widget.NewList(func() int { return len(c.entries) }, newCatalogueRow,
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(c.entries) {
				updateCatalogueRow(o, c.entries[id])
			}
		})
	c.list.OnSelected = func(id widget.ListItemID) { c.choose(id) }
	c.install = widget.NewButtonWithIcon("Install…", theme.DownloadIcon(), func() {
		if c.sel < 0 {
			return
		}
		e := c.entries[c.sel]
		if len(e.options) == 1 && e.options[0].bundle {
			c.v.installFromCatalogue(c, e.options[0])
			return
		}
		c.v.showInstall(c, e)
	})
	c.install.Importance = widget.HighImportance
	c.install.Disable()
	c.detail = container.NewVBox(wrapped(catalogueHelp))
	right := container.NewBorder(nil, container.NewHBox(c.install), nil, nil, container.NewVScroll(c.detail))
	split := container.NewHSplit(container.NewStack(c.list, msgBox), right)
	split.Offset = 0.45
	top := container.NewVBox(c.search, c.note)
	body := container.NewBorder(top, nil, nil, nil, split)

	c.d = dialog.NewCustomWithoutButtons("Find servers in the MCP Registry", body, v.win)
	c.d.SetButtons([]fyne.CanvasObject{widget.NewButton("Close", c.d.Hide)})
	c.d.SetOnClosed(func() {
		if c.timer != nil {
			c.timer.Stop()
		}
		c.cancel()
	})
	c.d.Resize(fyne.NewSize(900, 580))
	v.catalogue = c
	c.d.Show()
	v.win.Canvas().Focus(c.search)
	c.ask("", 0)
}

// changed searches for what the person typed, once they pause.
func (c *catalogueView) changed(text string) { c.ask(text, c.delay) }

// ask searches for query after delay, dropping any search asked before.
func (c *catalogueView) ask(query string, delay time.Duration) {
	gen := c.gen.Add(1)
	if c.timer != nil {
		c.timer.Stop()
	}
	c.timer = time.AfterFunc(delay, func() { c.run(gen, query) })
}

// run searches off the UI goroutine and shows what it found, unless a
// newer search was asked for meanwhile.
func (c *catalogueView) run(gen int64, query string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen || c.ctx.Err() != nil {
		return
	}
	// The running mcptray asks the registry and keeps its catalogue.
	c.searches.Add(1)
	res, err := c.v.b.SearchCatalogue(c.ctx, query)
	if c.ctx.Err() != nil {
		return
	}
	// Each runtime is looked for once a search, on disk: off the UI
	// goroutine.
	have := map[string]bool{}
	installed := func(rt string) bool {
		if ok, known := have[rt]; known {
			return ok
		}
		have[rt] = c.v.hasRuntime(rt)
		return have[rt]
	}
	var entries []catalogueEntry
	for _, r := range res.Servers {
		entries = append(entries, entryOf(r, installed))
	}
	if res.Note != "" {
		c.v.log.Info("the registry cannot be reached; searching the copy kept here", "note", res.Note)
	}
	c.v.do(func() {
		if c.gen.Load() == gen {
			c.show(query, res, entries, err)
			c.v.done("search")
		}
	})
}

// show lists what a search found, or says why it found nothing.
func (c *catalogueView) show(query string, res service.CatalogueResult, entries []catalogueEntry, err error) {
	chosen := ""
	if c.sel >= 0 && c.sel < len(c.entries) {
		chosen = c.entries[c.sel].resp.Server.Name
	}
	c.query, c.entries = query, entries
	c.list.UnselectAll()
	c.list.Refresh()
	c.sel = -1
	c.message.Hide()
	c.retry.Hide()
	c.note.Hide()
	switch {
	case err != nil || res.Unreachable != "":
		c.message.SetText(unreachableText(res, err))
		c.message.Show()
		c.retry.Show()
	case len(entries) == 0 && strings.TrimSpace(query) != "":
		c.note.SetText(fmt.Sprintf("No server in the registry matches “%s”. Try fewer words, or other ones.", sanitize.Line(query)))
		c.note.Importance = widget.MediumImportance
		c.note.Show()
	case res.Note != "":
		c.note.SetText(fmt.Sprintf("The MCP Registry cannot be reached just now, so these are the servers it listed on %s, "+
			"from the copy kept on this computer. Check your internet connection to see the newest.",
			res.Checked.Local().Format("2 January 2006 at 15:04")))
		c.note.Importance = widget.WarningImportance
		c.note.Show()
	}
	for i, e := range entries {
		if e.resp.Server.Name == chosen {
			c.list.Select(i)
			return
		}
	}
	c.choose(-1)
}

// unreachableText says, with what to do, why the catalogue cannot be shown.
func unreachableText(res service.CatalogueResult, err error) string {
	if err == nil {
		return fmt.Sprintf("mcptray cannot reach the MCP Registry at %s, and has no copy of its list on this computer yet.\n\n"+
			"Check your internet connection, then press Try again.", sanitize.Line(res.Unreachable))
	}
	return "mcptray cannot show the MCP Registry's list: " + sanitize.Line(err.Error()) + "."
}

// choose shows entry id (or nothing, for -1) in the details pane.
func (c *catalogueView) choose(id int) {
	if id < 0 || id >= len(c.entries) {
		c.sel = -1
		c.detail.Objects = []fyne.CanvasObject{wrapped(catalogueHelp)}
		c.detail.Refresh()
		c.install.Disable()
		return
	}
	c.sel = id
	e := c.entries[id]
	c.detail.Objects = entryDetails(e)
	c.detail.Refresh()
	if len(e.options) > 0 {
		c.install.Enable()
	} else {
		c.install.Disable()
	}
}

// entryDetails shows one entry: what it is, where it comes from, each way
// it runs, and the values it asks for.
func entryDetails(e catalogueEntry) []fyne.CanvasObject {
	d := &e.resp.Server
	title := sanitize.Line(d.Title)
	if title == "" {
		title = sanitize.Line(d.Name)
	}
	head := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.SizeName = theme.SizeNameSubHeadingText
	id := sanitize.Line(d.Name)
	if d.Version != "" {
		id += " · version " + sanitize.Line(d.Version)
	}
	out := []fyne.CanvasObject{head, caption(id), badgeRow(e.badges)}
	if d.Description != "" {
		out = append(out, wrapped(sanitize.String(d.Description)))
	}
	if l := link("Website", d.WebsiteURL); l != nil {
		out = append(out, l)
	}
	if d.Repository != nil {
		if l := link("Source code", d.Repository.URL); l != nil {
			out = append(out, l)
		}
	}
	if len(e.options) == 0 {
		why := e.summary.Unusable
		if why == "" {
			why = "it says neither how to run it nor where to reach it"
		}
		why = sanitize.Line(why)
		if !strings.HasPrefix(why, "mcptray cannot") {
			why = "mcptray cannot install it: " + why
		}
		l := wrapped(why + ".")
		l.Importance = widget.DangerImportance
		return append(out, l)
	}
	if len(e.options) == 1 {
		out = append(out, section("How it runs"))
	} else {
		out = append(out, section("Ways to run it"))
	}
	for _, o := range e.options {
		if len(e.options) > 1 {
			out = append(out, widget.NewLabelWithStyle(o.label, fyne.TextAlignLeading, fyne.TextStyle{Italic: true}))
		}
		if o.bundle {
			out = append(out, wrapped(bundleWays(o)))
			continue
		}
		out = append(out, mono(runsLine(o.plan)))
		if o.missingRuntime != "" {
			out = append(out, runtimeWarning(o.missingRuntime))
		}
		if len(e.options) == 1 {
			out = append(out, section("What it asks for"))
		}
		out = append(out, fieldLines(o.plan.Fields)...)
	}
	return out
}

// bundleWays says how a server from an MCP Bundle is installed.
func bundleWays(o runOption) string {
	where := ""
	if len(o.detail.Packages) == 1 {
		where = " from " + sanitize.Line(o.detail.Packages[0].Identifier)
	}
	return "mcptray downloads its MCP Bundle" + where + ", checks it is the file the registry lists, " +
		"then shows you what it will run, what it asks for, the folders it gets and its tools, before anything runs."
}

// installFromCatalogue opens the bundle dialog of a catalogue entry's
// MCP Bundle; once it is installed, the catalogue closes too.
func (v *window) installFromCatalogue(c *catalogueView, o runOption) {
	d := o.detail
	v.openBundleThen(service.BundleRequest{Registry: &d}, c.d.Hide)
}

// runsLine says what a plan runs or where it connects.
func runsLine(p *registry.Plan) string {
	if p.Remote {
		return "connects to " + sanitize.Line(p.URL)
	}
	return "runs " + commandLine(p.Command, p.Args)
}

// runtimeWarning says a runtime is missing here, and how to get it.
func runtimeWarning(rt string) *widget.Label {
	text := sanitize.Line(rt) + " is not installed on this computer, so the server will not start until it is"
	if h := registry.InstallHint(rt); h != "" {
		text += ": " + h
	}
	l := wrapped(text + ".")
	l.Importance = widget.WarningImportance
	return l
}

// fieldLines describe the values a way of running asks for.
func fieldLines(fields []registry.Field) []fyne.CanvasObject {
	if len(fields) == 0 {
		return []fyne.CanvasObject{caption("It asks you for nothing.")}
	}
	var out []fyne.CanvasObject
	for _, f := range fields {
		facts := []string{whereWords(f.Where)}
		if f.Required {
			facts = append(facts, "needed")
		} else {
			facts = append(facts, "optional")
		}
		if f.Secret {
			facts = append(facts, "secret: kept in your keychain")
		}
		name := widget.NewLabelWithStyle(sanitize.Line(f.Key), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		what := caption(strings.Join(facts, ", "))
		what.Wrapping = fyne.TextWrapWord // a long line would widen the pane
		out = append(out, container.NewBorder(nil, nil, name, nil, what))
		var about []string
		if f.Description != "" {
			about = append(about, sanitize.Line(f.Description))
		}
		if len(f.Choices) > 0 {
			about = append(about, "one of: "+names(f.Choices))
		}
		if f.Default != "" && !f.Secret {
			about = append(about, "if left empty: "+sanitize.Line(f.Default))
		}
		if len(about) > 0 {
			out = append(out, indent(wrapped(strings.Join(about, " · "))))
		}
	}
	return out
}

// whereWords says in plain words where a value goes.
func whereWords(where string) string {
	switch where {
	case registry.InEnv:
		return "a setting (environment variable)"
	case registry.InHeader:
		return "sent with each request (header)"
	case registry.InURL:
		return "part of its web address"
	case registry.InArgument:
		return "an option on its command line"
	}
	return "a " + where
}

// mono is a wrapping label in a fixed-width font, for what runs.
func mono(text string) *widget.Label {
	l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapBreak
	return l
}

// link is a hyperlink labelled text, or nil when raw is not a web address.
func link(text, raw string) fyne.CanvasObject {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil
	}
	l := widget.NewHyperlink(text+": "+sanitize.Line(u.Host+u.EscapedPath()), u)
	l.Truncation = fyne.TextTruncateEllipsis
	return l
}

// chip is a badge: a word on a tinted, rounded background.
type chip struct {
	box   *fyne.Container
	bg    *canvas.Rectangle
	label *widget.Label
}

func newChip() *chip {
	c := &chip{bg: canvas.NewRectangle(color.Transparent), label: widget.NewLabel("")}
	c.bg.CornerRadius = 8
	c.label.SizeName = theme.SizeNameCaptionText
	c.box = container.NewStack(c.bg, c.label)
	return c
}

func (c *chip) set(b badge) {
	c.label.Text, c.label.Importance = b.text, b.kind
	c.label.Refresh()
	c.bg.FillColor = tint(b.kind)
	c.bg.Refresh()
	c.box.Show()
}

// tint is a badge's background: its importance's colour, faint.
func tint(kind widget.Importance) color.Color {
	name := theme.ColorNameForeground
	switch kind {
	case widget.WarningImportance:
		name = theme.ColorNameWarning
	case widget.DangerImportance:
		name = theme.ColorNameError
	case widget.SuccessImportance:
		name = theme.ColorNameSuccess
	}
	c := color.NRGBAModel.Convert(theme.Color(name)).(color.NRGBA)
	c.A = 0x22
	return c
}

// badgeRow shows badges side by side.
func badgeRow(bs []badge) *fyne.Container {
	row := container.NewHBox()
	for _, b := range bs {
		c := newChip()
		c.set(b)
		row.Add(c.box)
	}
	return row
}

// maxBadges is how many badges an entry can have (see badgesOf).
const maxBadges = 4

// newCatalogueRow is a result's row: title and name, description, badges.
func newCatalogueRow() fyne.CanvasObject {
	title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	desc := widget.NewLabel("")
	desc.Truncation = fyne.TextTruncateEllipsis
	chips := container.NewHBox()
	for range maxBadges {
		chips.Add(newChip().box)
	}
	return container.New(layout.NewCustomPaddedVBoxLayout(0), title, desc, chips)
}

func updateCatalogueRow(o fyne.CanvasObject, e catalogueEntry) {
	box := o.(*fyne.Container)
	title, desc, chips := box.Objects[0].(*widget.Label), box.Objects[1].(*widget.Label), box.Objects[2].(*fyne.Container)
	d := &e.resp.Server
	t := sanitize.Line(d.Title)
	if t == "" {
		t = sanitize.Line(d.Name)
	} else {
		t += " — " + sanitize.Line(d.Name)
	}
	title.SetText(t)
	desc.SetText(sanitize.Line(d.Description))
	for i, obj := range chips.Objects {
		stack := obj.(*fyne.Container)
		c := &chip{box: stack, bg: stack.Objects[0].(*canvas.Rectangle), label: stack.Objects[1].(*widget.Label)}
		if i < len(e.badges) {
			c.set(e.badges[i])
		} else {
			stack.Hide()
		}
	}
	chips.Refresh() // lay the chips out again for their new words
}
