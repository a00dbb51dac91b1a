package transport

import (
	"bytes"
	"fmt"
	"io"
)

// MaxMessageSize is the largest single message mcptray reads from a server,
// on every transport: a stdio line, an HTTP response body, an SSE event, a
// WebSocket message. The largest real answers (a tools/list of an OpenAPI
// dump, a tool returning a file) are a few MiB; without a bound, a server
// that never ends a line would fill mcptray's memory.
const MaxMessageSize = 32 << 20

// MessageTooLargeError is what reading a message larger than the limit
// returns.
type MessageTooLargeError struct {
	Limit int64
}

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("it sent a message larger than %d MiB, more than mcptray accepts", e.Limit>>20)
}

// limitMode says where one message ends in a stream.
type limitMode int

const (
	// limitWhole: the whole stream is one message (a JSON response body).
	limitWhole limitMode = iota
	// limitLine: each line is a message (stdio's newline-delimited JSON).
	limitLine
	// limitEvent: each event, ended by an empty line, is a message
	// (text/event-stream, whose data may span many lines).
	limitEvent
)

// limitReader passes r through until one message exceeds limit bytes; from
// then on every Read fails with *MessageTooLargeError. onExceed, when set, is
// called once with that error before the failing Read returns.
//
// Lines end at '\n' and a line holding only '\r' counts as empty, as mcp-go's
// readers see them.
type limitReader struct {
	r        io.Reader
	limit    int64
	mode     limitMode
	onExceed func(error)

	n        int64 // bytes of the current message read so far
	lineText bool  // the current line has a byte other than '\r' (limitEvent)
	err      error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	if l.count(p[:n]) {
		l.err = &MessageTooLargeError{Limit: l.limit}
		if l.onExceed != nil {
			l.onExceed(l.err)
		}
		return 0, l.err
	}
	return n, err
}

// count adds b to the current message, and reports whether a message went
// over the limit.
func (l *limitReader) count(b []byte) bool {
	if l.mode == limitWhole {
		l.n += int64(len(b))
		return l.n > l.limit
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg = b[:i]
		}
		l.n += int64(len(seg))
		if l.n > l.limit {
			return true
		}
		if len(bytes.TrimLeft(seg, "\r")) > 0 {
			l.lineText = true
		}
		if i < 0 {
			return false
		}
		// A line ends.
		if l.mode == limitLine || !l.lineText {
			l.n = 0
		} else {
			l.n++ // the newline inside an event
		}
		l.lineText = false
		b = b[i+1:]
	}
	return false
}
