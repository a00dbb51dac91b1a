package window

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// The Updates view shows what each server that runs a pinned npm package
// runs, and for each update the last check found, what it would change:
// the added lines that send data somewhere new first, in words, then the
// packages and the files. One button runs the update the person read, and
// one goes back. The running mcptray checks the registries and keeps the
// trees (service.API's Packages, CheckPackages, UpdatePackage): the window
// opens no file of them.

// updatesView is the Updates dialog.
type updatesView struct {
	d      *dialog.CustomDialog
	status *widget.Label
	check  *widget.Button
	box    *fyne.Container
	// views are what the running mcptray last said, and the buttons made
	// for them, by server (for tests).
	views  []service.PackageView
	update map[string]*widget.Button
	back   map[string]*widget.Button
	// first is the first words shown of each update's review, by server
	// (for tests: the new destinations come first).
	first map[string]*widget.Label
	// tools are the words of each update's trial, how its tools change,
	// by server.
	tools map[string]*widget.Label
	// reading says a read of the updates is under way; seen is what the
	// snapshot said of the updates when the last one began: the view
	// reads them again on its own when that changes (followUpdates).
	reading bool
	seen    updatesKey
}

// updatesKey is what a snapshot says of the updates: how many wait, and
// when they were last checked or tried.
type updatesKey struct {
	n       int
	checked time.Time
}

// updatesLabel is the Updates button's text for n updates found.
func updatesLabel(n int) string {
	if n <= 0 {
		return "Updates"
	}
	return fmt.Sprintf("Updates (%d)", n)
}

// showUpdateCount shows on the Updates button how many updates wait.
func (v *window) showUpdateCount(n int) {
	v.updatesBtn.SetText(updatesLabel(n))
	if n > 0 {
		v.updatesBtn.Importance = widget.HighImportance
	} else {
		v.updatesBtn.Importance = widget.MediumImportance
	}
	v.updatesBtn.Refresh()
	v.followUpdates()
}

// followUpdates reads the updates again when the Updates view is open
// and the snapshot says a check (the daily one, or mcptray updates) found
// or tried something since the view last read them.
func (v *window) followUpdates() {
	u := v.updates
	if u == nil || u.reading || u.seen == (updatesKey{v.snap.Updates, v.snap.UpdatesChecked}) {
		return
	}
	v.readUpdates(u, "Reading what the last check found…", func(ctx context.Context) ([]service.PackageView, error) { return v.b.Packages(ctx) })
}

// showUpdates opens the Updates view with what the last check found.
func (v *window) showUpdates() {
	u := &updatesView{status: wrapped("Reading what runs…"), box: container.NewVBox()}
	u.check = widget.NewButton("Check now", func() { v.checkUpdates(u) })
	top := container.NewBorder(nil, nil, nil, u.check, u.status)
	u.d = dialog.NewCustom("Updates", "Close", container.NewBorder(top, nil, nil, nil, container.NewVScroll(u.box)), v.win)
	u.d.SetOnClosed(func() {
		if v.updates == u {
			v.updates = nil
		}
	})
	u.d.Resize(fyne.NewSize(860, 580))
	v.updates = u
	u.d.Show()
	v.readUpdates(u, "Reading what runs…", func(ctx context.Context) ([]service.PackageView, error) { return v.b.Packages(ctx) })
}

// checkUpdates asks the running mcptray to ask the registries.
func (v *window) checkUpdates(u *updatesView) {
	v.readUpdates(u, "Asking the registries what is new…", func(ctx context.Context) ([]service.PackageView, error) {
		return v.b.CheckPackages(ctx)
	})
}

// readUpdates shows what read returns, off the UI goroutine.
func (v *window) readUpdates(u *updatesView, doing string, read func(context.Context) ([]service.PackageView, error)) {
	u.check.Disable()
	u.status.SetText(doing)
	u.reading, u.seen = true, updatesKey{v.snap.Updates, v.snap.UpdatesChecked}
	go func() {
		views, err := read(v.ctx)
		v.do(func() {
			u.reading = false
			defer v.followUpdates() // what changed meanwhile
			u.check.Enable()
			if views != nil || err == nil {
				u.show(v, views)
			}
			if err != nil {
				u.status.SetText("Not every registry answered: " + sanitize.Line(err.Error()))
			}
			v.done("updates")
		})
	}()
}

// show replaces what the view shows with views.
func (u *updatesView) show(v *window, views []service.PackageView) {
	u.views = views
	u.update, u.back, u.first, u.tools = map[string]*widget.Button{}, map[string]*widget.Button{}, map[string]*widget.Label{}, map[string]*widget.Label{}
	u.box.RemoveAll()
	found := 0
	for _, pv := range views {
		if pv.Update != nil {
			found++
		}
	}
	switch {
	case len(views) == 0:
		u.status.SetText("No server runs a pinned package. A server started with npx runs its package pinned by its content once approved.")
	case found == 0:
		u.status.SetText(fmt.Sprintf("%s pinned; no update found. %s", count(len(views), "package"), checkedWords(views)))
	default:
		u.status.SetText(fmt.Sprintf("%s found. Read what each changes: nothing of it runs until you update. %s", count(found, "update"), checkedWords(views)))
	}
	for _, pv := range views {
		u.box.Add(u.card(v, pv))
		u.box.Add(widget.NewSeparator())
	}
	u.box.Refresh()
}

// card is one pinned server: what runs, and its update's review.
func (u *updatesView) card(v *window, pv service.PackageView) fyne.CanvasObject {
	name := sanitize.Line(pv.Server)
	title := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	pinned := "Pinned by its content."
	if pv.Facts.Image != nil {
		pinned = "Pinned by its digest: docker runs this image and no other."
	}
	runs := wrapped("Runs " + sanitize.Line(pv.Words) + ".\n" + pinned)
	items := []fyne.CanvasObject{title}
	if pv.HiddenWords != "" { // its code's hidden characters, before what runs
		hidden := wrapped(strings.TrimRight(sanitize.String(pv.HiddenWords), "\n"))
		hidden.Importance = widget.WarningImportance // as an update's (below)
		items = append(items, hidden)
	}
	items = append(items, runs)
	var buttons []fyne.CanvasObject
	if r := pv.Update; r != nil {
		head := wrapped(firstWords(*r))
		head.Importance = widget.MediumImportance
		switch {
		case len(r.Destinations) > 0 || r.OriginLost():
			head.Importance = widget.DangerImportance
		case len(r.Hidden) > 0:
			// Named, to be read: a soft hyphen or a Persian non-joiner is
			// a hidden character too.
			head.Importance = widget.WarningImportance
		}
		u.first[pv.Server] = head
		items = append(items, head)
		tools := trialLabel(pv.Trial)
		u.tools[pv.Server] = tools
		items = append(items, tools)
		diff := widget.NewLabel(sanitize.String(restWords(*r)))
		diff.TextStyle = fyne.TextStyle{Monospace: true}
		diff.Wrapping = fyne.TextWrapBreak
		more := widget.NewAccordion(widget.NewAccordionItem(changesTitle(*r), diff))
		items = append(items, more)
		up := widget.NewButton("Update to "+sanitize.Line(r.ToVersion)+"…", func() { v.confirmUpdate(pv) })
		up.Importance = widget.HighImportance
		if pv.Trial.Holds() {
			up.Disable() // it did not start: the trial's words say why
		}
		u.update[pv.Server] = up
		buttons = append(buttons, up)
	}
	if pv.Back != "" {
		back := widget.NewButton("Go back to "+sanitize.Line(pv.Back), func() {
			v.runUpdate(service.PackageUpdate{Name: pv.Server, Back: true})
		})
		u.back[pv.Server] = back
		buttons = append(buttons, back)
	}
	if len(buttons) > 0 {
		items = append(items, container.NewHBox(buttons...))
	}
	return container.NewVBox(items...)
}

// firstWords are what the person must not miss of an update: the version,
// a CI's provenance lost, then each added line that sends data somewhere,
// in words, the characters of added lines that do not show, by file and
// line, the packages whose install scripts it runs, and where the new
// version was built.
func firstWords(r reviewOf) string {
	if r.Image != nil { // an image's: its configuration's changes
		return "Update: " + sanitize.String(r.Image.Head())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Update: %s %s to %s.", sanitize.Line(r.Package), sanitize.Line(r.FromVersion), sanitize.Line(r.ToVersion))
	origin := sanitize.Line(r.OriginWords())
	if r.OriginLost() {
		// Before all else: how a stolen npm token shows (npmpin's attest.go).
		b.WriteString("\n" + origin)
		origin = ""
	}
	switch n := len(r.Destinations); {
	case n == 0:
		b.WriteString(" No added line names a new address or a call that sends data out.")
	case n == 1:
		b.WriteString("\n1 added line sends data somewhere new — read it first:")
	default:
		fmt.Fprintf(&b, "\n%d added lines send data somewhere new — read these first:", n)
	}
	for _, d := range r.Destinations {
		fmt.Fprintf(&b, "\n• %s line %d adds %s:\n    %s", sanitize.Line(d.File), d.Line, sanitize.Line(d.What), sanitize.Line(strings.TrimSpace(d.Text)))
	}
	if w := r.HiddenWords(); w != "" {
		// Which characters, on which line of which file: code that reads
		// other than it runs.
		b.WriteString("\n" + sanitize.String(strings.TrimRight(w, "\n")))
	}
	if w := r.ScriptsWords(); w != "" {
		b.WriteString("\n" + w) // which packages' install scripts it runs, in its sandbox
	}
	if origin != "" {
		b.WriteString("\n" + origin)
	}
	return b.String()
}

// restWords are the packages and files an update changes, with the diffs.
func restWords(r reviewOf) string {
	if r.Image != nil { // its layers; its code is not compared
		return r.Image.Rest()
	}
	r.Destinations = nil
	words := r.Words()
	// The review's first line and its note on destinations are said above.
	if i := strings.Index(words, "\nPackages:\n"); i >= 0 {
		return strings.TrimLeft(words[i:], "\n")
	}
	if i := strings.Index(words, "\nFiles:\n"); i >= 0 {
		return strings.TrimLeft(words[i:], "\n")
	}
	return "Nothing else changes."
}

// changesTitle says how much more an update changes.
func changesTitle(r reviewOf) string {
	if r.Image != nil {
		return fmt.Sprintf("What else changes: %s", count(len(r.Image.LayersAdded)+len(r.Image.LayersRemoved), "layer"))
	}
	return fmt.Sprintf("What else changes: %s, %s", count(len(r.Packages), "package"), count(len(r.Files), "file"))
}

// reviewOf is an update's review, as the running mcptray sends it.
type reviewOf = service.PackageReview

// checkedWords says when the registries were last asked.
func checkedWords(views []service.PackageView) string {
	var last time.Time
	for _, pv := range views {
		if pv.Checked.After(last) {
			last = pv.Checked
		}
	}
	if last.IsZero() {
		return "Not checked yet."
	}
	return "Last checked " + last.Local().Format("2 Jan 15:04") + "."
}

// confirmUpdate asks before the update the person read runs.
func (v *window) confirmUpdate(pv service.PackageView) {
	r := pv.Update
	name := sanitize.Line(pv.Server)
	msg := fmt.Sprintf("%s will run %s %s from its next start, which is now. Version %s stays, and Go back runs it again.",
		name, sanitize.Line(r.Package), sanitize.Line(r.ToVersion), sanitize.Line(pv.Facts.Version))
	switch n := len(r.Destinations); {
	case n == 1:
		msg += "\n\nThis update adds 1 line that sends data somewhere new."
	case n > 1:
		msg += fmt.Sprintf("\n\nThis update adds %d lines that send data somewhere new.", n)
	}
	msg += trialConfirmWords(pv.Trial)
	v.confirm = dialog.NewConfirm("Update "+name+"?", msg, func(yes bool) {
		if yes {
			// The tree the person read, and no other: a check meanwhile may
			// have found another.
			v.runUpdate(service.PackageUpdate{Name: pv.Server, Tree: r.ToHash})
		}
	}, v.win)
	v.confirm.SetConfirmText("Update")
	v.confirm.SetDismissText("Cancel")
	v.confirm.Show()
}

// runUpdate updates a server's package, or goes back, then shows what
// runs.
func (v *window) runUpdate(req service.PackageUpdate) {
	what := "Could not update " + sanitize.Line(req.Name)
	if req.Back {
		what = "Could not go back for " + sanitize.Line(req.Name)
	}
	v.actThen(what, func(ctx context.Context) error {
		_, err := v.b.UpdatePackage(ctx, req)
		return err
	}, func() {
		if v.updates != nil {
			u := v.updates
			v.readUpdates(u, "Reading what runs…", func(ctx context.Context) ([]service.PackageView, error) { return v.b.Packages(ctx) })
		}
	})
}
