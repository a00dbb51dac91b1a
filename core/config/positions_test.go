package config

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPositionsAgreeWithLineColumn: whatever order the offsets come in,
// positions answers as lineColumn does.
func TestPositionsAgreeWithLineColumn(t *testing.T) {
	t.Parallel()
	text := []byte("{\n  \"wörk\": {\"command\": \"日本\"},\r\n\n\t\"x\": 1 // é\n}")
	var offsets []int
	for i := 0; i <= len(text); i++ {
		if i == len(text) || utf8.RuneStart(text[i]) {
			offsets = append(offsets, i)
		}
	}
	backwards := make([]int, len(offsets))
	for i, o := range offsets {
		backwards[len(offsets)-1-i] = o
	}
	shuffled := append([]int(nil), offsets...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for name, order := range map[string][]int{"forward": offsets, "backward": backwards, "shuffled": shuffled} {
		p := newPositions(text)
		for _, o := range order {
			gl, gc := p.at(o)
			if wl, wc := lineColumn(text, o); gl != wl || gc != wc {
				t.Fatalf("%s: offset %d at %d:%d, want %d:%d", name, o, gl, gc, wl, wc)
			}
		}
	}
}

// BenchmarkLoadOneLine parses a minified .mcp.json of about 500 KB, every
// server on one line. Locating each server used to read the line from its
// start, which took time quadratic in the file's size: seconds for each op
// here, over a minute for 5 MB. Read in a straight line, an op takes about
// a tenth of a second.
func BenchmarkLoadOneLine(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"mcpServers":{`)
	const servers = 5000
	for i := range servers {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `"sérver-%d":{"command":"npx","args":["-y","@example/server-%d","--flag"],"env":{"K":"v"}}`, i, i)
	}
	sb.WriteString(`}}`)
	data := []byte(sb.String())
	src := Source{Scope: Local, App: ".mcp.json", File: "/p/.mcp.json", Format: MCPServers, Folder: "/p"}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, p := parseDocument(src, data)
		if p != nil {
			b.Fatal(p)
		}
		got, problems := d.servers(Vars{})
		if len(got) != servers || len(problems) > 0 {
			b.Fatalf("%d servers, %d problems", len(got), len(problems))
		}
	}
}
