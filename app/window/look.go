package window

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// lookLabel is the approval dialog's button that runs the server once, in
// its sandbox, to show its tools before the person decides.
const lookLabel = "Look at its tools first"

// lookBox is the approval dialog's "Look at its tools first" for sv, which
// gives way to what the look found; nil for a server that runs elsewhere
// (only a local server can be looked at, in its sandbox).
func (v *window) lookBox(sv service.Server) fyne.CanvasObject {
	if sv.Transport != service.Stdio {
		return nil
	}
	name := sv.Name
	body := container.NewVBox()
	var b *widget.Button
	b = widget.NewButton(lookLabel, func() {
		b.Disable()
		b.SetText(fmt.Sprintf("Looking at its tools in its sandbox (up to %s)…", service.LookTimeout))
		go func() {
			l, err := v.b.LookAtTools(v.ctx, name)
			if v.ctx.Err() != nil {
				return // the window is closing
			}
			v.do(func() {
				b.Hide()
				if err != nil {
					msg := wrapped("mcptray could not look at its tools: " + sanitize.Line(err.Error()))
					msg.Importance = widget.WarningImportance
					body.Add(msg)
				} else {
					for _, text := range lookText(l) {
						msg := wrapped(text)
						if strings.HasPrefix(text, lookFlaggedIntro) || text == l.ChangesWords() {
							msg.Importance = widget.WarningImportance
						}
						body.Add(msg)
					}
				}
				v.done("look")
			})
		}()
	})
	body.Add(b)
	v.lookButton = b
	return body
}

// lookFlaggedIntro begins the look's flagged tools.
const lookFlaggedIntro = "These tools' descriptions give the AI instructions"

// lookText says what a look found, a paragraph each, as mcptray approve
// --look says it: the npm package it runs, how its tools changed since
// the person last accepted them (a server that ran before), the flagged
// tools with the lines quoted, the others by name, the prompts, and the
// connections it was refused.
func lookText(l service.Look) []string {
	var out []string
	if p := l.Package; p != nil {
		if w := strings.TrimRight(sanitize.String(p.HiddenWords), "\n"); w != "" {
			out = append(out, w) // its code's hidden characters first
		}
		what := "tree"
		if p.Facts.Image != nil {
			what = "image"
		}
		out = append(out, "It runs "+sanitize.Line(p.Words)+".\nPinned by its content: approving it runs this "+what+" and no other until you update it.")
	}
	if words := l.ChangesWords(); words != "" {
		out = append(out, words) // sanitized there
	}
	if len(l.Tools) == 0 {
		out = append(out, "It ran in its sandbox and offers no tools.")
	}
	var flagged, plain []string
	for _, t := range l.Tools {
		if l.Flagged(t.Name) {
			flagged = append(flagged, "The tool "+sanitize.Line(t.Name)+": "+strings.TrimPrefix(flagText(l.Flags[t.Name]), flaggedIntro+"\n"))
		} else {
			plain = append(plain, sanitize.Line(t.Name))
		}
	}
	if len(flagged) > 0 {
		out = append(out, lookFlaggedIntro+" (if you approve it, mcptray asks before each of their calls):\n"+strings.Join(flagged, "\n"))
	}
	if len(plain) > 0 {
		intro := "Its tools"
		if len(flagged) > 0 {
			intro = "Its other tools"
		}
		out = append(out, intro+": "+strings.Join(plain, ", ")+".")
	}
	if len(l.Prompts) > 0 {
		var names []string
		for _, p := range l.Prompts {
			names = append(names, sanitize.Line(p.Name))
		}
		out = append(out, "Its prompts: "+strings.Join(names, ", ")+".")
	}
	if !l.Protection.Network {
		out = append(out, "Its network was not restricted while mcptray looked ("+sanitize.Line(l.Protection.Words)+").")
	}
	for _, r := range l.Network {
		out = append(out, "While mcptray looked, it tried to reach "+sanitize.Line(r.Dest)+": refused.")
	}
	if len(l.Tools) > 0 {
		out = append(out, "Approve it now and these are the tools mcptray pins: if they differ when it starts, the changes are held for your review.")
	}
	return out
}
