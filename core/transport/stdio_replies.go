package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/jsonwire"
)

// replies is how Stdio's requests get their answers. mcp-go's stdio reader
// copies every line twice and decodes it twice (once to tell what it is,
// once into a response) before handing a response to the request's
// goroutine; that is a good part of a tool call's cost. replies sits
// between the child's stdout and mcp-go's reader instead: it reads whole
// lines, decodes each once (with encoding/json, into a struct whose result
// stays raw) while a request waits, takes the answers to its requests, and
// passes every other line (the server's notifications and requests, an
// answer nobody waits for, what does not decode) on to mcp-go unchanged.
//
// Order is kept: mcp-go's reader reads again only once it has handled every
// line given to it, and only then does replies read the next line, so a
// server's progress still reaches the caller before the call's answer.
type replies struct {
	in  *bufio.Reader // the child's stdout, through the line limit
	out []byte        // the rest of a line for mcp-go
	err error         // why reading stopped

	mu      sync.Mutex
	waiting map[string]*waiter // by the request's id
	ended   bool               // closed: no more requests
}

// repliesBuffer is how much of a line is read at once; a longer line is
// gathered in pieces. Every stdio server has one, for as long as it runs:
// it is small, so that twenty idle servers do not hold a megabyte of it.
const repliesBuffer = 4 << 10

func newReplies(stdout io.Reader) *replies {
	return &replies{
		in:      bufio.NewReaderSize(stdout, repliesBuffer),
		waiting: map[string]*waiter{},
	}
}

// Read is what mcp-go's reader reads: the lines replies did not take.
func (r *replies) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.line()
		if err != nil {
			// What is left without a newline goes to mcp-go, which drops
			// it too; the requests waiting fail, as they did in mcp-go.
			r.err = err
			r.close()
			r.out = line
			continue
		}
		if !r.take(line) {
			r.out = line
		}
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// line reads up to and including the next newline. A line that fits the
// buffer is returned in it, valid until the next read: Read reads again only
// once mcp-go has had all of it.
func (r *replies) line() ([]byte, error) {
	line, err := r.in.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	long := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		line, err = r.in.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// reply is what replies decodes of a line: as mcp-go's reader tells them
// apart, a response has an id and no method.
type reply struct {
	JSONRPC string                   `json:"jsonrpc"`
	ID      *mcp.RequestId           `json:"id"`
	Method  string                   `json:"method"`
	Result  json.RawMessage          `json:"result"`
	Error   *mcp.JSONRPCErrorDetails `json:"error"`
}

// take hands line to the request it answers, if one waits for it.
func (r *replies) take(line []byte) bool {
	r.mu.Lock()
	none := len(r.waiting) == 0
	r.mu.Unlock()
	if none {
		return false
	}
	var w *waiter
	msg, id, ok := readReply(line)
	if ok {
		w = r.removeString(id)
	} else {
		if json.Unmarshal(line, &msg) != nil || msg.Method != "" || msg.ID == nil {
			return false
		}
		w = r.remove(msg.ID.String(), nil)
	}
	if w == nil {
		return false
	}
	w.stop()
	w.done(&mcptransport.JSONRPCResponse{JSONRPC: msg.JSONRPC, ID: w.id, Result: msg.Result, Error: msg.Error}, nil)
	return true
}

// replyKeys are the members of a reply that readReply reads.
var replyKeys = []string{"jsonrpc", "id", "result", "error", "method"}

// readReply reads line as encoding/json would into a reply, in one pass
// without reflection (jsonwire), when its id is a string written plainly
// (no escapes), the usual answer to a request of mcptray's: it returns the
// reply without its ID, and the id's text. False for anything else
// (another kind of id, a key twice or in another case, not JSON), which
// take decodes with encoding/json as before.
func readReply(line []byte) (msg reply, id []byte, ok bool) {
	if !jsonwire.Valid(line) {
		return reply{}, nil, false
	}
	var v [5][]byte
	if !jsonwire.Pick(line, replyKeys, v[:]) || v[4] != nil { // a method: a request or notification
		return reply{}, nil, false
	}
	version, rawID, result, errDetails := v[0], v[1], v[2], v[3]
	if !plainString(rawID) || version != nil && !jsonwire.IsString(version, mcp.JSONRPC_VERSION) {
		return reply{}, nil, false
	}
	if version != nil {
		msg.JSONRPC = mcp.JSONRPC_VERSION
	}
	if result != nil {
		msg.Result = bytes.Clone(result) // line is the reader's buffer
	}
	if errDetails != nil && string(errDetails) != "null" {
		msg.Error = new(mcp.JSONRPCErrorDetails)
		if json.Unmarshal(errDetails, msg.Error) != nil {
			return reply{}, nil, false
		}
	}
	return msg, rawID[1 : len(rawID)-1], true
}

// plainString says whether raw is a JSON string that means what is
// written between its quotes: no escape, and UTF-8.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	inner := raw[1 : len(raw)-1]
	return bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner)
}

// A waiter is a request written to the server, waiting for its answer.
type waiter struct {
	id   mcp.RequestId // the request's, for its answer
	key  string        // its place on the list: id.String()
	done func(*mcptransport.JSONRPCResponse, error)
	stop func() bool // stops watching the request's context
}

// remove takes the waiter for key off the list and returns it, or nil when
// none waits (or, when only is not nil, when another does). Whoever removes
// a waiter calls its done: that is how done is called once.
func (r *replies) remove(key string, only *waiter) *waiter {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.waiting[key]
	if w == nil || (only != nil && w != only) {
		return nil
	}
	delete(r.waiting, key)
	return w
}

// removeString is remove(key, nil) for the request whose id is the string
// id, without making its key a string of its own (a map is looked up by a
// []byte's string without a copy).
func (r *replies) removeString(id []byte) *waiter {
	var buf [64]byte
	key := append(append(buf[:0], "string:"...), id...) // as mcp.RequestId.String writes it
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.waiting[string(key)]
	if w != nil {
		delete(r.waiting, w.key)
	}
	return w
}

// sendAsync writes req to w and returns without waiting for the answer.
// When it returns nil, done is called once, later or meanwhile: with the
// answer, on the goroutine that reads the server's output (so done must not
// wait on anything), or with why there is none (ctx ended, the transport
// closed) on another. When it returns an error, the request was not sent
// and done is never called. The errors are mcp-go's stdio SendRequest's.
// It does not wait for a server busy with earlier requests: the request is
// then written on a goroutine of its own.
func (r *replies) sendAsync(ctx context.Context, req mcptransport.JSONRPCRequest, w io.Writer, done func(*mcptransport.JSONRPCResponse, error)) error {
	return r.start(ctx, req, w, false, done)
}

// start is sendAsync; when inline, the request is always written on the
// caller's goroutine, which is going to wait anyway.
func (r *replies) start(ctx context.Context, req mcptransport.JSONRPCRequest, w io.Writer, inline bool, done func(*mcptransport.JSONRPCResponse, error)) error {
	r.mu.Lock()
	ended := r.ended
	r.mu.Unlock()
	if ended {
		return mcptransport.ErrTransportClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := encodeRequest(req)
	if err != nil {
		return fmt.Errorf("failed to marshal request: %w", err)
	}
	key := req.ID.String()
	wt := &waiter{id: req.ID, key: key, done: done}
	wt.stop = context.AfterFunc(ctx, func() { r.fail(key, wt, ctx.Err()) })
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		wt.stop()
		return mcptransport.ErrTransportClosed
	}
	if r.waiting[key] != nil {
		r.mu.Unlock()
		wt.stop()
		return fmt.Errorf("failed to send request: a request with id %s is waiting already", key)
	}
	// The caller is often the goroutine that reads an app's messages:
	// it must not wait for a server that has not read what it was sent
	// before. A server with no request unanswered has read them all (it
	// cannot answer one unread), so a message well under a pipe's
	// capacity goes in at once; otherwise it is written on a goroutine of
	// its own.
	wait := len(r.waiting) > 0 || len(b) > maxWriteAtOnce
	r.waiting[key] = wt
	r.mu.Unlock()
	if ctx.Err() != nil { // ended before it was on the list, where AfterFunc looked
		r.fail(key, wt, ctx.Err())
		return nil
	}
	if wait && !inline {
		go func() {
			if err := r.write(key, wt, w, b); err != nil {
				wt.done(nil, err) // start has returned: done is how it fails
			}
		}()
		return nil
	}
	return r.write(key, wt, w, b)
}

// encodeRequest is req as one line, as encoding/json writes it. A request
// with a string id and params already encoded (a tool call's, from the
// connection manager) is written without encoding/json's reflection, when
// encoding/json would write the params as they are: valid, on one line,
// with nothing in them it escapes for HTML.
func encodeRequest(req mcptransport.JSONRPCRequest) ([]byte, error) {
	if params, ok := req.Params.(json.RawMessage); ok && len(params) > 0 && !htmlEscaped(params) && jsonwire.Valid(params) {
		if id, ok := req.ID.Value().(string); ok {
			b := make([]byte, 0, len(params)+len(id)+len(req.Method)+48)
			b = append(b, `{"jsonrpc":`...)
			b = jsonwire.AppendString(b, req.JSONRPC)
			b = append(b, `,"id":`...)
			b = jsonwire.AppendString(b, id)
			b = append(b, `,"method":`...)
			b = jsonwire.AppendString(b, req.Method)
			b = append(b, `,"params":`...)
			b = jsonwire.AppendCompact(b, params)
			return append(b, "}\n"...), nil
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// htmlEscaped says whether encoding/json would escape something in b for
// HTML: <, >, &, U+2028 or U+2029 (whose UTF-8 starts with 0xE2; any such
// byte is taken for them).
func htmlEscaped(b []byte) bool {
	for _, c := range b {
		switch c {
		case '<', '>', '&', 0xE2:
			return true
		}
	}
	return false
}

// maxWriteAtOnce is the largest request written on the caller's goroutine:
// a pipe holds 64 KiB on Linux and macOS, and 4 KiB when the user has many.
const maxWriteAtOnce = 4 << 10

// write writes request key's message b to w. An error means the request
// was not sent and is off the list, and its done is not to be called.
func (r *replies) write(key string, wt *waiter, w io.Writer, b []byte) error {
	// One Write a message, as mcp-go writes its own: an *os.File holds its
	// write lock for the whole of it, so lines written at once do not
	// interleave.
	if _, err := w.Write(b); err != nil {
		if r.remove(key, wt) == nil {
			return nil // done has its answer already (the context ended)
		}
		wt.stop()
		return fmt.Errorf("failed to write request: %w", err)
	}
	return nil
}

// fail ends the request key with err, if wt still waits for it.
func (r *replies) fail(key string, wt *waiter, err error) {
	if r.remove(key, wt) != nil {
		wt.stop()
		wt.done(nil, err)
	}
}

// send writes req to w and waits for its answer, as mcp-go's stdio
// SendRequest does, with its errors.
func (r *replies) send(ctx context.Context, req mcptransport.JSONRPCRequest, w io.Writer) (*mcptransport.JSONRPCResponse, error) {
	type answer struct {
		resp *mcptransport.JSONRPCResponse
		err  error
	}
	ch := make(chan answer, 1)
	err := r.start(ctx, req, w, true, func(resp *mcptransport.JSONRPCResponse, err error) { ch <- answer{resp, err} })
	if err != nil {
		return nil, err
	}
	a := <-ch
	return a.resp, a.err
}

// close fails the requests waiting and those sent later.
func (r *replies) close() {
	r.mu.Lock()
	r.ended = true
	waiting := r.waiting
	r.waiting = map[string]*waiter{}
	r.mu.Unlock()
	for _, w := range waiting {
		w.stop()
		w.done(nil, mcptransport.ErrTransportClosed)
	}
}
