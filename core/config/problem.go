package config

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Problem is something wrong in a config file, located as precisely as the
// file allows, in words a person can act on. A Problem skips the file or the
// one server it names; everything else still loads.
type Problem struct {
	File string `json:"file"`
	// Line and Column are 1-based; 0 when the problem has no position (a
	// file that cannot be read at all).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Server is the server's name as written, when the problem is one
	// server's and not the whole file's.
	Server  string `json:"server,omitempty"`
	Message string `json:"message"`
}

// Error formats the problem the way compilers do: file:line:column: what.
func (p Problem) Error() string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	if p.Server != "" {
		return fmt.Sprintf("%s: server %q: %s", where, p.Server, p.Message)
	}
	return fmt.Sprintf("%s: %s", where, p.Message)
}

// lineColumn turns a byte offset into a 1-based line and a 1-based column
// counted in characters, as editors count them. It reads b up to offset: for
// many offsets into one file, use positions.
func lineColumn(b []byte, offset int) (line, column int) {
	offset = min(max(offset, 0), len(b))
	start := bytes.LastIndexByte(b[:offset], '\n') + 1
	return 1 + bytes.Count(b[:offset], []byte("\n")), 1 + utf8.RuneCount(b[start:offset])
}
