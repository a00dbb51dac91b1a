package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// DefaultRequestTimeout is how long a request waits for the server to start
// answering when HTTPOptions leaves RequestTimeout zero.
const DefaultRequestTimeout = 60 * time.Second

// RequestTimeoutError is the error of a request the server did not start
// answering (sent no response headers) within the request timeout.
type RequestTimeoutError struct {
	// After is the request timeout that ran out.
	After time.Duration
}

func (e *RequestTimeoutError) Error() string {
	return fmt.Sprintf("the server did not answer within %s", e.After)
}

// Timeout reports true, so that code asking a net.Error-style question
// (url.Error.Timeout included) sees a timeout.
func (e *RequestTimeoutError) Timeout() bool { return true }

// Is makes errors.Is(err, context.DeadlineExceeded) true, as it is for every
// other deadline that ends a request.
func (e *RequestTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// timeoutTripper bounds how long each request waits for its response headers.
//
// The timer is made inside RoundTrip, afresh for every request. A timer made
// once at connect time is the stale-signal bug: it fires on the first request
// made after the connection sat idle longer than the timeout.
//
// Only the wait for headers is bounded. Once they arrive, the body may be a
// stream that rightly lasts hours (the answer to a long tools/call, the GET
// stream that carries notifications); the request's own context bounds it.
// tools/call is not bounded at all here: a server that answers in plain JSON
// sends its headers only when the tool is done, so the caller's context (the
// tool-call timeout) is the only right bound for it.
type timeoutTripper struct {
	next    http.RoundTripper
	timeout time.Duration // <= 0: none
}

func (t *timeoutTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.timeout <= 0 || rpcMethod(req) == methodToolsCall {
		return t.next.RoundTrip(req)
	}

	ctx, cancel := context.WithCancelCause(req.Context())
	expired := &RequestTimeoutError{After: t.timeout}
	timer := time.AfterFunc(t.timeout, func() { cancel(expired) })

	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if !timer.Stop() {
		// The timer fired: the answer came too late, or not at all. Its
		// context is cancelled, so a response that slipped through is
		// unusable.
		if resp != nil {
			resp.Body.Close()
		}
		if err != nil && req.Context().Err() != nil {
			return nil, err // the caller gave up first; say so, not us
		}
		return nil, expired
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// A WebSocket handshake: the caller now owns the connection and the
		// request's context no longer reaches it. The body must stay the
		// io.ReadWriteCloser net/http returned.
		cancel(nil)
		return resp, nil
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: func() { cancel(nil) }}
	return resp, nil
}

// cancelOnClose releases a request's context once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
