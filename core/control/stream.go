package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

// writeStream answers a GET with one JSON line for each of first, then for
// each value from ch, each flushed at once, until the client goes or ch
// closes. The change notices, the window's focus requests and the servers'
// questions all travel this way.
func writeStream[T any](w http.ResponseWriter, r *http.Request, ch <-chan T, first ...T) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(v T) bool {
		if enc.Encode(v) != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	for _, v := range first {
		if !send(v) {
			return
		}
	}
	if flusher != nil {
		flusher.Flush() // the client knows it is followed, even with nothing sent
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case v, ok := <-ch:
			if !ok || !send(v) {
				return
			}
		}
	}
}

// serveStream answers a GET with a stream (writeStream): open, given the
// request's context, returns the channel to follow and what to send
// before it, taken together so that nothing comes or goes between the
// two; an error is answered as any route's.
func serveStream[T any](open func(ctx context.Context) (<-chan T, []T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ch, first, err := open(r.Context())
		if err != nil {
			reply(w, nil, err)
			return
		}
		writeStream(w, r, ch, first...)
	}
}

// follow follows the stream that serveStream answers at path, and
// returns a channel with each value, room for that many waiting, which
// closes when ctx ends, the stream ends or the running mcptray goes away.
// A value waits for room, unless coalesce: then a value that finds the
// channel full is dropped, as a change notice is when one waits already
// (it says nothing more). The change notices, the window's focus
// requests and the servers' questions are all followed this way.
func follow[T any](ctx context.Context, c *Client, path string, room int, coalesce bool) (<-chan T, error) {
	req, err := c.request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, &service.Error{Code: service.Other, Msg: "reaching the running mcptray: " + err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var refused *RefusedError
		if err := c.answerError(resp); errors.As(err, &refused) || errors.Is(err, ErrOlder) {
			return nil, err
		}
		return nil, &service.Error{Code: service.Other, Msg: "the running mcptray answered " + resp.Status + "; it may be older than this program"}
	}
	out := make(chan T, room)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, maxBody)
		for sc.Scan() {
			var v T
			if json.Unmarshal(sc.Bytes(), &v) != nil {
				continue
			}
			if coalesce {
				select {
				case out <- v:
				default: // one is waiting already
				}
			} else {
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
		}
	}()
	return out, nil
}
