package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Options configure a Proxy. Every field may be left empty.
type Options struct {
	Logger *slog.Logger
	// Hosts is a server's list of allowed destinations (NormalHost's
	// forms): what it declares (Declared) and what the person allowed.
	// It is called for each new connection, from many goroutines at
	// once, so a change shows at once: keep it cheap (no disk). nil
	// allows nothing without asking.
	Hosts func(server string) []string
	// Ask asks the person about a destination not on a server's list;
	// nil is as if there were no window: the connection is refused.
	Ask AskFunc
	// AskTimeout bounds how long a connection waits for Ask's answer
	// (DefaultAskTimeout).
	AskTimeout time.Duration
	// Flow, when set, says whether a call runs on server now for an app
	// session that has read the person's data and content someone else
	// wrote (core/guard), and if so how, in words, with dest as where
	// data would go; "" when none does. Such a call's connection to a
	// destination not on the server's list is asked about with those
	// words (Question.Chain), and an answer given without them does not
	// let it through. Like Hosts it is called for each new connection.
	Flow func(server, dest string) string
	// Remember keeps an "Always" answer: dest is in NormalHost's form, to
	// be added to the server's list for good; by is which of the person's
	// tools gave it (Reply.By). The connection goes ahead even when it
	// fails (the error is logged).
	Remember func(server, dest, by string) error
	// OnRefusal, when set, hears of each refused connection, after it is
	// recorded (Refusals): say, to tell the window.
	OnRefusal func(Refusal)
	// MaxRefusals is how many refusals are kept per server
	// (DefaultMaxRefusals).
	MaxRefusals int
	// Resolve replaces the system's resolver (tests): its answers are
	// the caller's own table, trusted as they are, whereas a name the
	// system's resolver answers with an address of this computer or its
	// local network is asked about as local.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Proxy is the egress proxy. Make one with New.
type Proxy struct {
	opts       Options
	log        *slog.Logger
	askTimeout time.Duration
	machine    machine
	sessions   sessions
	refusals   refusals
	forwarder  *httputil.ReverseProxy
	// lookup is the system's resolver (a test may change it before
	// Start); its answers are checked for this computer's addresses.
	lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)

	ctx    context.Context // ends with Close: open questions end with it
	cancel context.CancelFunc

	port    atomic.Int32
	mu      sync.Mutex
	srv     *http.Server
	served  chan struct{}
	tunnels map[net.Conn]struct{} // both ends of each open tunnel
	closed  bool
}

// New makes a proxy; Start starts it.
func New(opts Options) *Proxy {
	p := &Proxy{
		opts:       opts,
		log:        opts.Logger,
		askTimeout: opts.AskTimeout,
		sessions:   sessions{byServer: map[string]*session{}},
		refusals:   refusals{max: opts.MaxRefusals, byServer: map[string][]Refusal{}},
		tunnels:    map[net.Conn]struct{}{},
		lookup:     net.DefaultResolver.LookupNetIP,
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.askTimeout <= 0 {
		p.askTimeout = DefaultAskTimeout
	}
	if p.refusals.max <= 0 {
		p.refusals.max = DefaultMaxRefusals
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.forwarder = &httputil.ReverseProxy{
		// The request is in absolute form: its URL is where it goes.
		// Rewrite has already dropped the hop-by-hop headers,
		// Proxy-Authorization among them.
		Rewrite: func(*httputil.ProxyRequest) {},
		Transport: &http.Transport{
			Proxy:                 nil, // never the person's own proxy: this one decides
			DialContext:           p.dialDecided,
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: 5 * time.Minute,
		},
		FlushInterval: -1, // event streams go through as they come
		ErrorLog:      slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.log.Debug("forwarding a server's request", "host", sanitize.Line(r.URL.Host), "err", err)
			plain(w, http.StatusBadGateway, fmt.Sprintf("mcptray's proxy could not reach %s: %v", sanitize.Line(r.URL.Host), err))
		},
	}
	return p
}

// Start listens on 127.0.0.1, on a port the system picks, and serves until
// ctx ends or Close.
func (p *Proxy) Start(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil || p.closed {
		return errors.New("egress: the proxy was started before")
	}
	p.machine = thisMachine()
	ln, err := net.Listen("tcp", netip.AddrPortFrom(listenAddr, 0).String())
	if err != nil {
		return fmt.Errorf("starting the network proxy: %w", err)
	}
	p.port.Store(int32(ln.Addr().(*net.TCPAddr).Port))
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
	}
	p.served = make(chan struct{})
	go func() {
		defer close(p.served)
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Warn("the network proxy stopped", "err", err)
		}
	}()
	context.AfterFunc(ctx, func() { p.Close() })
	return nil
}

// Serve serves the proxy on ln as well, until ln or the proxy closes: a
// listener inside a server's own network namespace, which the sandbox's
// launcher brought out (core/sandbox), so that the proxy is what that
// server reaches at 127.0.0.1 and the proxy's port. The proxy must have
// started.
func (p *Proxy) Serve(ln net.Listener) {
	p.mu.Lock()
	srv, closed := p.srv, p.closed
	p.mu.Unlock()
	if srv == nil || closed {
		ln.Close()
		return
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			p.log.Warn("the network proxy stopped serving a server's network", "err", err)
		}
	}()
}

// Port is the port the proxy listens on at 127.0.0.1, the one port
// Landlock must let every sandboxed server connect to; 0 before Start.
func (p *Proxy) Port() int { return int(p.port.Load()) }

// Close stops the proxy: questions open end (their connections are
// refused), tunnels and connections close. It waits for the server to
// stop and is safe to call more than once.
func (p *Proxy) Close() error {
	p.cancel()
	p.mu.Lock()
	p.closed = true
	srv, served := p.srv, p.served
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Close()
	<-served
	return err
}

// serve is one request from a server: CONNECT for a tunnel (HTTPS, or
// anything over TCP), or a plain HTTP request in absolute form.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	s := p.authenticate(r)
	if s == nil {
		w.Header().Set("Proxy-Authenticate", `Basic realm="mcptray"`)
		plain(w, http.StatusProxyAuthRequired, "mcptray's network proxy serves the servers mcptray starts, each with the credential in its HTTPS_PROXY; this request has none it knows.")
		return
	}
	var d dest
	var err error
	if r.Method == http.MethodConnect {
		d, err = parseDest(r.Host, 443)
	} else if r.URL.IsAbs() && r.URL.Scheme == "http" {
		d, err = parseDest(r.URL.Host, 80)
	} else {
		err = fmt.Errorf("mcptray's network proxy forwards http:// addresses, and https:// ones through CONNECT; %s is neither", sanitize.Line(r.URL.String()))
	}
	if err != nil {
		plain(w, http.StatusBadRequest, err.Error())
		return
	}
	d.local = p.machine.localName(d.host)
	ctx := r.Context()
	chain := p.flow(s.server, d)
	if ok, why := p.decide(ctx, s, d, chain); !ok {
		p.refuse(w, s.server, d, why, chain)
		return
	}
	addrs, pointsHere, err := p.resolve(ctx, d)
	if err != nil {
		plain(w, http.StatusBadGateway, fmt.Sprintf("mcptray's proxy could not find %s: %v", d.host, err))
		return
	}
	if pointsHere {
		// A name that points to this computer is asked about as the
		// local destination it is.
		d.local = true
		if ok, why := p.decide(ctx, s, d, chain); !ok {
			p.refuse(w, s.server, d, why, chain)
			return
		}
	}
	for _, a := range addrs {
		if d.port == p.Port() && ownAddr(a) {
			p.refuse(w, s.server, d, "that is mcptray's own proxy", "")
			return
		}
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, d, addrs)
		return
	}
	p.forwarder.ServeHTTP(w, r.WithContext(context.WithValue(ctx, decidedKey{}, addrs)))
}

// decidedKey carries a forwarded request's addresses, decided on, to
// dialDecided.
type decidedKey struct{}

// dialDecided dials what serve decided for a forwarded request.
func (p *Proxy) dialDecided(ctx context.Context, _, addr string) (net.Conn, error) {
	addrs, _ := ctx.Value(decidedKey{}).([]netip.Addr)
	_, portText, err := net.SplitHostPort(addr)
	if err != nil || len(addrs) == 0 {
		return nil, fmt.Errorf("no address decided on for %s", addr)
	}
	port, _ := strconv.Atoi(portText)
	return p.dial(ctx, addrs, port)
}

// resolve finds d's addresses, and says whether the system's resolver
// answered a name with an address of this computer or its local network.
func (p *Proxy) resolve(ctx context.Context, d dest) ([]netip.Addr, bool, error) {
	if a, err := netip.ParseAddr(d.host); err == nil {
		return []netip.Addr{a}, false, nil
	}
	if p.opts.Resolve != nil {
		addrs, err := p.opts.Resolve(ctx, d.host)
		if err == nil && len(addrs) == 0 {
			err = errors.New("no address")
		}
		return addrs, false, err
	}
	addrs, err := p.lookup(ctx, "ip", d.host)
	if err != nil {
		return nil, false, err
	}
	here := false
	for _, a := range addrs {
		here = here || p.machine.localAddr(a)
	}
	return addrs, here && !d.local, nil
}

// dial connects to the first of addrs that answers.
func (p *Proxy) dial(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, error) {
	dialer := net.Dialer{Timeout: 15 * time.Second}
	var first error
	for _, a := range addrs {
		c, err := dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// tunnel connects the server to d and copies bytes both ways until both
// ends are done.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, d dest, addrs []netip.Addr) {
	target, err := p.dial(r.Context(), addrs, d.port)
	if err != nil {
		plain(w, http.StatusBadGateway, fmt.Sprintf("mcptray's proxy could not connect to %s: %v", d.key(), err))
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		target.Close()
		plain(w, http.StatusInternalServerError, "mcptray's proxy cannot tunnel over this connection")
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		target.Close()
		return
	}
	if !p.track(client, target) {
		client.Close()
		target.Close()
		return
	}
	defer p.untrack(client, target)
	client.SetDeadline(time.Time{})
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// What the client sent after CONNECT, its TLS hello perhaps, may
	// wait in the server's buffer.
	if n := buf.Reader.Buffered(); n > 0 {
		early, _ := buf.Reader.Peek(n)
		if _, err := target.Write(early); err != nil {
			return
		}
	}
	done := make(chan struct{})
	go func() {
		io.Copy(target, client)
		closeWrite(target)
		close(done)
	}()
	io.Copy(client, target)
	closeWrite(client)
	<-done
}

// track keeps a tunnel's two ends for Close; it reports false when the
// proxy is closing.
func (p *Proxy) track(a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.tunnels[a], p.tunnels[b] = struct{}{}, struct{}{}
	return true
}

func (p *Proxy) untrack(a, b net.Conn) {
	p.mu.Lock()
	delete(p.tunnels, a)
	delete(p.tunnels, b)
	p.mu.Unlock()
	a.Close()
	b.Close()
}

// closeWrite tells the other end that no more comes, keeping the way
// back open.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// plain answers with a status and a sentence.
func plain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintln(w, text)
}
