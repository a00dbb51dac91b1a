package config

import (
	"bytes"
	"sort"
	"unicode/utf8"
)

// positions turns byte offsets in one file into lines and columns as
// lineColumn does, for every server and problem of the file: calling
// lineColumn for each would read the file from its start every time, which
// for a file of many servers on one line (a minified .mcp.json) takes time
// quadratic in its size.
//
// It counts on from the previous answer. Servers and their problems are
// read in file order, so the offsets asked for mostly grow and all the
// answers together read the file about once; an offset before the previous
// one counts from the start of its own line, found in an index of line
// starts.
type positions struct {
	b          []byte
	lineStarts []int // the offset at which each line starts; lineStarts[0] is 0

	off, line, col int // the previous answer
}

func newPositions(b []byte) *positions {
	starts := make([]int, 1, 1+bytes.Count(b, []byte("\n")))
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &positions{b: b, lineStarts: starts, line: 1, col: 1}
}

// at returns the 1-based line and character column of offset, which must
// fall on the start of a character.
func (p *positions) at(offset int) (line, column int) {
	offset = min(max(offset, 0), len(p.b))
	if offset < p.off {
		i := sort.SearchInts(p.lineStarts, offset+1) - 1 // the last start <= offset
		p.off, p.line, p.col = p.lineStarts[i], i+1, 1
	}
	seg := p.b[p.off:offset]
	if last := bytes.LastIndexByte(seg, '\n'); last >= 0 {
		p.line += bytes.Count(seg, []byte("\n"))
		p.col = 1 + utf8.RuneCount(seg[last+1:])
	} else {
		p.col += utf8.RuneCount(seg)
	}
	p.off = offset
	return p.line, p.col
}
