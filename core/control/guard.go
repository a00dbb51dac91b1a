package control

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// What a client says it is (Mcptray-Client), for the activity record:
// DialAs's client.
const (
	Window      = "window"
	CommandLine = "command line"
)

const (
	// clientHeader carries what the client says it is.
	clientHeader = "Mcptray-Client"
	// refusedHeader marks the guard's refusal, and says why: refusedKey
	// or refusedSandbox.
	refusedHeader  = "Mcptray-Refused"
	refusedKey     = "key"
	refusedSandbox = "sandbox"
)

// openRoutes are the routes served to any program of the person's, with
// no control key: this list and nothing else. Every other route, and any
// route added later, needs the key and a peer outside a sandbox (guard).
var openRoutes = map[string]bool{
	// Is an mcptray running, and which one: mcptray stdio asks before it
	// starts one, and an AI app's sandbox may not let it read the key.
	"GET /v1/hello": true,
	// An AI app's gateway session, through mcptray stdio: the app may run
	// in a sandbox of its own that cannot read mcptray's folders. The
	// session reaches the gateway alone, whose only ways into the service
	// are its snapshot, its notices and tool calls (gateway.Servers),
	// governed by the person's pins and permissions; it decides nothing.
	"POST " + streamPath: true,
}

// notOurs is the guard's refusal of a request without the key.
const notOurs = "this program is not one of mcptray's own tools, so it cannot change what mcptray trusts"

// guard serves mux's open routes to anyone the listener admitted, and
// the rest only to a request that carries key from a peer that does not
// run in a sandbox of mcptray's; it says in the request's context who
// asks (service.DecidedBy), for the activity record.
func (s *Endpoint) guard(key []byte, mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The pattern mux itself picks for r: what it will serve.
		if _, pattern := mux.Handler(r); openRoutes[pattern] {
			mux.ServeHTTP(w, r)
			return
		}
		p := peerFrom(r.Context())
		why, words := "", ""
		switch {
		case !keyMatches(r.Header.Get("Authorization"), key):
			why, words = refusedKey, notOurs
		case p.sandboxed != "":
			why, words = refusedSandbox, "this program runs in a sandbox ("+p.sandboxed+"), so it cannot change what mcptray trusts"
		}
		if why != "" {
			s.logger().Warn("control: refused a program that is not one of mcptray's own tools",
				"request", sanitize.Line(r.Method+" "+r.URL.Path), "pid", p.pid, "program", sanitize.Line(p.program), "why", why)
			w.Header().Set(refusedHeader, why)
			reply(w, nil, &service.Error{Code: service.NotAllowed, Msg: words})
			return
		}
		mux.ServeHTTP(w, r.WithContext(service.DecidedBy(r.Context(), deciderOf(r))))
	})
}

// deciderOf says who asks for r, for the activity record: what the client
// says it is, and what the kernel says of it: "the command line (mcptray,
// pid 4242)".
func deciderOf(r *http.Request) string {
	return clientWords(r.Header.Get(clientHeader)) + peerFrom(r.Context()).words()
}

// clientWords is what a client says it is, as the record says it; what
// a client says is only a name, so anything else is "a program".
func clientWords(client string) string {
	switch client {
	case Window:
		return "the window"
	case CommandLine:
		return "the command line"
	}
	return "a program"
}

// Self says this process as client (Window, CommandLine) for the activity
// record, as the endpoint says a client it serves: for a front end that
// runs the service in its own process (service.DecidedBy).
func Self(client string) string {
	p := peer{pid: os.Getpid()}
	if exe, err := os.Executable(); err == nil {
		p.program = filepath.Base(exe)
	}
	return clientWords(client) + p.words()
}

// RefusedError is the running mcptray's refusal of a program it does not
// take for one of its own tools: without its control key, or running in
// one of its sandboxes. It matches ErrNotTrusted.
type RefusedError struct {
	// Msg is the running mcptray's words.
	Msg string
	// Sandboxed says that the key was there, but this program runs in a
	// sandbox of mcptray's.
	Sandboxed bool
	// KeyPath is where the key is kept, and NoKey why this program could
	// not read it ("" when it could).
	KeyPath, NoKey string
}

// ErrNotTrusted says that the running mcptray refused a request because
// the program asking is not one of mcptray's own tools.
var ErrNotTrusted = fmt.Errorf("%s", notOurs)

func (e *RefusedError) Error() string { return e.Msg }

// Is makes a RefusedError match ErrNotTrusted.
func (e *RefusedError) Is(target error) bool { return target == ErrNotTrusted }
