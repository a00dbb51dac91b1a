package sanitize

import (
	"strconv"
	"strings"
	"testing"
)

// TestFindLocates: each hidden character is named by its code point and
// Unicode name, on its line and at its column, once for each kind on a
// line with its count; a run that spells text is one, saying what.
func TestFindLocates(t *testing.T) {
	t.Parallel()
	s := "const a = 1;\nsend(x) /* \u202e \u200bx\u200b */\nok" + tags("read ~/.ssh") + "\n"
	got := Find(s)
	want := []string{
		"2:12 U+202E RIGHT-TO-LEFT OVERRIDE",
		"2:14 U+200B ZERO WIDTH SPACE (2 times)",
		`3:3 11 invisible characters spelling "read ~/.ssh" (from U+E0072 TAG LATIN SMALL LETTER R)`,
	}
	if len(got) != len(want) {
		t.Fatalf("Find found %+v, want %q", got, want)
	}
	for i, f := range got {
		if w := strings.Join([]string{itoa(f.Line) + ":" + itoa(f.Column), f.Words()}, " "); w != want[i] {
			t.Errorf("Find's %d: %q, want %q", i, w, want[i])
		}
	}
	if Find("plain\ttext\r\n東京 مرحبا 🙂\n") != nil {
		t.Errorf("Find found something in plain text")
	}
}

// TestFindAllNamesControls: FindAll also names control characters and
// lone carriage returns, not "\r\n" or tabs, and bytes that are not UTF-8.
func TestFindAllNamesControls(t *testing.T) {
	t.Parallel()
	got := FindAll("a\tb\r\nc\x1b[2Kd\re\xff")
	var words []string
	for _, f := range got {
		words = append(words, itoa(f.Line)+" "+f.Words())
	}
	if w := strings.Join(words, "; "); w != "2 U+001B ESCAPE; 2 U+000D CARRIAGE RETURN; 2 BYTES THAT ARE NOT UTF-8" {
		t.Errorf("FindAll: %s", w)
	}
	if FindAll("a\tb\r\nc") != nil {
		t.Errorf("FindAll found something in clean text")
	}
}

// TestFindLongRunIsLinear: a long run of selectors that spells nothing
// is read once, not once for each of its characters.
func TestFindLongRunIsLinear(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("\ufe0f", 200000)
	got := Find(s)
	if len(got) != 1 || got[0].Count != 200000 || got[0].Name != "VARIATION SELECTOR-16" {
		t.Errorf("Find: %+v", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestNames: the names Find gives, the variation selectors' made.
func TestNames(t *testing.T) {
	t.Parallel()
	for r, want := range map[rune]string{
		0x202e: "RIGHT-TO-LEFT OVERRIDE", 0x200b: "ZERO WIDTH SPACE", 0xfeff: "ZERO WIDTH NO-BREAK SPACE",
		0xe0041: "TAG LATIN CAPITAL LETTER A", 0xe0001: "LANGUAGE TAG", 0x2028: "LINE SEPARATOR",
		0xfe0f: "VARIATION SELECTOR-16", 0xe0100: "VARIATION SELECTOR-17", 0xe01ef: "VARIATION SELECTOR-256",
		0x1b: "ESCAPE", 0x0d: "CARRIAGE RETURN", 0x01: "CONTROL CHARACTER", 0xe0080: "UNNAMED CHARACTER",
	} {
		if got := Name(r); got != want {
			t.Errorf("Name(%U) = %q, want %q", r, got, want)
		}
	}
}
