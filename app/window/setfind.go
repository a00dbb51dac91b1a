package window

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// Finding in the set editor: a field at its top shows only the servers
// and tools whose names, titles or descriptions hold every word typed,
// each tool under its server's heading. It shows and hides the rows the
// editor built as it opened, and builds nothing as the person types, so
// that it keeps up with thousands of tools. What is hidden keeps its
// ticks and choices: Save saves the whole set, whatever is shown.

// findPlaceHolder is the find field's words before anything is typed.
const findPlaceHolder = "Find a server or tool"

// findTerms are the words of q, in lower case.
func findTerms(q string) []string { return strings.Fields(strings.ToLower(q)) }

// holdsAll reports whether each of terms is in one of texts (lower case).
func holdsAll(terms []string, texts ...string) bool {
	for _, term := range terms {
		found := false
		for _, text := range texts {
			if strings.Contains(text, term) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// toolAbout is what a tool says of itself besides its name, as the find
// field searches it and the editor shows it when it is why the tool was
// found: its title, its annotations' title and its description.
func toolAbout(t tools.Tool) string {
	var parts []string
	title, hint := sanitize.Line(t.Title), sanitize.Line(t.Hints.Title)
	if title != "" {
		parts = append(parts, title)
	}
	if hint != "" && hint != title {
		parts = append(parts, hint)
	}
	if d := sanitize.Line(t.Description); d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, ": ")
}

// noMatchWords say that nothing matches q, and what to do.
func noMatchWords(q string) string {
	return fmt.Sprintf("No server or tool matches “%s”: check its spelling, or clear the search to see every server.",
		sanitize.Line(strings.TrimSpace(q)))
}

// matchWords say how many of an unticked server's tools match, and how to
// choose among them.
func matchWords(n int, server string) string {
	if n == 1 {
		return fmt.Sprintf("1 of its tools matches: tick %s to see it.", server)
	}
	return fmt.Sprintf("%d of its tools match: tick %s to see them.", n, server)
}

// find shows only what matches q, or everything when q is empty.
func (e *setEditor) find(q string) {
	terms := findTerms(q)
	shown := false
	for _, p := range e.servers {
		if p.find(terms) {
			shown = true
		}
	}
	if shown || len(terms) == 0 {
		e.none.Hide()
	} else {
		e.none.SetText(noMatchWords(q))
		e.none.Show()
	}
	e.scroll.ScrollToTop() // what was found, from the top
	e.relayout()
}

// relayout lays the editor out again once rows are shown or hidden. Fyne
// lays a container out again when its size changes; one whose rows
// changed but whose size did not (one tool found instead of another) is
// laid out here, from the top down. Refreshing the list would do it too,
// but would redraw each of its thousands of widgets.
func (e *setEditor) relayout() {
	e.layOut()
	if e.none.Visible() {
		e.layOut() // its words wrap at their width, known only now
	}
	canvas.Refresh(e.list)
}

// layOut lays the editor's scroll, the containers in it and those of each
// server shown out once.
func (e *setEditor) layOut() {
	// The scroll's own refresh (not its content's): the content at its new
	// height, and the scroll bar to match.
	e.scroll.Base.Refresh()
	if end := e.scroll.Content.Size().Height - e.scroll.Size().Height; e.scroll.Offset.Y > end {
		e.scroll.ScrollToOffset(fyne.NewPos(0, max(end, 0))) // what was below the end is gone
	}
	if c, ok := e.scroll.Content.(*fyne.Container); ok {
		relayout(c)
	}
	relayout(e.body)
	relayout(e.list)
	for _, p := range e.servers {
		if !p.under.Visible() {
			continue
		}
		relayout(p.under)
		for _, o := range p.under.Objects {
			if c, ok := o.(*fyne.Container); ok {
				relayout(c)
			}
		}
		if p.box.Visible() {
			relayout(p.box)
		}
	}
}

// relayout lays c out at its size.
func relayout(c *fyne.Container) {
	if c.Layout != nil {
		c.Layout.Layout(c.Objects, c.Size())
	}
}

// find shows the server when its name holds every term, with all its
// tools, or else when some of its tools match, with only those; it
// reports whether it shows the server.
func (p *serverPick) find(terms []string) bool {
	p.finding = len(terms) > 0
	p.whole = holdsAll(terms, p.text)
	p.matched = 0
	for _, name := range p.order {
		tp := p.tools[name]
		byName := p.whole || holdsAll(terms, p.text, tp.text)
		ok := byName || holdsAll(terms, p.text, tp.text, tp.aboutText)
		if ok {
			p.matched++
			tp.row.Show()
		} else {
			tp.row.Hide()
		}
		tp.showAbout(ok && !byName)
	}
	if !p.whole && p.matched == 0 {
		p.in.Hide()
		p.under.Hide()
		return false
	}
	p.in.Show()
	p.under.Show()
	p.show()
	return true
}

// showAbout shows what the tool says of itself under its name, or hides
// it; its label is made the first time it is shown.
func (tp *toolPick) showAbout(on bool) {
	if !on {
		if tp.about != nil {
			tp.about.Hide()
		}
		return
	}
	if tp.about == nil {
		tp.about = caption(tp.aboutShown)
		tp.about.Truncation = fyne.TextTruncateEllipsis
		tp.row.Add(tp.about)
	}
	tp.about.Show()
}

// newFindField is the find field of the editor e, with a button that
// clears it while something is typed.
func newFindField(e *setEditor) (*widget.Entry, *widget.Button) {
	f := widget.NewEntry()
	f.SetPlaceHolder(findPlaceHolder)
	clearButton := widget.NewButtonWithIcon("", theme.ContentClearIcon(), func() { f.SetText("") })
	clearButton.Importance = widget.LowImportance
	clearButton.Hide()
	f.ActionItem = clearButton
	f.OnChanged = func(q string) {
		if q == "" {
			clearButton.Hide()
		} else {
			clearButton.Show()
		}
		e.find(q)
	}
	return f, clearButton
}
