package window

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// What each app gets, in the Apps view: every server, the tray's set or a
// set, chosen by click, with the app's line in words ("Cursor: the Work
// set, 3 servers, 41 tools") and a warning when that is more tools than
// the app can use.

// The choices' words in the Apps view.
const (
	getsEverything = "Every server"
	getsTray       = "The tray's set"
)

// getsLabel is the word of a set in the choice.
func getsLabel(name string) string { return "The " + name + " set" }

// whatItGets is an app's "What it gets" row, when there are sets and the
// app is one mcptray names in its config.
func (a *appsView) whatItGets(v *window, app service.App) fyne.CanvasObject {
	if app.Key == "" || a.sets == nil || len(a.sets.Sets) == 0 {
		return nil
	}
	options := []string{getsEverything, getsTray}
	byLabel := map[string]string{getsEverything: service.GetsEverything, getsTray: service.GetsTray}
	for _, s := range a.sets.Sets {
		options = append(options, getsLabel(s.Name))
		byLabel[getsLabel(s.Name)] = s.Name
	}
	choice := a.sets.Apps[app.Key]
	selected := getsEverything
	switch {
	case choice == service.GetsTray:
		selected = getsTray
	case choice != "":
		selected = getsLabel(choice)
	}
	sel := widget.NewSelect(options, nil)
	sel.Selected = selected
	sel.OnChanged = func(label string) {
		if to, ok := byLabel[label]; ok && label != selected {
			v.giveApp(app.Key, to)
		}
	}
	a.gets[app.Key] = sel
	words := wrapped(a.getsWords(app))
	a.getsText[app.Key] = words
	box := container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("What it gets:"), nil, sel), words)
	if w := a.overLimit(app); w != "" {
		warn := wrapped(w)
		warn.Importance = widget.WarningImportance
		box.Add(warn)
	}
	return box
}

// givenSet is the set an app gets, if any.
func (a *appsView) givenSet(app service.App) (service.SetView, bool) {
	name := a.sets.Apps[app.Key]
	if name == service.GetsTray {
		name = a.sets.Tray
	}
	for _, s := range a.sets.Sets {
		if s.Name == name && name != "" {
			return s, true
		}
	}
	return service.SetView{}, false
}

// getsWords is the app's line: "Cursor: the Work set, 3 servers, 41
// tools", or "Cursor: every server".
func (a *appsView) getsWords(app service.App) string {
	name := sanitize.Line(app.Name)
	s, ok := a.givenSet(app)
	if !ok {
		if a.sets.Apps[app.Key] == service.GetsTray {
			return name + ": the tray's set, now every server"
		}
		return name + ": every server"
	}
	line := fmt.Sprintf("%s: the %s set, %s, %s", name, sanitize.Line(s.Name), plural(s.ServerCount, "server"), plural(s.ToolCount, "tool"))
	if a.sets.Apps[app.Key] == service.GetsTray {
		line += " (the tray's set)"
	}
	if len(s.Joined) > 0 {
		line += "; new servers join it: " + sanitize.Line(strings.Join(s.Joined, ", "))
	}
	if s.Warning != "" {
		line += ". " + capitalise(sanitize.Line(s.Warning)) + "."
	}
	return line
}

// overLimit warns when the app's set holds more tools than the app can
// use (gateway.Clients).
func (a *appsView) overLimit(app service.App) string {
	s, ok := a.givenSet(app)
	if !ok {
		return ""
	}
	for _, c := range gateway.Clients {
		if c.App == app.Name && c.ToolLimit > 0 && s.ToolCount > c.ToolLimit {
			return fmt.Sprintf("The %s set has %d tools, more than the %d %s can use: it may leave some out. Give it a smaller set.",
				sanitize.Line(s.Name), s.ToolCount, c.ToolLimit, sanitize.Line(app.Name))
		}
	}
	return ""
}

// plural is "1 server", "3 servers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// giveApp gives an app a set, off the UI goroutine, and shows the Apps
// view again.
func (v *window) giveApp(app, choice string) {
	g := v.b
	v.appsWork.Add(1)
	go func() {
		defer v.appsWork.Done()
		_, err := g.GiveApp(v.ctx, service.GiveRequest{App: app, Choice: choice})
		v.do(func() {
			if err != nil {
				v.showError("Couldn't change what the app gets", err)
			}
			v.reloadApps()
		})
	}()
}

// renderSets lists the sets, each in words with Edit…, and New set… to
// make one by click.
func (a *appsView) renderSets(v *window) {
	a.setsBox.RemoveAll()
	a.editSet = map[string]*widget.Button{}
	if a.sets != nil {
		for _, s := range a.sets.Sets {
			line := capitalise(sanitize.Line(s.Words))
			if a.sets.Tray == s.Name {
				line += " (the tray's set)"
			}
			name := s.Name
			edit := widget.NewButton("Edit…", func() { v.showSetEditor(name) })
			a.editSet[name] = edit
			a.setsBox.Add(container.NewBorder(nil, nil, nil, container.NewVBox(edit), wrapped(line)))
		}
		if a.sets.Problem != "" {
			p := wrapped(capitalise(sanitize.Line(a.sets.Problem)))
			p.Importance = widget.WarningImportance
			a.setsBox.Add(p)
		}
	}
	if a.sets == nil || len(a.sets.Sets) == 0 {
		a.setsBox.Add(wrappedCaption("Every app gets every server. A set gives an app only the servers you choose; the tray switches the apps that follow it from one set to another."))
	}
	a.newSet = widget.NewButton("New set…", func() { v.showSetEditor("") })
	a.setsBox.Add(container.NewHBox(a.newSet))
}
