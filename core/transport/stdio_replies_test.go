package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestRepliesTakeAnswersOnly: replies takes the answer (a result or an
// error) to a request that waits, as mcp-go's reader would decode it, and
// passes every other line on to mcp-go.
func TestRepliesTakeAnswersOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line  string
		taken bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}` + "\n", true},
		{` { "result" : {"a":[1,{"b":"}"}]} , "id" : 7 , "jsonrpc" : "2.0" } ` + "\r\n", true},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`, true},
		{`{"jsonrpc":"2.0","ID":7,"Result":{}}`, true},    // encoding/json matches any case, as in mcp-go
		{`{"jsonrpc":"2.0","id":"7","result":{}}`, false}, // another id
		{`{"jsonrpc":"2.0","id":8,"result":{}}`, false},   // nobody waits for it
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, false},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":7,"result":{}`, false},
		{"not json\n", false},
	} {
		r := newReplies(strings.NewReader(""))
		ch := waitFor(r, mcp.NewRequestId(int64(7)))
		if got := r.take([]byte(tc.line)); got != tc.taken {
			t.Errorf("take(%s) = %v, want %v", tc.line, got, tc.taken)
			continue
		}
		if !tc.taken {
			continue
		}
		var want mcptransport.JSONRPCResponse
		if err := json.Unmarshal([]byte(tc.line), &want); err != nil {
			t.Fatal(err)
		}
		if got := <-ch; !reflect.DeepEqual(got, &want) {
			t.Errorf("take(%s) answered %+v; mcp-go reads %+v", tc.line, got, &want)
		}
		if len(r.waiting) != 0 {
			t.Errorf("take(%s) left the request waiting", tc.line)
		}
	}
}

// serveBurst is a bare stdio server whose answer to tools/call comes in
// the same write as three progress notifications before it.
func serveBurst() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var out strings.Builder
		result := `{}`
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"` + testProtocol + `","capabilities":{"tools":{}},"serverInfo":{"name":"burst","version":"1"}}`
		case "tools/call":
			for i := 1; i <= 3; i++ {
				fmt.Fprintf(&out, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":%d}}`+"\n", i)
			}
			result = `{"content":[{"type":"text","text":"done"}]}`
		}
		fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
		os.Stdout.WriteString(out.String())
	}
}

// TestStdioRepliesKeepOrder: notifications written before an answer, in
// the same write, reach the client before the answer does; and calls made
// at once each get their own answer.
func TestStdioRepliesKeepOrder(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	s := newStdioChild(t, "burst", nil)
	c := connectStdio(t, ctx, s)
	var progress atomic.Int64
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			progress.Add(1)
		}
	})
	// While the client handles the first notification, the answer after
	// it is not handed over: the call waits.
	entered, release := make(chan struct{}), make(chan struct{})
	var first sync.Once
	c.OnNotification(func(mcp.JSONRPCNotification) {
		first.Do(func() {
			close(entered)
			<-release
		})
	})
	done := make(chan error, 1)
	go func() { _, err := callTool(ctx, c, "any", nil); done <- err }()
	<-entered
	select {
	case err := <-done:
		t.Fatalf("the call returned (%v) before the client had handled the progress sent before its answer", err)
	case <-time.After(100 * time.Millisecond): // the call must not return meanwhile
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	progress.Store(0)

	for i := 1; i <= 20; i++ {
		if got, err := callTool(ctx, c, "any", nil); err != nil || got != "done" {
			t.Fatalf("call %d = %q, %v", i, got, err)
		}
		if n := progress.Load(); n != int64(3*i) {
			t.Fatalf("after call %d the client had %d progress notifications, want %d", i, n, 3*i)
		}
	}

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if got, err := callTool(ctx, c, "any", nil); err != nil || got != "done" {
					t.Errorf("a call made alongside others = %q, %v", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRepliesLongLines: an answer many times longer than replies' buffer is
// taken whole, and a long line nobody waits for reaches mcp-go whole.
func TestRepliesLongLines(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("x", 40*repliesBuffer+17)
	answer := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
	other := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + text + `"}}`
	r := newReplies(strings.NewReader(answer + "\n" + other + "\n"))
	ch := waitFor(r, mcp.NewRequestId(int64(7)))

	var passed strings.Builder
	buf := make([]byte, 1000)
	for {
		n, err := r.Read(buf)
		passed.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if passed.String() != other+"\n" {
		t.Errorf("mcp-go read %d bytes, want the %d of the notification", passed.Len(), len(other)+1)
	}
	select {
	case resp := <-ch:
		if !strings.Contains(string(resp.Result), text) || len(resp.Result) != len(answer)-len(`{"jsonrpc":"2.0","id":7,"result":}`) {
			t.Errorf("the answer's result has %d bytes, not the whole of it", len(resp.Result))
		}
	default:
		t.Error("the long answer was not taken")
	}
}

// waitFor puts a request with id on r's list, as if it had been sent, and
// returns where its answer goes.
func waitFor(r *replies, id mcp.RequestId) chan *mcptransport.JSONRPCResponse {
	ch := make(chan *mcptransport.JSONRPCResponse, 1)
	r.waiting[id.String()] = &waiter{
		id: id, key: id.String(),
		done: func(resp *mcptransport.JSONRPCResponse, _ error) { ch <- resp },
		stop: func() bool { return true },
	}
	return ch
}

// TestSendAsyncAnswersOnce: a request sent without waiting gets exactly
// one answer: the server's, or why there is none when its context ends
// first (and the server's late answer then goes on to mcp-go), or when the
// transport closes. Once closed, nothing more is sent.
func TestSendAsyncAnswersOnce(t *testing.T) {
	t.Parallel()
	server, out := io.Pipe() // what the server writes, as replies reads it
	r := newReplies(server)
	passed := make(chan string, 10) // what mcp-go's reader gets
	go func() {
		in := bufio.NewReader(r)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				close(passed)
				return
			}
			passed <- line
		}
	}()
	type answer struct {
		id  string
		res string
		err error
	}
	answers := make(chan answer, 10)
	var sendTo func(ctx context.Context, id int64, w io.Writer) error
	send := func(ctx context.Context, id int64) error {
		return sendTo(ctx, id, io.Discard)
	}
	sendTo = func(ctx context.Context, id int64, w io.Writer) error {
		req := mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: "tools/call"}
		return r.sendAsync(ctx, req, w, func(resp *mcptransport.JSONRPCResponse, err error) {
			a := answer{id: fmt.Sprint(id), err: err}
			if resp != nil {
				a.res = string(resp.Result)
			}
			answers <- a
		})
	}
	next := func() answer {
		t.Helper()
		select {
		case a := <-answers:
			return a
		case <-time.After(10 * time.Second):
			t.Fatal("no answer came")
			return answer{}
		}
	}
	ctx := context.Background()

	if err := send(ctx, 1); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(out, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`)
	if a := next(); a.id != "1" || a.res != `{"a":1}` || a.err != nil {
		t.Errorf("the answered request got %+v", a)
	}

	cctx, cancel := context.WithCancel(ctx)
	if err := send(cctx, 2); err != nil {
		t.Fatal(err)
	}
	cancel()
	if a := next(); a.id != "2" || !errors.Is(a.err, context.Canceled) {
		t.Errorf("the cancelled request got %+v", a)
	}
	late := `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	fmt.Fprint(out, late)
	if got := <-passed; got != late {
		t.Errorf("mcp-go got %q, want the late answer", got)
	}

	if err := send(cctx, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("a request with its context ended: %v, want it not sent", err)
	}

	// Its context ends while it is written, before it is watched: it
	// ends all the same.
	wctx, wcancel := context.WithCancel(ctx)
	endsAsWritten := writerFunc(func(p []byte) (int, error) { wcancel(); return len(p), nil })
	if err := sendTo(wctx, 6, endsAsWritten); err != nil {
		t.Fatal(err)
	}
	if a := next(); a.id != "6" || !errors.Is(a.err, context.Canceled) {
		t.Errorf("the request cancelled as it was written got %+v", a)
	}

	if err := send(ctx, 4); err != nil {
		t.Fatal(err)
	}
	out.Close()
	if a := next(); a.id != "4" || !errors.Is(a.err, mcptransport.ErrTransportClosed) {
		t.Errorf("the request the end cut short got %+v", a)
	}
	if err := send(ctx, 5); !errors.Is(err, mcptransport.ErrTransportClosed) {
		t.Errorf("a request after the end: %v, want ErrTransportClosed", err)
	}
	select {
	case a := <-answers:
		t.Errorf("an answer too many: %+v", a)
	default:
	}
}

// TestSendAsyncDoesNotWaitForABusyServer: a request to a server that has
// not answered an earlier one, or a large request, is written on a
// goroutine of its own: the caller (an app's reader) goes on.
func TestSendAsyncDoesNotWaitForABusyServer(t *testing.T) {
	t.Parallel()
	r := newReplies(strings.NewReader(""))
	w := &gate{open: make(chan struct{}), wrote: make(chan string, 10)}
	send := func(id int64, text string) {
		t.Helper()
		req := mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: "tools/call", Params: map[string]string{"text": text}}
		returned := make(chan error, 1)
		go func() {
			returned <- r.sendAsync(context.Background(), req, w, func(*mcptransport.JSONRPCResponse, error) {})
		}()
		select {
		case err := <-returned:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("sending request %d waited for the server", id)
		}
	}
	w.first.Store(true) // the first write goes through: the server reads it
	send(1, "first")
	if got := <-w.wrote; !strings.Contains(got, "first") {
		t.Fatalf("wrote %q", got)
	}
	send(2, "while 1 waits") // the server holds 1: its pipe may be full
	r.fail(mcp.NewRequestId(int64(1)).String(), r.waiting[mcp.NewRequestId(int64(1)).String()], errors.New("done"))
	r.fail(mcp.NewRequestId(int64(2)).String(), r.waiting[mcp.NewRequestId(int64(2)).String()], errors.New("done"))
	send(3, strings.Repeat("x", maxWriteAtOnce)) // nothing waits, but it is large
	close(w.open)
	for range 2 {
		select {
		case <-w.wrote:
		case <-time.After(10 * time.Second):
			t.Fatal("a request written on its own goroutine never arrived")
		}
	}
}

// gate is a writer whose writes wait until open is closed, but for the
// first when first is set.
type gate struct {
	first atomic.Bool
	open  chan struct{}
	wrote chan string
}

func (g *gate) Write(p []byte) (int, error) {
	if !g.first.CompareAndSwap(true, false) {
		<-g.open
	}
	g.wrote <- string(p)
	return len(p), nil
}

// TestSendAsyncWriteFails: a request that cannot be written fails, once:
// with an error from sendAsync when it was written on the caller's
// goroutine, through done when on a goroutine of its own. A second request
// with a waiting one's id is refused.
func TestSendAsyncWriteFails(t *testing.T) {
	t.Parallel()
	r := newReplies(strings.NewReader(""))
	req := func(id int64) mcptransport.JSONRPCRequest {
		return mcptransport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: "tools/call"}
	}
	failed := make(chan error, 10)
	done := func(_ *mcptransport.JSONRPCResponse, err error) { failed <- err }
	ctx := context.Background()

	if err := r.sendAsync(ctx, req(1), io.Discard, done); err != nil {
		t.Fatal(err)
	}
	if err := r.sendAsync(ctx, req(1), io.Discard, done); err == nil {
		t.Error("a second request with a waiting one's id was sent")
	}
	broken := brokenWriter{}
	// 1 waits, so 2 is written on a goroutine of its own.
	if err := r.sendAsync(ctx, req(2), broken, done); err != nil {
		t.Fatalf("sendAsync returned %v; want the failure through done", err)
	}
	select {
	case err := <-failed:
		if err == nil || !strings.Contains(err.Error(), "failed to write request") {
			t.Errorf("done got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a request that could not be written never failed")
	}
	r.fail(mcp.NewRequestId(int64(1)).String(), r.waiting[mcp.NewRequestId(int64(1)).String()], errors.New("done"))
	<-failed
	// Nothing waits now: 3 is written at once, and fails at once.
	if err := r.sendAsync(ctx, req(3), broken, done); err == nil || !strings.Contains(err.Error(), "failed to write request") {
		t.Errorf("sendAsync = %v; want the write's failure", err)
	}
	select {
	case err := <-failed:
		t.Errorf("done was called too: %v", err)
	default:
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// writerFunc is an io.Writer that is a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
