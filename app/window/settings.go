package window

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/demo"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// welcome is what the window shows while there is no server anywhere.
type welcome struct {
	box     fyne.CanvasObject
	find    *widget.Button
	add     *widget.Button
	folder  *widget.Button
	demo    *widget.Button
	imports *widget.Label
}

const welcomeIntro = "mcptray looks after the MCP servers your AI apps use: it shows whether each works, asks you before a project's server runs, and keeps sign-ins in your keychain. You have no servers yet."

const welcomeImports = "Servers you set up in Claude Desktop, Claude Code, Cursor or VS Code show up here by themselves, under \"Imported\". None were found on this computer."

const welcomeDemo = "See mcptray at work with its small demo server, which comes with mcptray: it waits for your approval, showing exactly what it would run, then offers three harmless tools, one of which asks you a question."

// newWelcome builds the welcome.
func newWelcome(v *window) *welcome {
	w := &welcome{imports: wrapped(welcomeImports)}
	title := widget.NewLabelWithStyle("Welcome to mcptray", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameHeadingText
	w.find = widget.NewButtonWithIcon("Find servers…", theme.SearchIcon(), v.showCatalogue)
	w.find.Importance = widget.HighImportance
	w.add = widget.NewButtonWithIcon("Add a server by pasting…", theme.ContentPasteIcon(), v.showAdd)
	w.folder = widget.NewButtonWithIcon("Add a project folder…", theme.FolderOpenIcon(), v.pickFolder)
	w.demo = widget.NewButtonWithIcon("Try the demo", theme.MediaPlayIcon(), v.tryDemo)
	w.box = container.NewPadded(container.NewVBox(
		title,
		wrapped(welcomeIntro),
		section("Add a server"),
		wrapped("Find one in the MCP Registry, the public list of MCP servers, or paste the snippet from a server's instructions, or an online server's address."),
		container.NewHBox(w.find, w.add),
		section("From your other apps"),
		w.imports,
		section("Try the demo"),
		wrapped(welcomeDemo),
		container.NewHBox(w.demo, w.folder),
	))
	return w
}

// showWelcome shows the welcome while there is no server at all (nor a
// config problem to read), and the list otherwise.
func (v *window) showWelcome() {
	if v.welcome == nil {
		return
	}
	if v.loaded && len(v.rows) == 0 && len(v.snap.Problems) == 0 {
		v.welcome.box.Show()
		v.split.Hide()
	} else {
		v.welcome.box.Hide()
		v.split.Show()
	}
}

// pickFolder asks for a project folder to add.
func (v *window) pickFolder() {
	d := dialog.NewFolderOpen(func(uri fyne.ListableURI, err error) {
		if err != nil {
			v.showError("Could not choose a folder", err)
			return
		}
		if uri != nil {
			v.addFolder(uri.Path())
		}
	}, v.win)
	d.Resize(fyne.NewSize(720, 480))
	d.Show()
}

// addFolder adds dir to the project folders, and says what waits there.
func (v *window) addFolder(dir string) {
	var res service.FolderResult
	v.actThen("Could not add the folder", func(ctx context.Context) error {
		var err error
		res, err = v.b.AddFolder(ctx, dir)
		return err
	}, func() {
		if res.Folder == "" {
			return
		}
		msg := "mcptray now reads the MCP configs in " + sanitize.Line(res.Folder) + "."
		if res.Waiting > 0 {
			msg += fmt.Sprintf(" %s there %s for your approval: choose it in the list, then press Review….",
				count(res.Waiting, "server"), map[bool]string{true: "waits", false: "wait"}[res.Waiting == 1])
		} else {
			msg += " It has no servers waiting for approval."
		}
		dialog.ShowInformation("Folder added", msg, v.win)
	})
}

// tryDemo has the running mcptray make its demo project folder and add
// it, then shows the demo server, whose approval dialog opens as soon as
// the list has it.
func (v *window) tryDemo() {
	v.actThen("Could not set up the demo", func(ctx context.Context) error {
		_, err := v.b.AddDemo(ctx)
		return err
	}, func() { v.focus(demo.ServerName) })
}

// removeFolder stops reading dir.
func (v *window) removeFolder(dir string) {
	v.act("Could not remove the folder", func(ctx context.Context) error { return v.b.RemoveFolder(ctx, dir) })
}

// settingsDialog is the Settings dialog: project folders, pause all, and
// start at login.
type settingsDialog struct {
	d       *dialog.CustomDialog
	folders *fyne.Container
	remove  map[string]*widget.Button // by folder
	add     *widget.Button
	pause   *widget.Button
	login   *loginSwitch
	record  *activitySettings
	guard   *guardMode
	sandbox *sandboxCheck
}

// showSettings opens the Settings dialog.
func (v *window) showSettings() {
	s := &settingsDialog{folders: container.NewVBox(), remove: map[string]*widget.Button{}}
	s.add = widget.NewButtonWithIcon("Add a folder…", theme.FolderOpenIcon(), v.pickFolder)
	s.pause = widget.NewButton("Pause all", v.togglePause)
	s.login = newLoginSwitch(v, v.opts.Autostart)
	body := container.NewVBox(
		section("Project folders"),
		wrapped("mcptray reads .mcp.json, .vscode/mcp.json and .cursor/mcp.json in these folders, and asks you before any of their servers runs."),
		s.folders,
		container.NewHBox(s.add),
		widget.NewSeparator(),
		section("All servers"),
		container.NewHBox(s.pause),
		widget.NewSeparator(),
		section("Log"),
		container.NewHBox(widget.NewButtonWithIcon("Show log…", theme.DocumentIcon(), func() { v.showLog() })),
		widget.NewSeparator(),
		section("Start at login"),
		s.login.check,
		s.login.note,
	)
	s.guard = newGuardMode(v)
	body.Add(widget.NewSeparator())
	body.Add(section("Guard"))
	body.Add(s.guard.box)
	s.sandbox = newSandboxCheck(v)
	body.Add(widget.NewSeparator())
	body.Add(section("Sandbox"))
	body.Add(s.sandbox.box)
	s.record = newActivitySettings(v)
	body.Add(widget.NewSeparator())
	body.Add(section("Activity"))
	body.Add(s.record.box)
	s.d = dialog.NewCustom("Settings", "Close", container.NewVScroll(body), v.win)
	s.d.SetOnClosed(func() {
		if v.settings == s {
			v.settings = nil
		}
	})
	s.d.Resize(fyne.NewSize(600, 580))
	v.settings = s
	s.refresh(v)
	s.d.Show()
}

// refresh shows the Snapshot's folders and pause state.
func (s *settingsDialog) refresh(v *window) {
	s.folders.RemoveAll()
	s.remove = map[string]*widget.Button{}
	if len(v.snap.Folders) == 0 {
		s.folders.Add(caption("No project folders yet."))
	}
	for _, f := range v.snap.Folders {
		dir := f
		rm := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { v.removeFolder(dir) })
		s.remove[dir] = rm
		label := widget.NewLabel(sanitize.Line(dir))
		label.Truncation = fyne.TextTruncateEllipsis
		s.folders.Add(container.NewBorder(nil, nil, nil, rm, label))
	}
	s.folders.Refresh()
	if s.guard != nil {
		s.guard.refresh(v)
	}
	if v.snap.Paused {
		s.pause.SetText("Resume all")
	} else {
		s.pause.SetText("Pause all")
	}
	if v.pause.Disabled() {
		s.pause.Disable()
	} else {
		s.pause.Enable()
	}
}
