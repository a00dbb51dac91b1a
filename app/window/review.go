package window

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// The review: a server whose tools changed since the person saw them has
// the changed ones held from apps (service.Review). The detail shows, per
// held tool, what changed in words, with the description's added words in
// bold green and removed ones in red italics, and what in it reads as
// orders to the AI; Accept offers it to apps as it is now, Keep it held
// leaves it held, a decision mcptray keeps with the pins: the tool then
// says since when it is kept held, keeps its Accept, and no longer counts
// as waiting to be looked at. Tools offered but flagged are marked too,
// and the server's "Accept changes from this server" switch is there.

// reviewTexts are the review's fixed words, for tests.
const (
	acceptLabel      = "Accept"
	keepHeldLabel    = "Keep it held"
	acceptAllLabel   = "Accept changes from this server"
	flaggedIntro     = "This tool's description gives the AI instructions:"
	reviewHeaderText = "Changed since you saw it"
	keptHeldText     = "You keep it held since"
)

// newReview is the detail's review section, empty until a server with a
// review is shown.
func newReview() *fyne.Container { return container.NewVBox() }

// showReview fills the review section with sv's review.
func (d *detail) showReview(v *window, sv service.Server) {
	d.review.RemoveAll()
	r := sv.Review
	if sv.BuiltIn() || r == nil && sv.State != service.Connected {
		d.review.Hide()
		return
	}
	if r == nil {
		r = &service.Review{} // nothing changed: the switch alone
	}
	held := len(r.Held) + len(r.HeldPrompts)
	if held > 0 {
		head := section(reviewHeaderText + " — " + r.Summary())
		head.Importance = widget.WarningImportance
		d.review.Add(head)
		d.review.Add(wrapped("Your apps are not offered what changed until you accept it."))
	}
	if r.Changes > 0 {
		d.review.Add(wrapped(fmt.Sprintf("Its tools changed %s since you first saw them, last on %s.", timesText(r.Changes), r.LastChange.Local().Format("2 Jan 2006 15:04"))))
	}
	for _, group := range []struct {
		kind string
		list []service.ToolChange
	}{{"tool", r.Held}, {"prompt", r.HeldPrompts}} {
		for _, h := range group.list {
			d.review.Add(v.heldView(sv.Name, group.kind, h))
		}
	}
	for _, n := range r.Removed {
		d.review.Add(wrapped(fmt.Sprintf("The tool %s was removed: apps no longer see it.", sanitize.Line(n))))
	}
	for _, tool := range sortedKeys(r.Flags) {
		if heldNamed(r, tool) {
			continue
		}
		box := container.NewVBox(widget.NewLabelWithStyle(sanitize.Line(tool)+" — flagged; mcptray asks before each call", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		box.Add(flagsView(r.Flags[tool]))
		d.review.Add(box)
	}
	name := sv.Name
	check := widget.NewCheck(acceptAllLabel, nil)
	check.SetChecked(r.AcceptChanges)
	check.OnChanged = func(on bool) {
		v.act("Could not change how "+sanitize.Line(name)+"'s changes are taken", func(ctx context.Context) error {
			return v.b.SetAcceptChanges(ctx, name, on)
		})
	}
	d.review.Add(check)
	d.review.Add(lowNote("On: its changes are taken as they come, but for tools whose descriptions give the AI instructions and tools that claim to be less risky than before."))
	d.review.Show()
}

// heldView is one held tool (or prompt): its name and what changed in
// words, its flags, and Accept and Keep it held (or, kept held, since
// when).
func (v *window) heldView(server, kind string, h service.ToolChange) fyne.CanvasObject {
	title := widget.NewLabelWithStyle(fmt.Sprintf("The %s %s %s", kind, sanitize.Line(h.Name), sanitize.Line(h.Words.Summary)), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	box := container.NewVBox(title)
	if len(h.Words.Description) > 0 {
		box.Add(descriptionDiff(h.Words.Description))
	}
	for _, l := range h.Words.Lines {
		if l != "its description changed" {
			box.Add(wrapped("• " + sanitize.Line(l)))
		}
	}
	if len(h.Flags) > 0 {
		box.Add(flagsView(h.Flags))
	}
	name := h.Name
	accept := widget.NewButton(acceptLabel, func() {
		v.act("Could not accept "+sanitize.Line(name), func(ctx context.Context) error {
			_, err := v.b.AcceptTools(ctx, server, []string{name})
			return err
		})
	})
	accept.Importance = widget.HighImportance
	if h.Kept() {
		box.Add(lowNote(keptHeldText + " " + h.KeptSince.Local().Format("2 Jan 2006 15:04") + ": your apps are not offered it."))
		box.Add(container.NewHBox(accept))
		return box
	}
	keep := widget.NewButton(keepHeldLabel, func() {
		v.act("Could not keep "+sanitize.Line(name)+" held", func(ctx context.Context) error {
			_, err := v.b.KeepHeld(ctx, server, []string{name})
			return err
		})
	})
	box.Add(container.NewHBox(accept, keep))
	return box
}

// descriptionDiff is a description's words with the added ones in bold
// green and the removed ones in red italics, as one wrapped text.
func descriptionDiff(segs []pins.Segment) *widget.RichText {
	var out []widget.RichTextSegment
	for _, s := range segs {
		style := widget.RichTextStyleInline
		switch s.Op {
		case pins.Added:
			style.ColorName = theme.ColorNameSuccess
			style.TextStyle = fyne.TextStyle{Bold: true}
		case pins.Dropped:
			style.ColorName = theme.ColorNameError
			style.TextStyle = fyne.TextStyle{Italic: true}
		}
		out = append(out, &widget.TextSegment{Text: strings.ReplaceAll(sanitize.String(s.Text), "\n", " "), Style: style})
	}
	rt := widget.NewRichText(out...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// flagsView says what in a tool reads as orders, with the lines quoted.
func flagsView(flags []pins.Flag) fyne.CanvasObject {
	l := wrapped(flagText(flags))
	l.Importance = widget.WarningImportance
	return l
}

func lowNote(text string) *widget.Label {
	l := wrapped(text)
	l.Importance = widget.LowImportance
	return l
}

func heldNamed(r *service.Review, name string) bool {
	for _, h := range r.Held {
		if h.Name == name {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func timesText(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// approvalFlags says, for the approval dialog, which of a server's tools
// gave the AI instructions when it last ran, with the lines quoted; "" when
// none did (or it never ran: a server's tools are known once it runs).
func approvalFlags(sv service.Server) string {
	if sv.Review == nil || len(sv.Review.Flags) == 0 {
		return ""
	}
	var lines []string
	for _, tool := range sortedKeys(sv.Review.Flags) {
		lines = append(lines, "The tool "+sanitize.Line(tool)+": "+strings.TrimPrefix(flagText(sv.Review.Flags[tool]), flaggedIntro+"\n"))
	}
	return "When it last ran, these tools' descriptions gave the AI instructions (mcptray asks before each of their calls):\n" + strings.Join(lines, "\n")
}

// flagText is flagsView's text.
func flagText(flags []pins.Flag) string {
	lines := []string{flaggedIntro}
	for _, q := range pins.ByQuote(flags) { // a line that breaks three rules is quoted once
		whats := make([]string, len(q.Whats))
		for i, w := range q.Whats {
			whats[i] = sanitize.Line(w)
		}
		lines = append(lines, fmt.Sprintf("• %s (%s): “%s”", strings.Join(whats, "; "), sanitize.Line(q.Where), sanitize.Line(q.Quote)))
	}
	return strings.Join(lines, "\n")
}

// flaggedNoteText marks a flagged tool in the server's tool list.
const flaggedNoteText = "Its description gives the AI instructions (quoted above); mcptray asks before each call."

// withFlag is a tool's view, marked when its definition reads as orders to
// the AI.
func withFlag(view fyne.CanvasObject, sv service.Server, t tools.Tool) fyne.CanvasObject {
	if !sv.Review.Flagged(t.Name) {
		return view
	}
	note := wrapped(flaggedNoteText)
	note.Importance = widget.WarningImportance
	return container.NewVBox(view, note)
}
