package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// holdMethod holds back the answer to every request of the JSON-RPC method
// until release is closed or the client gives up.
func holdMethod(method string, release <-chan struct{}) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && bodyMethod(r) == method {
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestTimeoutHeadersLateFailsAndNamesTheTimeout(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	release := make(chan struct{})
	defer close(release)
	ts := newStreamableServer(t, newMCPServer(nil), holdMethod("tools/list", release))

	hc := NewHTTPClient(HTTPOptions{RequestTimeout: shortTimeout})
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, hc, discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	if err := initialize(ctx, c); err != nil {
		t.Fatalf("Initialize: %v", err)
	}

	start := time.Now()
	_, err = c.ListTools(ctx, mcp.ListToolsRequest{})
	if err == nil {
		t.Fatal("ListTools succeeded although the server held its answer back")
	}
	var te *RequestTimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("ListTools error = %v, want a *RequestTimeoutError in its chain", err)
	}
	if te.After != shortTimeout {
		t.Errorf("RequestTimeoutError.After = %v, want %v", te.After, shortTimeout)
	}
	if !strings.Contains(err.Error(), shortTimeout.String()) {
		t.Errorf("error %q does not name the timeout %v", err, shortTimeout)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, context.DeadlineExceeded) = false, want true", err)
	}
	if ctx.Err() != nil || time.Since(start) > 10*shortTimeout {
		t.Errorf("the request ended after %v: the timeout did not end it", time.Since(start))
	}
}

func TestTimeoutIsFreshAfterIdle(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	ts := newStreamableServer(t, newMCPServer(nil), nil)

	hc := NewHTTPClient(HTTPOptions{RequestTimeout: shortTimeout})
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, hc, discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	connectAndUse(t, ctx, c)

	// Idle for longer than the timeout: that is the point of this test. A
	// timer made at connect time would have fired by now and would fail the
	// next request.
	time.Sleep(3 * shortTimeout)

	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatalf("ListTools after idling %v: %v", 3*shortTimeout, err)
	}
	if got, err := callTool(ctx, c, "echo", map[string]any{"text": "still here"}); err != nil || got != "still here" {
		t.Fatalf("CallTool after idling = %q, %v; want %q", got, err, "still here")
	}
}

func TestTimeoutDoesNotCutALongBody(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	finish := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-finish:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: last\n\n")
	}))
	t.Cleanup(ts.Close)

	hc := NewHTTPClient(HTTPOptions{RequestTimeout: shortTimeout})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "data: first\n" {
		t.Fatalf("first line = %q, %v", line, err)
	}

	// The body outlives the header timeout: that is the point.
	time.Sleep(3 * shortTimeout)
	close(finish)

	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("reading the rest of the body after %v: %v", 3*shortTimeout, err)
	}
	if !strings.Contains(string(rest), "data: last") {
		t.Fatalf("rest of the body = %q, want the last event", rest)
	}
}

// newStreamableNoListen is mcp-go's streamable HTTP transport through hc,
// without the GET stream: a server's notification during a request can then
// only travel on that request's answer, which turns it into an SSE stream
// whose headers go out at once.
func newStreamableNoListen(t *testing.T, url string, hc *http.Client) mcptransport.Interface {
	t.Helper()
	tr, err := mcptransport.NewStreamableHTTP(url, mcptransport.WithHTTPBasicClient(hc), mcptransport.WithHTTPLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// startedThenWait runs the server side of a long request: it says it has
// started (by a notification when streaming, which also sends the answer's
// headers; directly otherwise), then waits for finish.
func startedThenWait(ctx context.Context, srv **server.MCPServer, streaming bool, started, finish chan struct{}) error {
	if streaming {
		if err := (*srv).SendNotificationToClient(ctx, "test/started", nil); err != nil {
			return err
		}
	} else {
		close(started)
	}
	select {
	case <-finish:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// outlast runs call in the background, waits until the server has started
// on it, lets it run past the request timeout (the point of these tests),
// then lets the server finish, and returns what call returned.
func outlast(t *testing.T, ctx context.Context, started, finish chan struct{}, call func() (string, error)) (string, error) {
	t.Helper()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := call()
		done <- result{text, err}
	}()
	select {
	case <-started:
	case r := <-done:
		t.Fatalf("the request ended before the server started on it: %q, %v", r.text, r.err)
	case <-ctx.Done():
		t.Fatal("the server never started on the request")
	}
	time.Sleep(3 * shortTimeout)
	close(finish)
	r := <-done
	return r.text, r.err
}

func TestTimeoutSparesLongToolCalls(t *testing.T) {
	t.Parallel()

	// Over streamable HTTP a tool's answer comes either as an SSE stream
	// whose headers go out at the first notification, or as plain JSON
	// whose headers go out only when the tool is done. Both must be allowed
	// to outlast the request timeout.
	for _, streaming := range []bool{true, false} {
		name := "plain JSON"
		if streaming {
			name = "SSE stream"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			started, finish := make(chan struct{}), make(chan struct{})
			var srv *server.MCPServer
			srv = newMCPServer(map[string]server.ToolHandlerFunc{
				"long": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if err := startedThenWait(ctx, &srv, streaming, started, finish); err != nil {
						return nil, err
					}
					return mcp.NewToolResultText("done"), nil
				},
			})
			ts := newStreamableServer(t, srv, nil)
			c := startClient(t, newStreamableNoListen(t, ts.URL+"/mcp", NewHTTPClient(HTTPOptions{RequestTimeout: shortTimeout})))
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method == "test/started" {
					close(started)
				}
			})
			if err := initialize(ctx, c); err != nil {
				t.Fatalf("Initialize: %v", err)
			}
			text, err := outlast(t, ctx, started, finish, func() (string, error) { return callTool(ctx, c, "long", nil) })
			if err != nil || text != "done" {
				t.Fatalf("CallTool = %q, %v; want %q", text, err, "done")
			}
		})
	}
}

func TestTimeoutDoesNotCutAStreamedAnswer(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)

	// prompts/get is bounded by the request timeout, unlike tools/call. Its
	// answer's headers come at once (the notification turns it into an SSE
	// stream), and its body lasts past the timeout: only the headers are
	// bounded, so it must succeed.
	started, finish := make(chan struct{}), make(chan struct{})
	var srv *server.MCPServer
	srv = newMCPServer(nil)
	srv.AddPrompt(mcp.NewPrompt("slow"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if err := startedThenWait(ctx, &srv, true, started, finish); err != nil {
			return nil, err
		}
		return mcp.NewGetPromptResult("done", nil), nil
	})
	ts := newStreamableServer(t, srv, nil)
	c := startClient(t, newStreamableNoListen(t, ts.URL+"/mcp", NewHTTPClient(HTTPOptions{RequestTimeout: shortTimeout})))
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "test/started" {
			close(started)
		}
	})
	if err := initialize(ctx, c); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	text, err := outlast(t, ctx, started, finish, func() (string, error) {
		req := mcp.GetPromptRequest{}
		req.Params.Name = "slow"
		res, err := c.GetPrompt(ctx, req)
		if err != nil {
			return "", err
		}
		return res.Description, nil
	})
	if err != nil || text != "done" {
		t.Fatalf("GetPrompt = %q, %v; want %q", text, err, "done")
	}
}

func TestTimeoutCallerContextEndsFirst(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(ts.Close)

	hc := NewHTTPClient(HTTPOptions{RequestTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	errc := make(chan error, 1)
	go func() {
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	var te *RequestTimeoutError
	if errors.As(err, &te) {
		t.Fatalf("error = %v: the caller ended the request, not the timeout", err)
	}
}
