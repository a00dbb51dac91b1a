package window

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/service"
)

// The guard's modes as Settings offers them, in the order shown.
var guardModeWords = []string{"Ask me", "Block", "Off"}

var guardModeOf = map[string]service.GuardMode{"Ask me": service.GuardAsk, "Block": service.GuardBlock, "Off": service.GuardOff}

func guardModeWord(m service.GuardMode) string {
	switch m.Or() {
	case service.GuardBlock:
		return "Block"
	case service.GuardOff:
		return "Off"
	}
	return "Ask me"
}

// guardModeText says what the flow guard does, for Settings.
const guardModeText = "Once an app has read your data and something others wrote (a web page, an issue, a mail) in one session, what it read may tell it to send your data away. mcptray's guard then holds its calls that can send data out, and its servers' first connections to new hosts, until you have read what would flow where."

// guardModeNote says what each mode does.
const guardModeNote = "Ask me: you are asked in this window (with no window, such calls are refused). Block: they are refused without asking. Off: they go through, and the activity record says the guard would have held them. Each tool's labels, and your corrections, are in its server's detail."

// guardMode is Settings' choice of the flow guard's mode.
type guardMode struct {
	box    fyne.CanvasObject
	choice *widget.RadioGroup
}

// newGuardMode builds the choice, showing the mode the Snapshot has.
func newGuardMode(v *window) *guardMode {
	g := &guardMode{choice: widget.NewRadioGroup(guardModeWords, nil)}
	g.choice.Horizontal = true
	g.choice.Required = true
	g.refresh(v)
	g.choice.OnChanged = func(word string) {
		m, ok := guardModeOf[word]
		if !ok || m == v.snap.Gateway.Guard.Mode.Or() {
			return
		}
		v.act("Could not change the guard", func(ctx context.Context) error { return v.b.SetGuardMode(ctx, m) })
	}
	note := wrappedCaption(guardModeNote)
	g.box = container.NewVBox(wrapped(guardModeText), g.choice, note)
	return g
}

// refresh shows the Snapshot's mode without answering it as a change.
func (g *guardMode) refresh(v *window) {
	onChanged := g.choice.OnChanged
	g.choice.OnChanged = nil
	g.choice.SetSelected(guardModeWord(v.snap.Gateway.Guard.Mode))
	g.choice.OnChanged = onChanged
}
