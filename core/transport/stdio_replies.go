package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
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
	waiting map[string]chan *mcptransport.JSONRPCResponse // by the request's id

	closed chan struct{} // closed once reading has stopped or the transport closes
	once   sync.Once
}

// repliesBuffer is how much of a line is read at once; a longer line is
// gathered in pieces. Every stdio server has one, for as long as it runs:
// it is small, so that twenty idle servers do not hold a megabyte of it.
const repliesBuffer = 4 << 10

func newReplies(stdout io.Reader) *replies {
	return &replies{
		in:      bufio.NewReaderSize(stdout, repliesBuffer),
		waiting: map[string]chan *mcptransport.JSONRPCResponse{},
		closed:  make(chan struct{}),
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
	var msg reply
	if json.Unmarshal(line, &msg) != nil || msg.Method != "" || msg.ID == nil {
		return false
	}
	key := msg.ID.String()
	r.mu.Lock()
	ch, ok := r.waiting[key]
	delete(r.waiting, key)
	r.mu.Unlock()
	if ok {
		ch <- &mcptransport.JSONRPCResponse{JSONRPC: msg.JSONRPC, ID: *msg.ID, Result: msg.Result, Error: msg.Error}
	}
	return ok
}

// send writes req to w and waits for its answer, as mcp-go's stdio
// SendRequest does, with its errors.
func (r *replies) send(ctx context.Context, req mcptransport.JSONRPCRequest, w io.Writer) (*mcptransport.JSONRPCResponse, error) {
	select {
	case <-r.closed:
		return nil, mcptransport.ErrTransportClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	b = append(b, '\n')
	key := req.ID.String()
	ch := make(chan *mcptransport.JSONRPCResponse, 1)
	r.mu.Lock()
	r.waiting[key] = ch
	r.mu.Unlock()
	// One Write a message, as mcp-go writes its own: an *os.File holds its
	// write lock for the whole of it, so lines written at once do not
	// interleave.
	if _, err := w.Write(b); err != nil {
		r.forget(key)
		return nil, fmt.Errorf("failed to write request: %w", err)
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-r.closed:
		select {
		case resp := <-ch: // answered just before the end
			return resp, nil
		default:
		}
		r.forget(key)
		return nil, mcptransport.ErrTransportClosed
	case <-ctx.Done():
		r.forget(key)
		return nil, ctx.Err()
	}
}

func (r *replies) forget(key string) {
	r.mu.Lock()
	delete(r.waiting, key)
	r.mu.Unlock()
}

// close fails the requests waiting and those sent later.
func (r *replies) close() {
	r.once.Do(func() { close(r.closed) })
}
