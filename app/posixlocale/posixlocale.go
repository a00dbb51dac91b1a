// Package posixlocale keeps Fyne quiet under the C.UTF-8 locale that
// servers, containers and CI machines run with.
//
// Fyne reads the locale while its packages initialise, takes "C" from
// "C.UTF-8" for a language, and logs an error for it on every start, even
// of a command that opens no window. Under such a locale this package's
// init, which Go runs before Fyne's (packages initialise in import-path
// order once their own imports are done, and this one needs only os and
// strings), shows Fyne the plain "C", which it quietly treats as English.
// main imports it first and calls Restore when no window will open.
package posixlocale

import (
	"os"
	"strings"
)

var restore func()

func init() {
	// The first variable set decides the locale, as in go-locale.
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		if lang, _, ok := strings.Cut(v, "."); ok && (lang == "C" || lang == "POSIX") {
			os.Setenv(k, lang)
			restore = func() { os.Setenv(k, v) }
		}
		return
	}
}

// Restore puts the locale back as it was, for the programs mcptray starts.
func Restore() {
	if restore != nil {
		restore()
		restore = nil
	}
}
