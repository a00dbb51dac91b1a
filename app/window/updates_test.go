package window

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/ocipin"
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

// TestUpdateFirstWordsOfAnImage: an image's update says its configuration's
// changes first, its layers in the rest, and that its code is not
// compared; not the words of a package's code.
func TestUpdateFirstWordsOfAnImage(t *testing.T) {
	from := ocipin.Image{Ref: "mcp/time:latest", Digest: "sha256:" + strings.Repeat("1", 64), Config: ocipin.Config{Entrypoint: []string{"/srv"}}, Layers: []string{"sha256:" + strings.Repeat("a", 64)}}
	to := ocipin.Image{Ref: "mcp/time:latest", Digest: "sha256:" + strings.Repeat("2", 64), Config: ocipin.Config{Entrypoint: []string{"/srv", "--send"}}, Layers: []string{"sha256:" + strings.Repeat("b", 64)}}
	spec := npmpin.Spec{Package: "mcp/time:latest", Image: true}
	r := npmpin.ImageReview(npmpin.ImagePin(spec, from), npmpin.ImagePin(spec, to))
	first, rest := firstWords(r), restWords(r)
	if !strings.Contains(first, `entrypoint: ["/srv"] becomes ["/srv" "--send"]`) || strings.Contains(first, "added line") {
		t.Errorf("the update's first words:\n%s", first)
	}
	if !strings.Contains(rest, "Layers: 1 added, 1 removed") || !strings.Contains(rest, "not attempted") {
		t.Errorf("the rest:\n%s", rest)
	}
	if got := changesTitle(r); got != "What else changes: 2 layers" {
		t.Errorf("the rest's title: %q", got)
	}
}
