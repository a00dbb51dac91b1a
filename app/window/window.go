package window

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// trayNoticeShown is the preference that remembers the person was told,
// once, that closing the window leaves mcptray running in the tray.
const trayNoticeShown = "trayNoticeShown"

// trayNotice is what the person reads the first time they close the window.
const trayNotice = "mcptray keeps running in the tray. Quit it from the tray menu."

// window is the open window: the last Snapshot and the widgets that show
// it. Its fields are touched only on the Fyne goroutine (inside fyne.Do).
// It keeps its widgets so that tests can reach them.
type window struct {
	ctx  context.Context // actions run under it; it ends with the window
	log  *slog.Logger
	app  fyne.App
	win  fyne.Window
	b    Remote
	opts Options
	// quit ends the window's process; tests replace it.
	quit func()
	// leave calls quit from off the UI goroutine (quitting).
	leave func()
	// openURL opens a file or page in the system's default app; tests
	// replace it.
	openURL func(*url.URL) error
	// do runs a UI update from another goroutine: fyne.Do. Fyne's test
	// driver runs those at once on the calling goroutine, so tests give
	// one that lets a single update run at a time, as the real loop does.
	do func(func())
	// settled, when set, is called on the UI goroutine once each piece of
	// background work is done: "snapshot", "focus", "action", "sign-in".
	// Tests wait on it.
	settled func(what string)

	snap   service.Snapshot
	loaded bool     // a Snapshot has been shown
	rows   []row    // the list's rows: scope headers and servers
	sel    string   // the server in the detail pane, by name
	want   string   // a server to select once a Snapshot has it
	errs   []string // the errors shown, newest last (for tests)

	wantBundle string // a bundle file to open once a Snapshot shows

	summary    *widget.Label
	pause      *widget.Button
	trayBanner *widget.Label
	keyBanner  *widget.Label
	keyFix     *widget.Label
	keyBox     *fyne.Container
	problems   *widget.Label
	list       *widget.List
	detail     *detail
	content    fyne.CanvasObject

	// The dialog open for approval or sign-in, and its buttons.
	approveDialog *dialog.CustomDialog
	approveFor    string // the server approveDialog asks about
	secretDialog  dialog.Dialog
	secretEntry   *widget.Entry

	approveButton *widget.Button
	denyButton    *widget.Button
	lookButton    *widget.Button // the approval dialog's (look.go)
	signInDialog  *dialog.CustomDialog
	signInCancel  *widget.Button

	addButton      *widget.Button
	settingsButton *widget.Button
	welcome        *welcome
	split          *container.Split

	addDialog    *addDialog
	addMenu      *fyne.Menu      // the Add… button's menu, once shown
	importDialog *importDialog   // the last import dialog shown
	signInNext   map[string]bool // servers just added, to sign in to once they ask
	question     *questionForm   // the server's question on show, or nil
	questions    []control.Question
	settings     *settingsDialog
	apps         *appsView      // the Apps view, while open
	activity     *activityView  // the Activity view, while open (activity.go)
	updates      *updatesView   // the Updates view, while open (updates.go)
	rules        *rulesWidgets  // the shown server's gateway switches (toolrules.go)
	appsWork     sync.WaitGroup // the Apps view's background work
	appsButton   *widget.Button
	activityBtn  *widget.Button
	updatesBtn   *widget.Button
	confirm      *dialog.ConfirmDialog // the last confirmation asked

	// The MCP Registry's catalogue (catalogue.go): the dialog, once shown,
	// and what tests replace: how a runtime is looked for, and how long a
	// search waits for the typing to pause.
	catalogue      *catalogueView
	installed      func(program string) bool
	catalogueDelay time.Duration

	// The MCP Bundle install (bundle.go): the file chooser, the dialog
	// and a folder or file chooser of its, once shown; how long it waits
	// for the typing to pause before it asks for a new preview.
	bundleChooser *dialog.FileDialog
	bundle        *bundleDialog
	pathChooser   *dialog.FileDialog
	previewDelay  time.Duration
}

// newWindow builds the window's content into w and handles its closing.
func newWindow(ctx context.Context, logger *slog.Logger, a fyne.App, w fyne.Window, b Remote, opts Options) *window {
	v := &window{ctx: ctx, log: logger, app: a, win: w, b: b, opts: opts, want: opts.Server, wantBundle: opts.Bundle}
	v.quit = a.Quit
	v.leave = func() { v.do(v.quit) }
	v.openURL = a.OpenURL
	v.do = fyne.Do
	v.build()
	w.SetContent(v.content)
	w.SetCloseIntercept(v.closeRequested)
	return v
}

// follow shows a fresh Snapshot on every notice, and quits the window when
// the running mcptray goes away.
func (v *window) follow(ctx context.Context, notices <-chan struct{}) {
	for range notices {
		snap, err := v.b.Snapshot(ctx)
		if ctx.Err() != nil {
			return
		}
		v.do(func() { v.show(snap, err) })
	}
	if ctx.Err() != nil {
		return
	}
	v.log.Info("the running mcptray stopped; closing the window")
	v.leave()
}

// followFocus brings the window forward, at a server, whenever the running
// mcptray asks.
func (v *window) followFocus(ctx context.Context, requests <-chan control.WindowRequest) {
	for req := range requests {
		v.do(func() {
			v.win.Show()
			v.win.RequestFocus()
			if req.Server != "" {
				v.focus(req.Server)
			}
			if req.Bundle != "" {
				v.openBundle(service.BundleRequest{File: req.Bundle})
			}
			v.done("focus")
		})
	}
}

// show replaces what the window shows with snap, keeping the selected
// server selected. err is from fetching snap: the last one stays shown.
func (v *window) show(snap service.Snapshot, err error) {
	if err != nil {
		v.summary.SetText("Cannot read mcptray's state: " + sanitize.Line(err.Error()))
	} else {
		v.snap, v.loaded = snap, true
		v.showSnapshot()
	}
	v.done("snapshot")
}

// done calls the settled hook.
func (v *window) done(what string) {
	if v.settled != nil {
		v.settled(what)
	}
}

func (v *window) showSnapshot() {
	s := v.snap
	v.summary.SetText(s.Summary()) // the same line as the tray's
	if s.Paused {
		v.pause.SetText("Resume all")
		v.pause.Importance = widget.HighImportance
	} else {
		v.pause.SetText("Pause all")
		v.pause.Importance = widget.MediumImportance
	}
	v.pause.Enable()
	v.pause.Refresh()
	v.showUpdateCount(s.Updates)

	if !s.Keychain.Available && s.Keychain.Problem != "" {
		v.keyBanner.SetText("Sign-ins cannot be kept: " + sanitize.Line(s.Keychain.Problem))
		v.keyFix.SetText(sanitize.Line(s.Keychain.Fix))
		if s.Keychain.Fix == "" {
			v.keyFix.Hide()
		} else {
			v.keyFix.Show()
		}
		v.keyBox.Show()
	} else {
		v.keyBox.Hide()
	}
	if t := problemsText(s); t != "" {
		v.problems.SetText(t)
		v.problems.Show()
	} else {
		v.problems.Hide()
	}

	v.rows = rowsOf(s)
	v.sizeRows()
	v.list.Refresh()

	scroll := false
	var asked *service.Server
	if v.want != "" {
		if sv, ok := s.Find(v.want); ok {
			v.sel, scroll = sv.Name, true
			if sv.State != service.Pending { // settled: what it waits for is known
				v.want, asked = "", &sv
			}
		}
	}
	v.selectRow(scroll)
	v.closeStaleApproval(s)
	if asked != nil {
		v.reviewIfWaiting(*asked)
	}
	for name := range v.signInNext {
		if sv, ok := s.Find(name); ok {
			v.signInIfWaiting(sv)
		}
	}
	v.showWelcome()
	if v.wantBundle != "" {
		v.openBundle(service.BundleRequest{File: v.wantBundle})
		v.wantBundle = ""
	}
	if v.settings != nil {
		v.settings.refresh(v)
	}
	v.reloadApps() // the Apps view, when open
}

// focus selects the server called name, now or once a Snapshot has it.
func (v *window) focus(name string) {
	if sv, ok := v.snap.Find(name); ok && sv.State != service.Pending {
		v.sel, v.want = sv.Name, ""
		v.selectRow(true)
		v.reviewIfWaiting(sv)
		return
	}
	// Not in the list yet, or not settled (a server just added is
	// pending before it is known to wait for approval): the next
	// snapshots show it, and review it once it settles.
	v.want = name
}

// reviewIfWaiting opens the approval dialog at once for a server the
// window was asked to show (from the tray's "Review…" or a notification)
// that waits for approval: approving then takes two clicks from the tray.
func (v *window) reviewIfWaiting(sv service.Server) {
	if sv.State == service.AwaitingApproval && sv.Fix.Action == service.ApproveAction {
		v.confirmApproval(sv)
	}
}

// selectRow selects v.sel in the list and shows it in the detail pane, or
// shows nothing when it is gone. It scrolls the list to it when asked:
// not on every change, which would undo the person's scrolling.
func (v *window) selectRow(scroll bool) {
	for i, r := range v.rows {
		if r.header == "" && r.server.Name == v.sel {
			v.list.Select(i) // no-op when already selected
			if scroll {
				v.list.ScrollTo(i)
			}
			v.detail.show(v, r.server)
			return
		}
	}
	v.sel = ""
	v.list.UnselectAll()
	v.detail.clear(v.loaded && len(v.rows) > 0)
}

// onSelected follows the person's choice in the list.
func (v *window) onSelected(id widget.ListItemID) {
	if id < 0 || id >= len(v.rows) {
		return
	}
	if r := v.rows[id]; r.header == "" {
		v.sel = r.server.Name
		v.detail.show(v, r.server)
		return
	}
	// A scope header is not a server: keep the one chosen before.
	v.list.Unselect(id)
	for i, r := range v.rows {
		if r.header == "" && r.server.Name == v.sel {
			v.list.Select(i)
		}
	}
}

// closeRequested runs when the person closes the window.
func (v *window) closeRequested() {
	if v.opts.TrayProblem != "" {
		// No tray: this window is mcptray, so closing it quits mcptray.
		v.win.Hide()
		go func() {
			if v.opts.Quit != nil {
				v.opts.Quit()
			}
			v.do(v.quit)
		}()
		return
	}
	prefs := v.app.Preferences()
	if prefs.Bool(trayNoticeShown) {
		v.quit()
		return
	}
	prefs.SetBool(trayNoticeShown, true)
	d := dialog.NewCustom("mcptray keeps running", "OK", widget.NewLabel(trayNotice), v.win)
	d.SetOnClosed(v.quit)
	d.Show()
}

// act runs an action off the UI goroutine and shows its error, if any, in
// a dialog titled what.
func (v *window) act(what string, fn func(ctx context.Context) error) {
	v.actThen(what, fn, nil)
}

// actThen is act, then runs then (when not nil) on the UI goroutine.
func (v *window) actThen(what string, fn func(ctx context.Context) error, then func()) {
	go func() {
		err := fn(v.ctx)
		if v.ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return // the window is closing
		}
		v.do(func() {
			if then != nil {
				then()
			}
			if err != nil {
				v.showError(what, err)
			}
			v.done("action")
		})
	}()
}

// showError tells the person, in a dialog, that what did not work.
func (v *window) showError(what string, err error) {
	msg := sanitize.String(err.Error())
	v.errs = append(v.errs, msg)
	v.log.Info(what, "err", err)
	text := widget.NewLabel(msg)
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom(what, "OK", text, v.win)
	d.Resize(fyne.NewSize(440, 0))
	d.Show()
}

// togglePause pauses every server, or resumes them.
func (v *window) togglePause() {
	v.pause.Disable() // until it is done: one press, one action
	if v.snap.Paused {
		v.actThen("Could not resume the servers", v.b.ResumeAll, v.pause.Enable)
	} else {
		v.actThen("Could not pause the servers", v.b.PauseAll, v.pause.Enable)
	}
}

// fix does what sv's Fix says.
func (v *window) fix(sv service.Server) {
	name := sv.Name
	switch sv.Fix.Action {
	case service.ApproveAction:
		v.confirmApproval(sv)
	case service.SignInAction:
		v.signIn(sv)
	case service.RetryAction:
		v.act("Could not retry "+sanitize.Line(name), func(ctx context.Context) error { return v.b.Retry(ctx, name) })
	case service.EnableAction:
		v.act("Could not turn on "+sanitize.Line(name), func(ctx context.Context) error { return v.b.Enable(ctx, name) })
	case service.NoAction:
		if v.snap.Paused {
			v.togglePause()
		}
	case service.EditConfigAction:
		v.openFile(sv.Origin.File)
	case service.SetSecretAction:
		v.askSecret(sv)
	}
}

// openFile opens a config file in the app the system opens it with, so
// that the person can do what the hint beside the button says.
func (v *window) openFile(path string) {
	if path == "" {
		return
	}
	if err := v.openURL(fileURL(path)); err != nil {
		v.showError("Could not open the file", fmt.Errorf("mcptray could not open %s (%s). Open it in a text editor yourself.", path, err))
	}
}

// fileURL is the file:// URL of an absolute path.
func fileURL(path string) *url.URL {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/Users/… on Windows
	}
	return &url.URL{Scheme: "file", Path: p}
}

// turn turns sv off, or on again.
func (v *window) turn(sv service.Server) {
	name := sv.Name
	if sv.Disabled {
		v.act("Could not turn on "+sanitize.Line(name), func(ctx context.Context) error { return v.b.Enable(ctx, name) })
	} else {
		v.act("Could not turn off "+sanitize.Line(name), func(ctx context.Context) error { return v.b.Disable(ctx, name) })
	}
}

// signOut forgets sv's sign-in.
func (v *window) signOut(sv service.Server) {
	name := sv.Name
	v.act("Could not sign out of "+sanitize.Line(name), func(ctx context.Context) error { return v.b.SignOut(ctx, name) })
}

// confirmApproval shows exactly what sv would run, and lets the person
// approve or deny it.
func (v *window) confirmApproval(sv service.Server) {
	name := sv.Name
	a := approvalOf(sv)
	what := widget.NewLabelWithStyle(a.what, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	what.Wrapping = fyne.TextWrapBreak
	what.Selectable = true
	body := container.NewVBox(wrapped(a.intro), what)
	if a.details != "" {
		body.Add(wrapped(a.details))
	}
	if a.sandbox != "" {
		body.Add(wrapped(a.sandbox))
	}
	if f := approvalFlags(sv); f != "" { // review.go
		l := wrapped(f)
		l.Importance = widget.WarningImportance
		body.Add(l)
	}
	if b := v.lookBox(sv); b != nil { // look.go
		body.Add(b)
	}
	body.Add(wrapped(a.outro))
	d := dialog.NewCustomWithoutButtons("Run "+sanitize.Line(name)+"?", container.NewVScroll(body), v.win)
	v.approveButton = widget.NewButton("Approve", func() {
		d.Hide()
		v.act("Could not approve "+sanitize.Line(name), func(ctx context.Context) error {
			_, err := v.b.Approve(ctx, name)
			return err
		})
	})
	v.approveButton.Importance = widget.HighImportance
	v.denyButton = widget.NewButton("Deny", func() {
		d.Hide()
		v.act("Could not deny "+sanitize.Line(name), func(ctx context.Context) error {
			_, err := v.b.Deny(ctx, name)
			return err
		})
	})
	d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", d.Hide), v.denyButton, v.approveButton})
	d.Resize(fyne.NewSize(560, 380))
	v.approveDialog, v.approveFor = d, name
	d.Show()
}

// closeStaleApproval hides the approval dialog once its server no longer
// waits for approval: approved or denied elsewhere (the command line, the
// tray), or gone.
func (v *window) closeStaleApproval(s service.Snapshot) {
	if v.approveDialog == nil {
		return
	}
	if sv, ok := s.Find(v.approveFor); ok && sv.State == service.AwaitingApproval {
		return
	}
	v.approveDialog.Hide()
	v.approveDialog, v.approveFor = nil, ""
}

// signIn signs in to sv while a dialog waits for the browser; its Cancel
// gives up.
func (v *window) signIn(sv service.Server) {
	name := sv.Name
	ctx, cancel := context.WithCancel(v.ctx)
	msg := widget.NewLabel(fmt.Sprintf("Waiting for your browser…\n\nFinish signing in to %s there, then come back.", sanitize.Line(name)))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons("Signing in to "+sanitize.Line(name), msg, v.win)
	v.signInCancel = widget.NewButton("Cancel", cancel)
	d.SetButtons([]fyne.CanvasObject{v.signInCancel})
	d.Resize(fyne.NewSize(420, 0))
	v.signInDialog = d
	d.Show()
	go func() {
		defer cancel()
		err := v.b.SignIn(ctx, name, service.SignInOptions{})
		cancelled := ctx.Err() != nil
		v.do(func() {
			d.Hide()
			if err != nil && !cancelled {
				v.showError("Could not sign in to "+sanitize.Line(name), err)
			}
			v.done("sign-in")
		})
	}()
}
