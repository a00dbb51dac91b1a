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
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/hub"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// The client speaks the same API over the socket. That it has each method
// is checked when the program is built; that the endpoint has a route
// for each, and the client asks for that one, only the routes test
// checks (routes.go): the routes are strings.
var _ service.API = (*Client)(nil)

// Endpoint is the control endpoint: it serves the running mcptray's API
// (core/service's, declared there once), which the service implements, on
// the private socket to the window, the command line and mcptray stdio.
type Endpoint struct {
	// API is what the endpoint serves: the service.
	API service.API
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

// events streams one JSON line per change notice, the first at once.
func (s *Endpoint) events(ctx context.Context) (<-chan struct{}, []struct{}, error) {
	notices, err := s.API.Subscribe(ctx)
	return notices, []struct{}{{}}, err
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
