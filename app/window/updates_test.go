package window

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/sanitize"
)

// TestUpdateFirstWordsLocateHidden: the Updates view's first words of an
// update whose added lines hide characters name each, by code point and
// name, with its file and line, as mcptray update NAME does.
func TestUpdateFirstWordsLocateHidden(t *testing.T) {
	r := npmpin.Review{Package: "x", FromVersion: "1.0.0", ToVersion: "1.0.1",
		Hidden: []npmpin.HiddenChar{{File: "x/lib/send.js", Found: sanitize.Found{Line: 12, Column: 3, CodePoint: "U+202E", Name: "RIGHT-TO-LEFT OVERRIDE", Count: 1}}}}
	words := firstWords(r)
	if !strings.Contains(words, "U+202E RIGHT-TO-LEFT OVERRIDE at line 12 of x/lib/send.js") {
		t.Errorf("the update's first words:\n%s", words)
	}
	if !strings.Contains(restWords(r), "Nothing else changes") {
		t.Errorf("the rest says the hidden characters again:\n%s", restWords(r))
	}
}

// TestUpdateFirstWordsNameScripts: the Updates view's first words name the
// packages whose install scripts the update runs, the new ones too.
func TestUpdateFirstWordsNameScripts(t *testing.T) {
	r := npmpin.Review{Package: "x", FromVersion: "1.0.0", ToVersion: "1.0.1",
		Scripts: &npmpin.ScriptsRun{Packages: []string{"gyp-thing@3.0.0"}, Ran: true}, NewScripts: []string{"gyp-thing@3.0.0"}}
	if w := firstWords(r); !strings.Contains(w, "Its install scripts: install scripts ran in its sandbox: gyp-thing@3.0.0. New since the version that runs: gyp-thing@3.0.0.") {
		t.Errorf("the update's first words:\n%s", w)
	}
}
