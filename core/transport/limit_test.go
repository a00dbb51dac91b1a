package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestLimitReaderModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		mode    limitMode
		in      string
		tooLong bool
	}{
		{"line: lines at the limit", limitLine, "12345678\n12345678\n12345678", false},
		{"line: one line over", limitLine, "12345678\n123456789\n", true},
		{"line: over without a newline", limitLine, "123456789", true},
		{"event: lines of one event add up", limitEvent, "data: 1\ndata: 2\n", true},
		{"event: an empty line ends an event", limitEvent, "data:1\n\ndata:2\n\r\ndata:3\n", false},
		{"event: a line of \\r is empty", limitEvent, "d:12\r\n\r\nd:12\r\n\r\n", false},
		{"whole: the stream adds up", limitWhole, "1234\n1234\n", true},
		{"whole: at the limit", limitWhole, "123456\n\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var exceeded []error
			// One byte a Read, and all at once: where a message ends
			// must not depend on how the stream is cut.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				l := &limitReader{r: r, limit: 8, mode: tc.mode, onExceed: func(err error) { exceeded = append(exceeded, err) }}
				got, err := io.ReadAll(l)
				var tooLarge *MessageTooLargeError
				switch {
				case tc.tooLong && !errors.As(err, &tooLarge):
					t.Errorf("read %q, %v; want *MessageTooLargeError", got, err)
				case !tc.tooLong && (err != nil || string(got) != tc.in):
					t.Errorf("read %q, %v; want all of it", got, err)
				}
			}
			if want := map[bool]int{true: 2, false: 0}[tc.tooLong]; len(exceeded) != want {
				t.Errorf("onExceed called %d times, want %d", len(exceeded), want)
			}
		})
	}
	if got := (&MessageTooLargeError{Limit: MaxMessageSize}).Error(); got != "it sent a message larger than 32 MiB, more than mcptray accepts" {
		t.Errorf("the message says %q", got)
	}
}

// TestHTTPAnswerOverTheLimit: a tool answer over MaxMessageSize fails the
// call with the reason instead of being read into memory, and an answer
// under it still arrives.
func TestHTTPAnswerOverTheLimit(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := newStreamableServer(t, newMCPServer(map[string]server.ToolHandlerFunc{
		"large": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.Repeat("x", 1<<20)), nil
		},
	}), bigAnswer)
	tr, err := NewStreamableHTTP(srv.URL, nil, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	if err := initialize(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, err := callTool(ctx, c, "large", nil); err != nil || len(got) != 1<<20 {
		t.Fatalf("an answer under the limit: %d bytes, %v", len(got), err)
	}
	_, err = callTool(ctx, c, "big", nil)
	if err == nil || !strings.Contains(err.Error(), "larger than 32 MiB") {
		t.Fatalf("an answer over the limit: %v; want it to say it is larger than 32 MiB", err)
	}
}

// bigAnswer answers a call of the tool "big" with a result of 32 MiB and a
// byte, written as raw bytes: building it through the MCP server would take
// long under the race detector.
func bigAnswer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil || req.Method != "tools/call" || req.Params.Name != "big" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, req.ID)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 33 {
			if _, err := w.Write(chunk); err != nil {
				return // the client gave up, as it should
			}
		}
		io.WriteString(w, `"}]}}`)
	})
}
