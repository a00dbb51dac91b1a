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

// readStream follows a stream that writeStream answers at path, handing
// each value to deliver until deliver returns false, the stream ends or ctx
// ends; then it closes the channel deliver sends on (done).
func readStream[T any](ctx context.Context, c *Client, path string, deliver func(T) bool, done func()) error {
	req, err := c.request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return &service.Error{Code: service.Other, Msg: "reaching the running mcptray: " + err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var refused *RefusedError
		if err := c.answerError(resp); errors.As(err, &refused) {
			return err
		}
		return &service.Error{Code: service.Other, Msg: "the running mcptray answered " + resp.Status + "; it may be older than this program"}
	}
	go func() {
		defer done()
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, maxBody)
		for sc.Scan() {
			var v T
			if json.Unmarshal(sc.Bytes(), &v) != nil {
				continue
			}
			if !deliver(v) || ctx.Err() != nil {
				return
			}
		}
	}()
	return nil
}
