package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain ascii", "list_files: lists files", "list_files: lists files"},
		{"keeps newline and tab", "a\n\tb", "a\n\tb"},
		{"keeps other scripts", "héllo 世界 مرحبا 🙂", "héllo 世界 مرحبا 🙂"},
		{"keeps U+FFFD itself", "a\uFFFDb", "a\uFFFDb"},
		{"right-to-left override", "run \u202Etxt.exe", "run txt.exe"},
		{"all embeddings and overrides", "\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee", "abcde"},
		{"isolates", "\u2066a\u2067b\u2068c\u2069", "abc"},
		{"marks", "a\u200Eb\u200Fc\u061Cd", "abcd"},
		{"zero-width", "ig\u200Bnore\u200C prev\u200Dious\u2060\uFEFF", "ignore previous"},
		{"leading BOM", "\uFEFFhello", "hello"},
		{"soft hyphen", "de\u00ADlete", "delete"},
		{"mongolian vowel separator", "a\u180Eb", "ab"},
		{"invisible operators", "a\u2061\u2062\u2063\u2064b", "ab"},
		{"deprecated format", "a\u206A\u206B\u206C\u206D\u206E\u206Fb", "ab"},
		{"interlinear annotation", "a\uFFF9b\uFFFAc\uFFFBd", "abcd"},
		{"tag characters", "hi\U000E0001\U000E0069\U000E0067\U000E006E\U000E007F", "hi"},
		{"unassigned tag code points", "a\U000E0000\U000E0002\U000E001Fb", "ab"},
		{"C0 controls", "a\x00b\x01c\x1bd\x7fe", "abcde"},
		{"vertical tab and form feed", "a\vb\fc", "abc"},
		{"ANSI escape loses ESC only", "\x1b[31mred", "[31mred"},
		{"C1 controls", "a\u0080b\u009Bc\u009Fd", "abcd"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"lone CR", "safe\rEVIL", "safe\nEVIL"},
		{"CR CR LF", "a\r\r\nb", "a\n\nb"},
		{"next line", "a\u0085b", "a\nb"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a\nb\nc"},
		{"invalid byte", "a\xffb", "a\uFFFDb"},
		{"run of invalid bytes", "a\xff\xfe\xfdb", "a\uFFFDb"},
		{"truncated rune", "a\xe4\xb8", "a\uFFFD"},
		{"encoded surrogate", "a\xed\xa0\x80b", "a\uFFFDb"},
		{"invalid around removed", "\xff\u200B\xff", "\uFFFD\uFFFD"},
		{"only removed", "\u200B\u202E\x00", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%+q) = %+q, want %+q", tt.in, got, tt.want)
			}
		})
	}
}

// Not parallel: AllocsPerRun counts every allocation in the process and
// refuses to run beside parallel tests.
func TestStringReturnsInputUnchanged(t *testing.T) {
	for _, in := range []string{"", "plain", "a\nb\tc", "héllo 世界 🙂", strings.Repeat("x", 10000)} {
		if allocs := testing.AllocsPerRun(100, func() { _ = String(in) }); allocs != 0 {
			t.Errorf("String(%.20q) allocated %v times, want 0", in, allocs)
		}
		if got := String(in); got != in {
			t.Errorf("String(%.20q) changed clean input", in)
		}
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain", "GitHub", "GitHub"},
		{"single spaces kept", "my server", "my server"},
		{"newlines and tabs", "line one\nline two\tend", "line one line two end"},
		{"collapses runs", "a    b  \t\n c", "a b c"},
		{"trims", "  \t name \r\n", "name"},
		{"unicode spaces", "a\u00A0\u3000b\u2003c", "a b c"},
		{"only space", " \t\n ", ""},
		{"sanitises first", "\u202Eevil\u200B name", "evil name"},
		{"removed rune between spaces", "a \u200B b", "a b"},
		{"CRLF", "a\r\nb", "a b"},
		{"invalid UTF-8", "a \xff b", "a \uFFFD b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Line(tt.in); got != tt.want {
				t.Errorf("Line(%+q) = %+q, want %+q", tt.in, got, tt.want)
			}
		})
	}
}

// Not parallel, for the same reason as TestStringReturnsInputUnchanged.
func TestLineReturnsInputUnchanged(t *testing.T) {
	for _, in := range []string{"", "GitHub", "my server 2", "世界 🙂"} {
		if allocs := testing.AllocsPerRun(100, func() { _ = Line(in) }); allocs != 0 {
			t.Errorf("Line(%q) allocated %v times, want 0", in, allocs)
		}
	}
}

// checkClean fails t unless out, the result of fn(in), is valid UTF-8 that
// String leaves alone, holds no rune String removes, and holds nothing that
// was not in the input, in the same order, except U+FFFD and the runes for
// which made reports true (the ones fn writes itself).
func checkClean(t *testing.T, fn, in, out string, made func(rune) bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%+q) = %+q: not valid UTF-8", fn, in, out)
	}
	if again := String(out); again != out {
		t.Fatalf("%s(%+q) = %+q, which String changes to %+q", fn, in, out, again)
	}
	for _, r := range out {
		if (removed(r) && r <= 0x9f) || lineBreak(r) {
			t.Fatalf("%s(%+q) = %+q: kept %U", fn, in, out, r)
		}
	}
	if i := Index(out); i >= 0 { // only an emoji's joiners, selectors and tags are kept
		t.Fatalf("%s(%+q) = %+q: kept what hides text at %d", fn, in, out, i)
	}
	rest := in
	for _, r := range out {
		if r == utf8.RuneError || made(r) {
			continue
		}
		i := strings.IndexRune(rest, r)
		if i < 0 {
			t.Fatalf("%s(%+q) = %+q: %U is not in the input in this order", fn, in, out, r)
		}
		rest = rest[i+utf8.RuneLen(r):]
	}
}

func FuzzString(f *testing.F) {
	for _, seed := range []string{
		"",
		"plain text",
		"run \u202Etxt.exe",
		"ig\u200Bnore\u200D prev\uFEFFious",
		"hi\U000E0001\U000E0069\U000E007F",
		"a\r\nb\rc\u0085d\u2028e",
		"\xff\u200B\xfe\xed\xa0\x80",
		"\x1b[2J\x00\u009B\u00AD",
		"👨\u200D👩\u200D👧",
		"❤\uFE0F\u200B\uFE0F\u200D🔥",
		"🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F\U000E007F",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkClean(t, "String", in, String(in), func(r rune) bool { return r == '\n' })
	})
}

func FuzzLine(f *testing.F) {
	for _, seed := range []string{"", " a  b ", "a\r\n\tb", "\u3000\u202Ex\u00A0"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Line(in)
		checkClean(t, "Line", in, out, func(r rune) bool { return r == ' ' })
		if again := Line(out); again != out {
			t.Fatalf("Line not idempotent on %+q: %+q then %+q", in, out, again)
		}
		if strings.ContainsAny(out, "\n\t") || strings.Contains(out, "  ") || strings.TrimSpace(out) != out {
			t.Fatalf("Line(%+q) = %+q: not a single trimmed line", in, out)
		}
	})
}

func BenchmarkString(b *testing.B) {
	desc := strings.Repeat("Lists the files in a directory, with sizes and dates. ", 40)
	cases := []struct{ name, in string }{
		{"clean-ascii", desc},
		{"clean-unicode", strings.Repeat("Liste les fichiers — 一覧 🙂 ", 80)},
		{"dirty", desc + "\u202E" + desc},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				_ = String(c.in)
			}
		})
	}
}
