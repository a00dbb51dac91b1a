package window

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// The permission select's options, in the order shown.
var permissionWords = []string{"Allow", "Ask", "Block"}

var permissionOf = map[string]service.Permission{"Allow": service.Allow, "Ask": service.Ask, "Block": service.Block}

func permissionWord(p service.Permission) string {
	switch p {
	case service.Allow:
		return "Allow"
	case service.Block:
		return "Block"
	}
	return "Ask"
}

// rulesWidgets are the gateway switches of the server on show, for tests.
type rulesWidgets struct {
	server     string
	hideServer *widget.Check
	permission map[string]*widget.Select // by the tool's qualified name
	hide       map[string]*widget.Check
	// labels are the flow guard's labels of the connected servers'
	// tools, guard the switches that correct them (guardlabels.go).
	labels map[string]*service.ToolLabels
	guard  map[string]*guardSwitches
}

// serverRules is the server's "hide all" switch, shown above its tools;
// never nil: every backend can change the gateway's rules.
func (v *window) serverRules(sv service.Server) fyne.CanvasObject {
	v.rules = nil
	rules := v.snap.Gateway
	v.rules = &rulesWidgets{server: sv.Name, permission: map[string]*widget.Select{}, hide: map[string]*widget.Check{},
		labels: v.snap.GuardLabels(), guard: map[string]*guardSwitches{}}
	c := widget.NewCheck("Hide all its tools from apps", nil)
	c.SetChecked(rules.Hides(sv.Name, ""))
	name := sv.Name
	c.OnChanged = func(on bool) {
		v.act("Could not change what apps see", func(ctx context.Context) error { return v.b.SetHidden(ctx, name, on) })
	}
	v.rules.hideServer = c
	return container.NewVBox(c, wrappedCaption("Apps reach these tools through mcptray's gateway. Fewer tools: hide servers or tools you don't need."))
}

// toolWithRules is a tool's view with its permission and its Hide switch.
func (v *window) toolWithRules(sv service.Server, t tools.Tool) fyne.CanvasObject {
	view := withFlag(toolView(t), sv, t) // review.go
	if v.rules == nil || v.rules.server != sv.Name || t.QualifiedName == "" {
		return view
	}
	rules := v.snap.Gateway
	q := t.QualifiedName
	// A flagged tool asks, as the gateway does, whatever it claims.
	readOnly := t.Hints.ReadOnly == tools.HintTrue && !sv.Review.Flagged(t.Name)
	chosen, own := rules.Permissions[q]
	def := service.Ask
	if readOnly {
		def = service.Allow
	}
	sel := widget.NewSelect(permissionWords, nil)
	if own {
		sel.SetSelected(permissionWord(chosen))
	} else {
		sel.SetSelected(permissionWord(def))
	}
	sel.OnChanged = func(word string) {
		p := permissionOf[word]
		v.act("Could not change the tool's permission", func(ctx context.Context) error { return v.b.SetPermission(ctx, q, p) })
	}
	hide := widget.NewCheck("Hide", nil)
	hide.SetChecked(rules.Hides(sv.Name, q))
	if rules.Hides(sv.Name, "") {
		hide.Disable() // the whole server is hidden
	}
	hide.OnChanged = func(on bool) {
		v.act("Could not change what apps see", func(ctx context.Context) error { return v.b.SetHidden(ctx, q, on) })
	}
	v.rules.permission[q], v.rules.hide[q] = sel, hide
	var info string
	switch {
	case own:
		info = "When an app calls it: your choice."
	case readOnly:
		info = "When an app calls it: allowed, as its server says it only reads."
	default:
		info = "When an app calls it: you are asked."
	}
	if own && readOnly {
		info += " (Its server says it only reads; your choice stands.)"
	}
	name := caption(sanitize.Line(q))
	name.Truncation = fyne.TextTruncateEllipsis
	box := container.NewVBox(view,
		container.NewBorder(nil, nil, nil, container.NewHBox(sel, hide), name),
		wrappedCaption(info))
	if labels := v.guardLabels(t); labels != nil {
		box.Add(labels)
	}
	return box
}

// wrappedCaption is a caption whose text wraps.
func wrappedCaption(text string) *widget.Label {
	l := caption(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}
