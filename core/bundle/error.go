package bundle

import (
	"errors"
	"strings"
)

// Error is why a bundle was refused: what is wrong with it, in words a
// person can act on.
type Error struct {
	// File is the bundle's file, as it was given.
	File string
	// What says what is wrong; Problems, when there are several, each.
	What     string
	Problems []string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	b.WriteString(e.What)
	if len(e.Problems) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(e.Problems, "; "))
	}
	return b.String()
}

// IsRefused reports whether err says a bundle was refused (not, say,
// that its file could not be read).
func IsRefused(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

func refuse(what string, problems ...string) *Error {
	return &Error{What: what, Problems: problems}
}
