package window

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/tailscale/hujson"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// importHelp explains, in the import dialog, what importing does.
const importHelp = "These servers are set up in your other apps. mcptray already runs them, " +
	"reading those apps' files: if an app removes or changes a server, it changes here too.\n\n" +
	"Importing copies a server, exactly as that app wrote it (with the values of its " +
	"environment variables and headers), into mcptray's own config. It then keeps running " +
	"from mcptray whatever the other app does; the app keeps its own copy."

// importNone is what the import dialog says when there is nothing to import.
const importNone = "No server to import. mcptray looks in the settings of Claude Desktop, " +
	"Claude Code, Cursor and VS Code on this computer; servers found there, and not yet in " +
	"mcptray's own config, show here."

// importable lists the servers of s the person can import: those mcptray
// reads from another app's own config file and that do not give way to one
// already in mcptray's config. A project's servers in Claude Code belong to
// that project, not to the person, and are left out.
func importable(s service.Snapshot) []service.Server {
	var out []service.Server
	for _, sv := range s.Servers {
		if sv.Scope == service.Imported && sv.Suppressed == "" && sv.Origin.File != "" && sv.Origin.Folder == "" {
			out = append(out, sv)
		}
	}
	return out
}

// configName is the name sv goes by in its file.
func configName(sv service.Server) string {
	if sv.ConfigName != "" {
		return sv.ConfigName
	}
	return sv.Name
}

// importRow is one server the import dialog offers.
type importRow struct {
	server service.Server
	check  *widget.Check
}

// importDialog is the "Import from your other apps" dialog: a checkbox per
// server, and the Import button.
type importDialog struct {
	d       *dialog.CustomDialog
	rows    []importRow
	problem *widget.Label
	ok      *widget.Button // Import; nil when there is nothing to import
}

// showImport opens the "Import from your other apps" dialog.
func (v *window) showImport() {
	a := &importDialog{problem: wrapped("")}
	a.problem.Importance = widget.DangerImportance
	a.problem.Hide()
	servers := importable(v.snap)
	if len(servers) == 0 {
		a.d = dialog.NewCustom("Import from your other apps", "Close", wrapped(importNone), v.win)
		a.d.Resize(fyne.NewSize(520, 0))
		v.importDialog = a
		a.d.Show()
		return
	}
	list := container.NewVBox()
	for _, sv := range servers {
		r := importRow{server: sv}
		r.check = widget.NewCheck(sanitize.Line(configName(sv))+" — from "+sanitize.Line(sv.Origin.App), func(bool) { a.count() })
		r.check.SetChecked(true)
		what := widget.NewLabelWithStyle(importWhat(sv), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		what.Wrapping = fyne.TextWrapBreak // truncating clips the underscores of env names
		list.Add(container.NewVBox(r.check, indent(what)))
		a.rows = append(a.rows, r)
	}
	a.ok = widget.NewButton("", func() { v.importChecked(a) })
	a.ok.Importance = widget.HighImportance
	a.count()
	body := container.NewBorder(container.NewVBox(wrapped(importHelp), widget.NewSeparator()), a.problem, nil, nil,
		container.NewVScroll(list))
	a.d = dialog.NewCustomWithoutButtons("Import from your other apps", body, v.win)
	a.d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", a.d.Hide), a.ok})
	a.d.Resize(fyne.NewSize(620, 520))
	v.importDialog = a
	a.d.Show()
}

// indent shifts o right, under a checkbox's text.
func indent(o fyne.CanvasObject) fyne.CanvasObject {
	return container.NewBorder(nil, nil, widget.NewLabel(""), nil, o)
}

// importWhat says in one line what sv runs or where it connects, and the
// names of the environment variables or headers whose values are copied
// with it.
func importWhat(sv service.Server) string {
	if sv.Transport.Remote() {
		what := "connects to " + sanitize.Line(sv.URL)
		if len(sv.HeaderNames) > 0 {
			what += " · headers " + names(sv.HeaderNames)
		}
		return what
	}
	what := "runs " + commandLine(sv.Command, sv.Args)
	if len(sv.EnvNames) > 0 {
		what += " · with " + names(sv.EnvNames)
	}
	return what
}

// count names the Import button after the servers checked, and disables it
// while there are none.
func (a *importDialog) count() {
	if a.ok == nil {
		return
	}
	n := len(a.checked())
	if n == 0 {
		a.ok.SetText("Import")
		a.ok.Disable()
		return
	}
	a.ok.SetText("Import " + count(n, "server"))
	a.ok.Enable()
}

// checked returns the servers checked and not yet imported.
func (a *importDialog) checked() []service.Server {
	var out []service.Server
	for _, r := range a.rows {
		if r.check.Checked && !r.check.Disabled() {
			out = append(out, r.server)
		}
	}
	return out
}

// importChecked copies each checked server's entry into mcptray's own
// config, one Add each, then shows the first.
func (v *window) importChecked(a *importDialog) {
	servers := a.checked()
	if len(servers) == 0 {
		return
	}
	a.ok.Disable()
	go func() {
		var added []service.AddResult
		imported := map[string]bool{} // by Snapshot name
		var failed []string
		for _, sv := range servers {
			res, err := v.importOne(sv)
			if err != nil {
				failed = append(failed, sanitize.Line(configName(sv))+": "+sanitize.Line(err.Error()))
				continue
			}
			added = append(added, res)
			imported[sv.Name] = true
		}
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			for _, r := range a.rows {
				if imported[r.server.Name] {
					r.check.SetText(r.check.Text + " (imported)")
					r.check.Disable()
				}
			}
			if len(failed) > 0 {
				a.problem.SetText("Not imported — " + strings.Join(failed, "\n"))
				a.problem.Show()
				a.count()
			} else {
				a.d.Hide()
			}
			if len(added) > 0 {
				v.focus(added[0].Server.Name)
			}
			v.done("import")
		})
	}()
}

// importOne adds sv's entry, as its app wrote it, to mcptray's own config
// under the same name.
func (v *window) importOne(sv service.Server) (service.AddResult, error) {
	entry, err := importedEntry(sv)
	if err != nil {
		return service.AddResult{}, err
	}
	return v.b.Add(v.ctx, service.AddRequest{Name: configName(sv), Entry: entry})
}

// importedEntry reads sv's entry, as written, from its app's config file
// (Claude Desktop's, Cursor's, Claude Code's or VS Code's). This is the one
// config file the window reads: the Snapshot leaves values out, and an
// imported server needs its environment's values to run.
func importedEntry(sv service.Server) (json.RawMessage, error) {
	file := sv.Origin.File
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s is gone; it may have just been removed", sanitize.Line(file))
		}
		return nil, fmt.Errorf("mcptray could not read %s", sanitize.Line(file))
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON just now; fix it in %s and try again", sanitize.Line(file), sanitize.Line(sv.Origin.App))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(std, &top); err != nil {
		return nil, fmt.Errorf("%s is not a config file mcptray can read", sanitize.Line(file))
	}
	name := configName(sv)
	for _, key := range []string{"mcpServers", "servers"} {
		var servers map[string]json.RawMessage
		if raw, ok := top[key]; !ok || json.Unmarshal(raw, &servers) != nil {
			continue
		}
		if entry, ok := servers[name]; ok {
			return entry, nil
		}
	}
	return nil, fmt.Errorf("it is no longer in %s; it may have just been removed", sanitize.Line(file))
}

// showAddMenu offers the ways to add a server: pasting, importing from
// the person's other apps, or finding one in the MCP Registry.
func (v *window) showAddMenu() {
	v.addMenu = fyne.NewMenu("",
		fyne.NewMenuItem("Paste a snippet or address…", v.showAdd),
		fyne.NewMenuItem("Import from your other apps…", v.showImport),
		fyne.NewMenuItem("Find servers in the MCP Registry…", v.showCatalogue),
		fyne.NewMenuItem("Install from a file…", v.showBundleChooser),
	)
	pos := v.app.Driver().AbsolutePositionForObject(v.addButton).AddXY(0, v.addButton.Size().Height)
	widget.ShowPopUpMenuAtPosition(v.addMenu, v.win.Canvas(), pos)
}
