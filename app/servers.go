package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// serversView lists every server with its scope and whether it may run. It
// keeps its widgets so that tests can read them.
type serversView struct {
	summary *widget.Label
	list    *widget.List
	rows    []string
	content fyne.CanvasObject
}

func newServersView(set *config.Set) *serversView {
	v := &serversView{summary: widget.NewLabel("")}
	v.list = widget.NewList(
		func() int { return len(v.rows) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(v.rows[i]) },
	)
	v.content = container.NewBorder(v.summary, nil, nil, nil, v.list)
	v.show(set)
	return v
}

// show replaces what the view shows; call it on the Fyne goroutine.
func (v *serversView) show(set *config.Set) {
	v.summary.SetText(summary(set))
	v.rows = v.rows[:0]
	for _, e := range set.Servers {
		v.rows = append(v.rows, fmt.Sprintf("%s — %s — %s", sanitize.Line(e.Name), e.Scope, e.Status()))
	}
	v.list.Refresh()
}

// summary is the one line at the top: how many servers, and what needs the
// person.
func summary(set *config.Set) string {
	if len(set.Servers) == 0 {
		return "No MCP servers yet."
	}
	counts := map[string]int{}
	for _, e := range set.Servers {
		counts[e.Status()]++
	}
	parts := []string{count(len(set.Servers), "server")}
	for _, s := range []string{"awaiting approval", "denied", "disabled"} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if n := len(set.Problems); n > 0 {
		parts = append(parts, count(n, "config problem"))
	}
	return strings.Join(parts, " · ")
}

// count writes "1 server", "2 servers".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
