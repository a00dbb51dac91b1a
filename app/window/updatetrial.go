package window

import (
	"fmt"

	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/service"
)

// An update's trial in the Updates view: how its tools and prompts
// change, as mcptray saw them when it started the update once in its
// server's sandbox (service.Trial), under the review of its code. An
// update that did not start cannot be run; one whose tools' words change
// says that running it accepts them.

// trialLabel shows the trial's words: a danger when the update did not
// start or its words read as orders to the AI, a warning when they
// change.
func trialLabel(t *service.Trial) *widget.Label {
	l := wrapped(t.Words()) // sanitized there, and hidden characters named
	switch {
	case t.Holds() || flagged(t):
		l.Importance = widget.DangerImportance
	case t.Changed():
		l.Importance = widget.WarningImportance
	}
	return l
}

// flagged reports whether a changed tool's or prompt's new words read as
// orders to the AI.
func flagged(t *service.Trial) bool {
	if t == nil {
		return false
	}
	for _, c := range append(append([]service.ToolChange{}, t.Tools...), t.Prompts...) {
		if len(c.Flags) > 0 {
			return true
		}
	}
	return false
}

// trialConfirmWords are what the confirmation adds of the trial.
func trialConfirmWords(t *service.Trial) string {
	if !t.Changed() {
		return ""
	}
	n := len(t.Tools) + len(t.Prompts)
	word := "change"
	if n > 1 {
		word = "changes"
	}
	return fmt.Sprintf("\n\nUpdating accepts the %d %s of its tools' words shown under the update: apps are offered them as you read them.", n, word)
}
