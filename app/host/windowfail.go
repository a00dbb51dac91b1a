package host

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// windowSays begins each line the window's process writes for a person
// to read when it cannot open (main's runWindow): the tray shows those
// lines, without it, when the window ends with an error.
const windowSays = "mcptray window: "

// keepOutput is how much of the window's output the tray keeps to say why
// it failed: its beginning, where a Go crash says why and where the
// window's own words are.
const keepOutput = 16 << 10

// windowOutput is the window process's stderr as the tray passes it on:
// copied to the tray's own stderr, when it has one (a failed write there
// is no reason to stop reading the window), and its beginning kept.
type windowOutput struct {
	to io.Writer // nil: nowhere

	mu   sync.Mutex
	kept bytes.Buffer
}

func (o *windowOutput) Write(b []byte) (int, error) {
	o.mu.Lock()
	if room := keepOutput - o.kept.Len(); room > 0 {
		o.kept.Write(b[:min(room, len(b))])
	}
	o.mu.Unlock()
	if o.to != nil {
		_, _ = o.to.Write(b)
	}
	return len(b), nil
}

func (o *windowOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.kept.String()
}

// windowFailure says, as a title and words for a person, that the
// window's process ended with err having written out: the window's own
// words when it said why it cannot open, else the first line of a Go
// crash, else how it ended. tray says whether mcptray stays in the tray;
// logFile is the window's log ("" for none).
func windowFailure(out string, err error, tray bool, logFile string) (title, text string) {
	var said, crash []string
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if rest, ok := strings.CutPrefix(line, windowSays); ok {
			r, size := utf8.DecodeRuneInString(rest)
			said = append(said, string(unicode.ToUpper(r))+rest[size:])
		}
		if crash == nil && (strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") || strings.HasPrefix(line, "Exception 0x")) {
			crash = []string{strings.TrimSpace(line)}
		}
	}
	var b strings.Builder
	if len(said) > 0 {
		title = "mcptray's window could not open"
		b.WriteString(strings.Join(said, "\n"))
	} else {
		title = "mcptray's window stopped"
		if crash != nil {
			fmt.Fprintf(&b, "It ended unexpectedly: %s", crash[0])
		} else {
			fmt.Fprintf(&b, "It ended unexpectedly (%v).", err)
		}
	}
	b.WriteString("\n\n")
	switch {
	case !tray:
		b.WriteString("There is no tray to reach mcptray by, so mcptray stops.")
	case len(said) > 0:
		b.WriteString("mcptray still runs in the tray, and your apps still reach your servers.")
	default:
		b.WriteString("mcptray still runs in the tray, and your apps still reach your servers: open the window again from the tray.")
	}
	if logFile != "" {
		b.WriteString("\n\nThe window's log is at " + logFile)
	}
	return title, b.String()
}
