package sanitize

import "testing"

func TestHides(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"ig\u200bnore", "run \u202etxt.exe", "hi\U000E0049", "\ufeffBOM", "soft\u00adhyphen"} {
		if !Hides(s) {
			t.Errorf("Hides(%q) = false", s)
		}
	}
	for _, s := range []string{"plain", "tabs\tand\r\nlines", "héllo 世界 مرحبا 🙂", "ansi \x1b[31m"} {
		if Hides(s) {
			t.Errorf("Hides(%q) = true", s)
		}
	}
}
