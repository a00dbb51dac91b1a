package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/valyala/fasthttp"
)

// Path is where the gateway answers, on the HTTP face and on the control
// endpoint.
const Path = "/mcp"

// sessionIdle is how long a session may go unused before it is forgotten.
const sessionIdle = 24 * time.Hour

// sessionHeader is streamable HTTP's session header.
const sessionHeader = "Mcp-Session-Id"

// sessions issues session ids from crypto/rand and knows every live one,
// with its session once initialize made it, so that an id the gateway did
// not issue, or one that has ended, is answered 404 (mcp-go's default
// accepts any well-formed id). Ended ids are forgotten: they are as unknown
// as any other.
type sessions struct {
	mu   sync.Mutex
	live map[string]*httpSession // nil until initialize succeeds
}

var _ server.SessionIdManager = (*sessions)(nil)

func newSessions() *sessions {
	return &sessions{live: map[string]*httpSession{}}
}

// Generate returns a new session id.
func (s *sessions) Generate() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	id := "mcptray-" + hex.EncodeToString(b)
	s.mu.Lock()
	s.live[id] = nil
	s.mu.Unlock()
	return id
}

// Validate says whether id was issued here and has not ended.
func (s *sessions) Validate(id string) (terminated bool, err error) {
	if !s.known(id) {
		return false, errors.New("unknown session")
	}
	return false, nil
}

// Terminate ends a session.
func (s *sessions) Terminate(id string) (notAllowed bool, err error) {
	s.mu.Lock()
	delete(s.live, id)
	s.mu.Unlock()
	return false, nil
}

// known reports whether id names a live session.
func (s *sessions) known(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.live[id]
	return ok
}

// get returns the session id names; nil when there is none.
func (s *sessions) get(id string) *httpSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id]
}

// set gives the issued id its session.
func (s *sessions) set(id string, hs *httpSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[id] = hs
}

// remove forgets hs and reports whether it was live: only the first of
// several ends of a session does.
func (s *sessions) remove(hs *httpSession) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live[hs.id] != hs {
		return false
	}
	delete(s.live, hs.id)
	return true
}

// idle returns the sessions gone unused since before.
func (s *sessions) idle(before time.Time) []*httpSession {
	return slices.DeleteFunc(s.all(), func(hs *httpSession) bool { return !hs.idle(before) })
}

// all returns the live sessions.
func (s *sessions) all() []*httpSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*httpSession
	for _, hs := range s.live {
		if hs != nil {
			out = append(out, hs)
		}
	}
	return out
}

// httpFace is the HTTP face's handler, made by the first call.
func (g *Gateway) httpFace() *httpFace {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handler == nil {
		ids := newSessions()
		rest := server.NewStreamableHTTPServer(g.mcp,
			server.WithEndpointPath(Path),
			server.WithSessionIdManager(ids),
			server.WithStreamableHTTPLogger(g.log),
		)
		g.handler = newHTTPFace(g, ids, rest)
	}
	return g.handler
}

// ProtectOptions say what the HTTP face lets in.
type ProtectOptions struct {
	// Token is the bearer token every request must carry.
	Token string
	// NoAuth lets requests in without a token (test suites that cannot
	// send one); Host and Origin are checked all the same.
	NoAuth bool
	// Port is the port the face listens on: the Host header must name it.
	Port int
}

// Protect wraps the gateway's handler for the HTTP face: a foreign Host
// (DNS rebinding) or Origin (a web page) is answered 403, a missing or
// wrong token 401. The token is compared in constant time.
func Protect(next fasthttp.RequestHandler, opts ProtectOptions) fasthttp.RequestHandler {
	want := sha256.Sum256([]byte(opts.Token))
	hosts := map[string]bool{
		fmt.Sprintf("127.0.0.1:%d", opts.Port): true,
		fmt.Sprintf("localhost:%d", opts.Port): true,
	}
	return func(ctx *fasthttp.RequestCtx) {
		if host := ctx.Request.Header.Host(); !hosts[string(host)] && !hosts[strings.ToLower(string(host))] {
			httpError(ctx, "Forbidden: the Host header must be 127.0.0.1 or localhost with the gateway's port", http.StatusForbidden)
			return
		}
		if o := ctx.Request.Header.Peek("Origin"); len(o) > 0 && !loopbackOrigin(string(o)) {
			httpError(ctx, "Forbidden: requests from web pages are not accepted", http.StatusForbidden)
			return
		}
		if !opts.NoAuth {
			// The scheme's name is case-insensitive (RFC 9110).
			auth := ctx.Request.Header.Peek("Authorization")
			ok := len(auth) > len("Bearer ") && bytes.EqualFold(auth[:len("Bearer ")], []byte("Bearer "))
			var got []byte
			if ok {
				got = bytes.TrimSpace(auth[len("Bearer "):])
			}
			sum := sha256.Sum256(got)
			// Hashing first makes the comparison's time independent of
			// the lengths too.
			if app, mine := appOfToken(opts.Token, got); ok && mine {
				ctx.SetUserValue(tokenAppKey, app) // an app's own token (sets.go)
			} else if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
				ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="mcptray"`)
				httpError(ctx, "Unauthorized: send the gateway's token as Authorization: Bearer TOKEN (mcptray gateway says how)", http.StatusUnauthorized)
				return
			}
		}
		next(ctx)
	}
}

// loopbackOrigin reports whether an Origin header names this computer.
func loopbackOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return loopbackHost(u.Hostname())
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

// ErrNotLoopback says that an address for the HTTP face is not on the
// loopback interface.
var ErrNotLoopback = errors.New("the gateway listens on 127.0.0.1 only")

// ListenLoopback listens on addr ("127.0.0.1:PORT", or "127.0.0.1:0" for
// a free port). Any other host is refused.
func ListenLoopback(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("reading the gateway address %q: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.Is4() || !ip.IsLoopback() {
		return nil, fmt.Errorf("%q: %w", addr, ErrNotLoopback)
	}
	ln, err := net.Listen("tcp4", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return ln, nil
}

// maxHeader bounds a request's head (its line and headers); fasthttp's
// default of 4 KiB is less than some apps' headers.
const maxHeader = 64 << 10

// drainIdle is how long drain waits for more of a body the app sends.
const drainIdle = 100 * time.Millisecond

// drain reads and drops what the app still sends on c (a body the server
// refused unread), up to twice maxMessage, so that c closes with nothing
// unread and the app gets the refusal rather than a reset connection.
func drain(c net.Conn) {
	buf := make([]byte, 64<<10)
	for n := 0; n < 2*maxMessage; {
		_ = c.SetReadDeadline(time.Now().Add(drainIdle))
		m, err := c.Read(buf)
		n += m
		if err != nil {
			return
		}
	}
}

// serveHTTP serves h on ln until ctx ends, then closes ln and calls
// stopped, which is to end the requests still running (listening streams
// do not end by themselves).
func serveHTTP(ctx context.Context, ln net.Listener, h fasthttp.RequestHandler, stopped func(), log *slog.Logger) error {
	hs := &fasthttp.Server{
		Handler:            h,
		ReadTimeout:        10 * time.Second, // a request's head and body
		IdleTimeout:        10 * time.Minute, // between an app's requests
		MaxRequestBodySize: maxMessage,
		ReadBufferSize:     maxHeader, // which bounds a request's head

		// Apps send nothing in the gateway's headers' place.
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		ErrorHandler: func(ctx *fasthttp.RequestCtx, err error) {
			if errors.Is(err, fasthttp.ErrBodyTooLarge) {
				drain(ctx.Conn())
				httpError(ctx, "Request Entity Too Large: a message may be 32 MiB at most", http.StatusRequestEntityTooLarge)
				return
			}
			if errors.As(err, new(*fasthttp.ErrSmallBuffer)) {
				// Read the rest, or the app's write of it meets a
				// reset and it never reads the answer.
				drain(ctx.Conn())
				httpError(ctx, "Request Header Fields Too Large: a request's head may be 64 KiB at most", http.StatusRequestHeaderFieldsTooLarge)
				return
			}
			httpError(ctx, "Bad Request: the request could not be read", http.StatusBadRequest)
		},
		Logger:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		CloseOnShutdown: true,
	}
	served := make(chan struct{})
	defer close(served)
	go func() {
		select {
		case <-ctx.Done():
		case <-served:
			return
		}
		stopped()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.ShutdownWithContext(shutdown)
	}()
	err := hs.Serve(rawListener{ln})
	if ctx.Err() != nil {
		return nil
	}
	return err
}
