package window

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// row is one line of the server list: a scope's header, or a server.
type row struct {
	header string // not "": the header of a scope
	server service.Server
}

// scopeHeaders say, per scope, where its servers come from.
var scopeHeaders = map[service.Scope]string{
	service.Enterprise: "Enterprise — from your organisation",
	service.User:       "Yours — in mcptray's config",
	service.Imported:   "Imported — from your apps",
	service.Dynamic:    "Dynamic — added at run time",
	service.Local:      "Local — from project folders",
	service.Project:    "Project — shared project settings",
	service.Managed:    "Managed — from plugins",
}

// scopeHeader returns the header of scope s.
func scopeHeader(s service.Scope) string {
	if h, ok := scopeHeaders[s]; ok {
		return h
	}
	return s.String()
}

// rowsOf lists s's servers grouped by scope, most trusted scope first,
// each group under its header, in the Snapshot's order within a scope.
// mcptray's own built-in server is left out: it is always there, and tells
// a person nothing.
func rowsOf(s service.Snapshot) []row {
	var rows []row
	for _, scope := range service.Scopes() {
		first := true
		for _, sv := range s.Servers {
			if sv.Scope != scope || sv.BuiltIn() {
				continue
			}
			if first {
				rows = append(rows, row{header: scopeHeader(scope)})
				first = false
			}
			rows = append(rows, row{server: sv})
		}
	}
	return rows
}

// stateWord says in a word or two where sv stands, and how loudly to say it.
func stateWord(sv service.Server) (string, widget.Importance) {
	if sv.Suppressed != "" {
		return "not used", widget.LowImportance
	}
	switch sv.State {
	case service.Connected:
		return "connected", widget.SuccessImportance
	case service.Pending:
		return "starting…", widget.MediumImportance
	case service.AwaitingApproval:
		return "waiting for approval", widget.WarningImportance
	case service.NeedsAuth:
		return "needs sign-in", widget.WarningImportance
	case service.Failed:
		return "failed", widget.DangerImportance
	case service.Disabled:
		if sv.Reason == "paused" {
			return "paused", widget.LowImportance
		}
		return "off", widget.LowImportance
	}
	return sanitize.Line(sv.State.String()), widget.MediumImportance
}

// problemsText lists the config files and entries that could not be read,
// or returns "".
func problemsText(s service.Snapshot) string {
	if len(s.Problems) == 0 {
		return ""
	}
	lines := []string{count(len(s.Problems), "config problem") + ":"}
	for _, p := range s.Problems {
		lines = append(lines, "• "+sanitize.Line(p.Error()))
	}
	return strings.Join(lines, "\n")
}

// count writes "1 server", "2 servers".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// build makes the window's widgets.
func (v *window) build() {
	v.summary = widget.NewLabelWithStyle("Reaching mcptray…", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.summary.Truncation = fyne.TextTruncateEllipsis
	v.pause = widget.NewButton("Pause all", v.togglePause)
	v.pause.Disable() // until a Snapshot says which it is

	v.trayBanner = widget.NewLabel("")
	v.trayBanner.Wrapping = fyne.TextWrapWord
	v.trayBanner.Importance = widget.WarningImportance
	if v.opts.TrayProblem != "" {
		v.trayBanner.SetText(trayBannerText(v.opts.TrayProblem))
	} else {
		v.trayBanner.Hide()
	}
	v.keyBanner = widget.NewLabel("")
	v.keyBanner.Wrapping = fyne.TextWrapWord
	v.keyBanner.Importance = widget.WarningImportance
	v.keyFix = widget.NewLabel("")
	v.keyFix.Wrapping = fyne.TextWrapWord
	v.keyBox = container.NewVBox(v.keyBanner, v.keyFix)
	v.keyBox.Hide()
	v.problems = widget.NewLabel("")
	v.problems.Wrapping = fyne.TextWrapWord
	v.problems.Importance = widget.DangerImportance
	v.problems.Hide()

	v.list = widget.NewList(
		func() int { return len(v.rows) },
		newRowTemplate,
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(v.rows) {
				updateRow(o, v.rows[id])
			}
		},
	)
	v.list.OnSelected = v.onSelected
	v.detail = newDetail(v)

	v.addButton = widget.NewButtonWithIcon("Add…", theme.ContentAddIcon(), v.showAddMenu)
	v.settingsButton = widget.NewButtonWithIcon("Settings", theme.SettingsIcon(), v.showSettings)
	v.appsButton = widget.NewButtonWithIcon("Apps", theme.ComputerIcon(), v.showApps)
	v.activityBtn = widget.NewButtonWithIcon("Activity", theme.HistoryIcon(), v.showActivity)
	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(v.addButton, v.appsButton, v.activityBtn, v.settingsButton, v.pause), v.summary),
		v.trayBanner, v.keyBox, v.problems,
		widget.NewSeparator(),
	)
	v.split = container.NewHSplit(v.list, v.detail.content)
	v.split.Offset = 0.38
	v.welcome = newWelcome(v)
	v.welcome.box = container.NewVScroll(v.welcome.box)
	v.welcome.box.Hide()
	v.content = container.NewBorder(top, nil, nil, nil, container.NewStack(v.split, v.welcome.box))
}

// trayBannerText explains that without a tray the window is mcptray.
func trayBannerText(problem string) string {
	return "The tray is not available (" + sanitize.Line(problem) +
		"), so this window is how you use mcptray; closing it quits mcptray."
}

// A list row's template: a header label over a server line (name, state,
// reason); updateRow shows one or the other.
func newRowTemplate() fyne.CanvasObject {
	header := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	header.Importance = widget.HighImportance
	header.Truncation = fyne.TextTruncateEllipsis
	name := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Truncation = fyne.TextTruncateEllipsis
	state := widget.NewLabel("")
	reason := widget.NewLabel("")
	reason.Truncation = fyne.TextTruncateEllipsis
	reason.SizeName = theme.SizeNameCaptionText
	server := container.NewVBox(container.NewBorder(nil, nil, nil, state, name), reason)
	return container.NewStack(header, server)
}

// updateRow shows r in a row made by newRowTemplate.
func updateRow(o fyne.CanvasObject, r row) {
	stack := o.(*fyne.Container)
	header := stack.Objects[0].(*widget.Label)
	server := stack.Objects[1].(*fyne.Container)
	if r.header != "" {
		header.SetText(r.header)
		header.Show()
		server.Hide()
		return
	}
	header.Hide()
	server.Show()
	line := server.Objects[0].(*fyne.Container)
	name := line.Objects[0].(*widget.Label)
	state := line.Objects[1].(*widget.Label)
	reason := server.Objects[1].(*widget.Label)
	name.SetText(sanitize.Line(r.server.Name))
	word, imp := stateWord(r.server)
	state.Importance = imp
	state.SetText(word)
	reason.SetText(rowNote(r.server))
}

// quietReasons are the reasons that only repeat what a state's word says.
var quietReasons = map[service.State]string{
	service.Pending:          "connecting…",
	service.NeedsAuth:        "needs you to sign in",
	service.AwaitingApproval: "waits for your approval before it runs",
}

// reasonOf is why sv is in its state, or "" when its state says it all.
func reasonOf(sv service.Server) string {
	if sv.Reason == quietReasons[sv.State] {
		return ""
	}
	return sanitize.Line(sv.Reason)
}

// rowNote is the small line under a server's name: why it is in its state,
// or, when it is connected, how many tools it has.
func rowNote(sv service.Server) string {
	if r := reasonOf(sv); r != "" {
		return r
	}
	if sv.State == service.Connected {
		if held := sv.Review.Summary(); held != "" {
			return count(len(sv.Tools), "tool") + " · " + held
		}
		return count(len(sv.Tools), "tool")
	}
	return ""
}

// sizeRows makes header rows one line high.
func (v *window) sizeRows() {
	headerH := widget.NewLabel("Header").MinSize().Height
	serverH := newRowTemplate().MinSize().Height
	for i, r := range v.rows {
		if r.header != "" {
			v.list.SetItemHeight(i, headerH)
		} else {
			v.list.SetItemHeight(i, serverH)
		}
	}
}

// detail is the pane that shows the selected server.
type detail struct {
	title   *widget.Label
	state   *widget.Label
	reason  *widget.Label
	hint    *widget.Label
	fix     *widget.Button
	turn    *widget.Button
	signOut *widget.Button
	retry   *widget.Button // Reconnect
	remove  *widget.Button
	copy    *widget.Button // Copy diagnostics
	origin  *widget.Label
	runs    *widget.Label
	tools   *fyne.Container
	review  *fyne.Container // what changed in its tools (review.go)
	stderr  *widget.Label
	empty   *widget.Label
	body    *fyne.Container
	content fyne.CanvasObject

	toolsHeader  *widget.Label
	stderrHeader *widget.Label
	server       service.Server // the server shown

	plainKeys *widget.Label  // a key in plain text in its file
	moveKeys  *widget.Button // Keep it in your keychain

	sandboxHeader *widget.Label
	sandbox       *fyne.Container // what it may do (sandbox.go)
	sandboxOff    *widget.Button  // Run without a sandbox…
}

func newDetail(v *window) *detail {
	d := &detail{
		title:         widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		state:         widget.NewLabel(""),
		reason:        wrapped(""),
		hint:          wrapped(""),
		origin:        wrapped(""),
		runs:          wrapped(""),
		tools:         container.NewVBox(),
		review:        newReview(),
		stderr:        wrapped(""),
		empty:         wrapped("Reaching mcptray…"),
		toolsHeader:   section("Tools"),
		stderrHeader:  section("Error output"),
		sandboxHeader: section("What it may do"),
		sandbox:       container.NewVBox(),
	}
	d.title.SizeName = theme.SizeNameSubHeadingText
	d.title.Truncation = fyne.TextTruncateEllipsis
	d.stderr.TextStyle = fyne.TextStyle{Monospace: true}
	d.stderr.Wrapping = fyne.TextWrapBreak
	d.runs.Selectable = true
	d.origin.Selectable = true
	d.fix = widget.NewButton("", func() { v.fix(d.server) })
	d.fix.Importance = widget.HighImportance
	d.turn = widget.NewButton("", func() { v.turn(d.server) })
	d.signOut = widget.NewButton("Sign out", func() { v.signOut(d.server) })
	d.retry = widget.NewButton("Reconnect", func() { v.reconnect(d.server) })
	d.remove = widget.NewButton("Remove…", func() { v.confirmRemove(d.server) })
	d.copy = widget.NewButton("Copy diagnostics", func() { v.copyDiagnostics(d.server) })
	d.plainKeys = wrapped("")
	d.plainKeys.Importance = widget.WarningImportance
	d.moveKeys = widget.NewButton("Keep it in your keychain", func() { v.moveKeys(d.server) })
	d.body = container.NewVBox(
		d.title,
		container.NewBorder(nil, nil, d.state, nil, d.reason),
		d.hint,
		// Indented as far as a label's text, so that the buttons line up
		// with the words above them.
		container.New(layout.NewCustomPaddedLayout(0, 0, theme.InnerPadding(), 0), container.NewVBox(container.NewHBox(d.fix, d.turn, d.retry, d.signOut), container.NewHBox(d.remove, d.copy))),
		d.plainKeys,
		container.New(layout.NewCustomPaddedLayout(0, 0, theme.InnerPadding(), 0), container.NewHBox(d.moveKeys)),
		section("Comes from"), d.origin,
		section("Runs"), d.runs,
		d.sandboxHeader, d.sandbox,
		d.review,
		d.toolsHeader, d.tools,
		d.stderrHeader, d.stderr,
	)
	d.body.Hide()
	d.content = container.NewVScroll(container.NewStack(d.empty, d.body))
	return d
}

// wrapped is a label whose text wraps at word boundaries.
func wrapped(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// section is a section's bold header in the detail pane.
func section(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// clear shows that no server is selected.
func (d *detail) clear(some bool) {
	d.server = service.Server{}
	switch {
	case some:
		d.empty.SetText("Choose a server to see where it comes from, what it runs and its tools.")
	default:
		d.empty.SetText("No MCP servers yet. Servers you set up in mcptray's config, in your apps, or in project folders you add show here.")
	}
	d.body.Hide()
	d.empty.Show()
}

// show fills the pane with sv.
func (d *detail) show(v *window, sv service.Server) {
	d.server = sv
	d.empty.Hide()
	d.body.Show()

	d.title.SetText(sanitize.Line(sv.Name))
	word, imp := stateWord(sv)
	d.state.Importance = imp
	d.state.SetText(capitalise(word))
	setOrHide(d.reason, reasonOf(sv))
	setOrHide(d.hint, sanitize.Line(sv.Fix.Hint))

	switch {
	case sv.Fix.Label == "" || sv.Suppressed != "",
		sv.Fix.Action == service.NoAction && !v.snap.Paused:
		d.fix.Hide()
	default:
		d.fix.SetText(sanitize.Line(sv.Fix.Label))
		d.fix.Show()
		d.fix.Enable()
		if sv.Fix.Action == service.EditConfigAction {
			// The hint beside it says what to change; the button opens
			// the file to change it in.
			if sv.Origin.File != "" {
				d.fix.SetText("Open the file")
			} else {
				d.fix.Disable()
			}
		}
	}
	switch {
	case sv.Suppressed != "", sv.BuiltIn(),
		sv.Approval == service.Undecided, sv.Approval == service.Denied,
		sv.Fix.Action == service.EnableAction:
		d.turn.Hide()
	case sv.Disabled:
		d.turn.SetText("Turn on")
		d.turn.Show()
	default:
		d.turn.SetText("Turn off")
		d.turn.Show()
	}
	if sv.Transport.Remote() && sv.State == service.Connected && sv.Suppressed == "" {
		d.signOut.Show()
	} else {
		d.signOut.Hide()
	}
	// Reconnect where Retry is not the fix already: a connected server
	// that misbehaves, or one that failed for a reason a file holds.
	if sv.Runnable && sv.Suppressed == "" && !sv.BuiltIn() && !v.snap.Paused &&
		sv.Fix.Action != service.RetryAction &&
		(sv.State == service.Connected || sv.State == service.Failed) {
		d.retry.Show()
	} else {
		d.retry.Hide()
	}
	if sv.BuiltIn() {
		d.remove.Hide()
	} else {
		d.remove.Show()
	}

	d.showPlainKeys(sv)
	d.origin.SetText(originText(sv))
	d.runs.SetText(runsText(sv))
	d.showSandbox(v, sv)
	d.showReview(v, sv)

	d.tools.RemoveAll()
	switch {
	case len(sv.Tools) > 0:
		d.toolsHeader.SetText(fmt.Sprintf("Tools (%d)", len(sv.Tools)))
		if r := v.serverRules(sv); r != nil {
			d.tools.Add(r)
		}
		for _, t := range sv.Tools {
			d.tools.Add(v.toolWithRules(sv, t))
		}
	case sv.State == service.Connected:
		d.toolsHeader.SetText("Tools")
		d.tools.Add(widget.NewLabel("It offers no tools."))
	default:
		d.toolsHeader.SetText("Tools")
		d.tools.Add(widget.NewLabel("Its tools show here once it is connected."))
	}
	if sv.Stderr != "" {
		d.stderr.SetText(sanitize.String(strings.TrimRight(sv.Stderr, "\n")))
		d.stderrHeader.Show()
		d.stderr.Show()
	} else {
		d.stderrHeader.Hide()
		d.stderr.Hide()
	}
	d.body.Refresh()
}

// setOrHide shows text in l, or hides l when text is "".
func setOrHide(l *widget.Label, text string) {
	l.SetText(text)
	if text == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// capitalise upper-cases s's first letter.
func capitalise(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// originText says where sv's config was found.
func originText(sv service.Server) string {
	o := sv.Origin
	var lines []string
	where := sanitize.Line(o.App)
	if o.File != "" {
		where = sanitize.Line(o.String())
		if o.App != "" {
			where += " (" + sanitize.Line(o.App) + ")"
		}
	}
	lines = append(lines, where)
	if o.Folder != "" {
		lines = append(lines, "Project folder: "+sanitize.Line(o.Folder))
	}
	lines = append(lines, "Scope: "+sv.Scope.String())
	if sv.NameHidden {
		lines = append(lines, "Its name as written holds hidden characters, each shown as ?")
	}
	if sv.ConfigName != "" && sv.ConfigName != sv.Name {
		lines = append(lines, "Named "+quoteArg(sv.ConfigName)+" in that file")
	}
	if sv.Suppressed != "" {
		lines = append(lines, "Not used: "+sanitize.Line(sv.Suppressed))
	}
	if sv.SuppressedBy != "" {
		lines = append(lines, "It duplicates "+quoteArg(sv.SuppressedBy)+", which runs in its place")
	}
	return strings.Join(lines, "\n")
}

// runsText says what sv runs, or where it connects. Environment and header
// values are never in a Snapshot: only their names are shown.
func runsText(sv service.Server) string {
	var lines []string
	switch {
	case sv.BuiltIn():
		lines = append(lines, "Built into mcptray")
	case sv.Transport.Remote():
		lines = append(lines, "Connects to "+sanitize.Line(sv.URL)+" ("+string(sv.Transport)+")")
		if len(sv.HeaderNames) > 0 {
			lines = append(lines, "Headers: "+names(sv.HeaderNames))
		}
	default:
		lines = append(lines, commandLine(sv.Command, sv.Args))
		if sv.Cwd != "" {
			lines = append(lines, "In folder: "+sanitize.Line(sv.Cwd))
		}
		if len(sv.EnvNames) > 0 {
			lines = append(lines, "Environment: "+names(sv.EnvNames))
		}
		if sv.EnvFile != "" {
			lines = append(lines, "Environment file: "+sanitize.Line(sv.EnvFile))
		}
	}
	return strings.Join(lines, "\n")
}

// approval is what the approval dialog says: where sv comes from, exactly
// what approving it lets run (shown in a fixed-width font), and the details
// that go with it.
type approval struct {
	intro, what, details, sandbox, outro string
}

// approvalOf says exactly what approving sv lets run, and from where.
func approvalOf(sv service.Server) approval {
	var a approval
	a.intro = fmt.Sprintf("%s comes from %s", sanitize.Line(sv.Name), sanitize.Line(sv.Origin.String()))
	if sv.Origin.Folder != "" {
		a.intro += " in the project folder " + sanitize.Line(sv.Origin.Folder)
	}
	a.intro += ".\n\n"
	var details []string
	if sv.Transport.Remote() {
		a.intro += "Approving it lets mcptray connect to:"
		a.what = sanitize.Line(sv.URL)
		if len(sv.HeaderNames) > 0 {
			details = append(details, "sending the headers "+names(sv.HeaderNames))
		}
	} else {
		a.intro += "Approving it lets mcptray run this command on your computer:"
		a.what = commandLine(sv.Command, sv.Args)
		if sv.Cwd != "" {
			details = append(details, "in the folder "+sanitize.Line(sv.Cwd))
		}
		if len(sv.EnvNames) > 0 {
			details = append(details, "with the environment variables "+names(sv.EnvNames))
		}
		if sv.EnvFile != "" {
			details = append(details, "and those in the file "+sanitize.Line(sv.EnvFile))
		}
	}
	a.details = strings.Join(details, "\n")
	if sv.Sandbox != nil {
		a.sandbox = sandboxText(sv.Sandbox)
		if !sv.Sandbox.Asked.Empty() {
			a.sandbox = "Its file asks for more than the sandbox gives by default. " + a.sandbox
		}
	}
	a.outro = "If its file later changes what it runs, or asks for more, mcptray asks you again. Deny it to keep it from running."
	return a
}

// names lists names separated by commas.
func names(list []string) string {
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = sanitize.Line(n)
	}
	return strings.Join(out, ", ")
}

// commandLine writes a command and its arguments as a person would type
// them, quoting each that needs it.
func commandLine(command string, args []string) string {
	parts := make([]string, 0, 1+len(args))
	parts = append(parts, quoteArg(command))
	for _, a := range args {
		parts = append(parts, quoteArg(a))
	}
	return strings.Join(parts, " ")
}

// quoteArg returns s as is when it holds only characters that need no
// quoting, and otherwise in double quotes with Go's escapes, so that a
// space, an empty argument or an invisible character is seen for what it
// is. (sanitize.Line would fold two spaces into one and hide the
// difference; quoting shows it.)
func quoteArg(s string) string {
	if s != "" && strings.IndexFunc(s, needsQuote) < 0 {
		return s
	}
	return strconv.Quote(s)
}

func needsQuote(r rune) bool {
	if r < 0x80 {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,~^", r))
	}
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// toolView shows one tool: its name, title, what its server says of it,
// and its description.
func toolView(t tools.Tool) fyne.CanvasObject {
	name := sanitize.Line(t.Name)
	if title := sanitize.Line(t.Title); title != "" && title != name {
		name += " — " + title
	}
	head := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Truncation = fyne.TextTruncateEllipsis
	hints := widget.NewLabel(hintsText(t.Hints))
	hints.Importance = widget.LowImportance
	if t.Hints.Destructive == tools.HintTrue {
		hints.Importance = widget.WarningImportance
	}
	box := container.NewVBox(container.NewBorder(nil, nil, nil, hints, head))
	if d := sanitize.String(t.Description); d != "" {
		box.Add(wrapped(d))
	}
	return box
}

// hintsText says what a tool's server claims about it. Hints may lie; they
// are shown as the server's words.
func hintsText(h tools.Hints) string {
	var words []string
	switch {
	case h.ReadOnly == tools.HintTrue && h.Destructive != tools.HintTrue:
		words = append(words, "read-only")
	case h.Destructive == tools.HintTrue:
		words = append(words, "destructive")
	case h.NeedsReview():
		words = append(words, "may change things")
	default:
		words = append(words, "changes things, not destructive")
	}
	if h.Idempotent == tools.HintTrue {
		words = append(words, "idempotent")
	}
	switch h.OpenWorld {
	case tools.HintTrue:
		words = append(words, "reaches outside")
	case tools.HintFalse:
		words = append(words, "closed world")
	}
	return strings.Join(words, " · ")
}
