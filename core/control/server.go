package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/hub"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// Backend is what the endpoint serves: the running mcptray's API
// (core/service's API, declared there once), which the service implements.
type Backend = service.API

// The client speaks the same API over the socket: a method the endpoint
// lacks a route for is a compile error, not a 404 at run time.
var _ service.API = (*Client)(nil)

// Endpoint is the control endpoint: it serves a Backend on the private
// socket to the window, the command line and mcptray stdio.
type Endpoint struct {
	Backend Backend
	// OpenWindow opens the window, or brings it forward, at server (""
	// for none); nil means this instance has no window to open.
	OpenWindow func(server string) error
	// OpenBundle opens the window, or brings it forward, at the install
	// dialog of the MCP Bundle file (an absolute path); nil means this
	// instance has no window to open.
	OpenBundle func(file string) error
	Logger     *slog.Logger
	// Gateway, when set, says how the gateway's HTTP face is doing.
	Gateway func() gateway.Status
	// Stream, when set, serves an app's session through mcptray stdio
	// (mcpstream.go).
	Stream StreamFunc
	// Quit, when set, stops this mcptray as its tray's Quit or Ctrl-C
	// would (mcptray quit); it must not wait for the stop.
	Quit func()

	focus hub.Hub[WindowRequest] // the open window's requests to come forward
	// pending is a request for a window that is starting (Pend), which
	// it gets first when it follows focus requests; pendingMu orders the
	// two.
	pendingMu sync.Mutex
	pending   *WindowRequest
	asksOnce  sync.Once
	asks      *waitingQuestions // the servers' questions for the window
}

// maxBody bounds a request: the largest is a tool call's arguments.
const maxBody = 32 << 20

// hello is the answer to GET /v1/hello.
type hello struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
}

// nameRequest names one server.
type nameRequest struct {
	Name string `json:"name"`
}

type signInRequest struct {
	Name    string                `json:"name"`
	Options service.SignInOptions `json:"options"`
}

// WindowRequest asks the window to come forward, showing a server or
// the install dialog of an MCP Bundle file (a full path); both "" for
// neither.
type WindowRequest struct {
	Server string `json:"server"`
	Bundle string `json:"bundle,omitempty"`
}

type toolsResponse struct {
	Tools []tools.Tool `json:"tools"`
}

// Serve answers requests on ln until ctx ends, then closes ln.
func (s *Endpoint) Serve(ctx context.Context, ln net.Listener) error {
	log := s.logger()
	var key []byte // none: every guarded route is refused
	if l, ok := ln.(*Listener); ok {
		key = l.key
		// The server's Shutdown closes what it serves: the socket alone.
		// The instance lock and the key stay until the instance has
		// closed the rest (Listener.Close): until then, mcptray still
		// runs, and mcptray quit and the next mcptray wait for it.
		ln = l.Listener
	}
	hs := &http.Server{
		Handler:           s.guard(key, s.handler()),
		ConnContext:       connContext,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
		hs.Close() // the events streams do not end by themselves
	}()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func (s *Endpoint) handler() *http.ServeMux {
	b := s.Backend
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/hello", func(w http.ResponseWriter, r *http.Request) {
		snap, err := b.Snapshot(r.Context())
		reply(w, hello{Version: snap.Version, PID: os.Getpid()}, err)
	})
	mux.HandleFunc("GET /v1/snapshot", func(w http.ResponseWriter, r *http.Request) {
		snap, err := b.Snapshot(r.Context())
		reply(w, snap, err)
	})
	mux.HandleFunc("POST /v1/settle", func(w http.ResponseWriter, r *http.Request) {
		snap, err := b.Settle(r.Context()) // settled as far as it will: what there is
		reply(w, snap, err)
	})
	mux.HandleFunc("GET /v1/events", s.events)
	mux.HandleFunc("GET /v1/focus", s.focusStream)
	s.windowRoutes(mux)
	s.secretRoutes(mux)
	s.appRoutes(mux)
	s.sandboxRoutes(mux)
	s.pinRoutes(mux)
	s.activityRoutes(mux)
	s.packageRoutes(mux)
	handle(mux, "approve", b.Approve)
	handle(mux, "deny", b.Deny)
	handleNone(mux, "enable", b.Enable)
	handleNone(mux, "disable", b.Disable)
	handleNone(mux, "retry", b.Retry)
	handleNone(mux, "sign-out", b.SignOut)
	handle(mux, "remove", b.Remove)
	mux.HandleFunc("POST /v1/sign-in", func(w http.ResponseWriter, r *http.Request) {
		var req signInRequest
		if !decode(w, r, &req) {
			return
		}
		// The person may take minutes in the browser; a client that goes
		// away cancels the sign-in through r.Context().
		reply(w, struct{}{}, b.SignIn(r.Context(), req.Name, req.Options))
	})
	handleJSON(mux, "add", b.Add)
	handleJSON(mux, "install-bundle", b.InstallBundle)
	mux.HandleFunc("POST /v1/sign-in-idp", func(w http.ResponseWriter, r *http.Request) {
		reply(w, struct{}{}, b.SignInIdP(r.Context()))
	})
	mux.HandleFunc("POST /v1/sign-out-idp", func(w http.ResponseWriter, r *http.Request) {
		reply(w, struct{}{}, b.SignOutIdP(r.Context()))
	})
	mux.HandleFunc("POST /v1/pause", func(w http.ResponseWriter, r *http.Request) {
		reply(w, struct{}{}, b.PauseAll(r.Context()))
	})
	mux.HandleFunc("POST /v1/resume", func(w http.ResponseWriter, r *http.Request) {
		reply(w, struct{}{}, b.ResumeAll(r.Context()))
	})
	mux.HandleFunc("POST /v1/tools", func(w http.ResponseWriter, r *http.Request) {
		var req nameRequest
		if !decode(w, r, &req) {
			return
		}
		list, err := b.Tools(r.Context(), req.Name)
		if list == nil {
			list = []tools.Tool{}
		}
		reply(w, toolsResponse{Tools: list}, err)
	})
	handleJSON(mux, "call", b.Call)
	mux.HandleFunc("POST "+streamPath, s.mcpStream)
	mux.HandleFunc("GET /v1/gateway", func(w http.ResponseWriter, r *http.Request) {
		if s.Gateway == nil {
			reply(w, nil, &service.Error{Code: service.NotFound, Msg: "this mcptray runs no gateway"})
			return
		}
		reply(w, s.Gateway(), nil)
	})
	mux.HandleFunc("POST /v1/quit", func(w http.ResponseWriter, r *http.Request) {
		if s.Quit == nil {
			reply(w, nil, &service.Error{Code: service.NotAllowed, Msg: "this mcptray cannot be stopped from the command line"})
			return
		}
		reply(w, struct{}{}, nil)
		s.Quit() // the control endpoint stops after this answer, and the servers after it
	})
	mux.HandleFunc("POST /v1/window", func(w http.ResponseWriter, r *http.Request) {
		var req WindowRequest
		if !decode(w, r, &req) {
			return
		}
		if s.OpenWindow == nil || req.Bundle != "" && s.OpenBundle == nil {
			reply(w, nil, &service.Error{Code: service.NotAllowed, Msg: "this mcptray runs without a window (mcptray serve)"})
			return
		}
		if req.Bundle != "" {
			if !filepath.IsAbs(req.Bundle) {
				reply(w, nil, &service.Error{Code: service.Invalid, Msg: "the bundle's file must be given as a full path"})
				return
			}
			reply(w, struct{}{}, s.OpenBundle(req.Bundle))
			return
		}
		reply(w, struct{}{}, s.OpenWindow(req.Server))
	})
	return mux
}

// events streams one JSON line per change notice, the first at once.
func (s *Endpoint) events(w http.ResponseWriter, r *http.Request) {
	notices, err := s.Backend.Subscribe(r.Context())
	if err != nil {
		reply(w, nil, err)
		return
	}
	writeStream(w, r, notices, struct{}{})
}

// handle serves POST /v1/NAME {name} with fn's result.
func handle[T any](mux *http.ServeMux, path string, fn func(context.Context, string) (T, error)) {
	handleJSON(mux, path, func(ctx context.Context, req nameRequest) (T, error) { return fn(ctx, req.Name) })
}

// handleJSON serves POST /v1/PATH: a Req in the body, fn's answer back.
func handleJSON[Req, Res any](mux *http.ServeMux, path string, fn func(context.Context, Req) (Res, error)) {
	mux.HandleFunc("POST /v1/"+path, func(w http.ResponseWriter, r *http.Request) {
		var req Req
		if !decode(w, r, &req) {
			return
		}
		res, err := fn(r.Context(), req)
		reply(w, res, err)
	})
}

// handleNone serves POST /v1/NAME {name} with an empty result.
func handleNone(mux *http.ServeMux, path string, fn func(context.Context, string) error) {
	handle(mux, path, func(ctx context.Context, name string) (struct{}, error) { return struct{}{}, fn(ctx, name) })
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(v); err != nil {
		reply(w, nil, &service.Error{Code: service.Invalid, Msg: fmt.Sprintf("the request could not be read: %v", err)})
		return false
	}
	return true
}

// statusOf maps an error's code to an HTTP status, so that a client sees
// at a glance what kind of failure it is.
var statusOf = map[service.Code]int{
	service.NotFound:    http.StatusNotFound,
	service.NotAllowed:  http.StatusForbidden,
	service.Invalid:     http.StatusBadRequest,
	service.NeedsSignIn: http.StatusUnauthorized,
	service.NoKeychain:  http.StatusServiceUnavailable,
	service.Other:       http.StatusInternalServerError,
}

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		code := service.CodeOf(err)
		w.WriteHeader(statusOf[code])
		_ = json.NewEncoder(w).Encode(service.Error{Code: code, Msg: err.Error()})
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}
