package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// callbackPath is where the authorization server sends the browser back.
const callbackPath = "/callback"

// loopback is the one-shot HTTP listener on 127.0.0.1 that receives the
// authorization response (RFC 8252 §7.3). It accepts exactly one answer
// that carries its state; then it is done. Requests without its state are
// turned away and the wait goes on: anything on this computer can send
// one, and it must not be able to end the person's sign-in.
type loopback struct {
	ln          net.Listener
	srv         *http.Server
	redirectURI string
	state       string
	issuer      string // expected iss (RFC 9207)
	issRequired bool

	once   sync.Once
	result chan callbackResult
}

type callbackResult struct {
	code string
	err  error
}

// SignInError is a sign-in the authorization server or the browser ended
// with an error, or one mcptray refused.
type SignInError struct {
	Code        string // the OAuth error code, when the server gave one
	Description string
	Reason      string // mcptray's own words when it refused
}

func (e *SignInError) Error() string {
	// Code and Description are the server's words: one clean line, so a
	// hostile server cannot rewrite the person's terminal or forge lines.
	code, desc := sanitize.Line(e.Code), sanitize.Line(e.Description)
	switch {
	case e.Reason != "":
		return "sign-in refused: " + e.Reason
	case code == "access_denied":
		return "sign-in was declined in the browser"
	case desc != "":
		return fmt.Sprintf("the authorization server ended the sign-in: %s (%s)", desc, code)
	default:
		return fmt.Sprintf("the authorization server ended the sign-in: %s", code)
	}
}

// listenLoopback binds 127.0.0.1 on port (0: one the system picks).
func listenLoopback(port int) (*loopback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listening for the browser's answer on 127.0.0.1:%d: %w", port, err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	l := &loopback{
		ln:          ln,
		redirectURI: "http://127.0.0.1:" + strconv.Itoa(p) + callbackPath,
		result:      make(chan callbackResult, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc(callbackPath, l.handle)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return l, nil
}

// serve answers until close. Set state (and issuer) first.
func (l *loopback) serve() { go func() { _ = l.srv.Serve(l.ln) }() }

func (l *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = l.srv.Shutdown(ctx) // lets the page being sent finish
}

func (l *loopback) deliver(r callbackResult) bool {
	delivered := false
	l.once.Do(func() {
		l.result <- r
		delivered = true
	})
	return delivered
}

func (l *loopback) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(l.state)) != 1 {
		// Not this sign-in's answer (a forged or stale request): turn it
		// away and keep waiting for the browser's.
		writePage(w, http.StatusBadRequest, "Not this sign-in", "This page does not belong to the sign-in mcptray is waiting for. You can close this tab.")
		return
	}
	var res callbackResult
	switch {
	case q.Get("error") != "":
		res.err = &SignInError{Code: q.Get("error"), Description: q.Get("error_description")}
	case q.Get("iss") != "" && q.Get("iss") != l.issuer:
		res.err = &SignInError{Reason: "the answer came from another authorization server than the one asked (RFC 9207 iss mismatch)"}
	case q.Get("iss") == "" && l.issRequired:
		res.err = &SignInError{Reason: "the authorization server did not say who answered (RFC 9207 iss missing)"}
	case q.Get("code") == "":
		res.err = &SignInError{Reason: "the answer carries no authorization code"}
	default:
		res.code = q.Get("code")
	}
	if !l.deliver(res) {
		writePage(w, http.StatusConflict, "This sign-in is already finished", "You can close this tab.")
		return
	}
	if res.err != nil {
		writePage(w, http.StatusBadRequest, "Sign-in failed", res.err.Error()+". You can close this tab and try again from mcptray.")
		return
	}
	writePage(w, http.StatusOK, "You are signed in", "mcptray has what it needs. You can close this tab.")
}

// wait returns the authorization code, or why there is none.
func (l *loopback) wait(ctx context.Context) (string, error) {
	select {
	case r := <-l.result:
		return r.code, r.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", errors.New("the sign-in was not finished in the browser in time")
		}
		return "", fmt.Errorf("the sign-in was cancelled: %w", ctx.Err())
	}
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcptray: {{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}h1{font-size:1.4em}</style>
</head><body><h1>{{.Title}}</h1><p>{{.Body}}</p></body></html>
`))

func writePage(w http.ResponseWriter, status int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	_ = page.Execute(w, struct{ Title, Body string }{title, body})
}
