package conn

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// dial connects to s and completes the initialize handshake. ctx is the
// connection's whole life: a stdio child lives as long as it; only the
// handshake is bounded by the connect timeout.
//
// gate waits for the handshake's place in the window. A stdio server's
// process is started before it, to warm up while it waits (window.go);
// every other transport waits at the gate before it does anything.
func (m *Manager) dial(ctx context.Context, s *config.Server, gate func(context.Context) error) (*session, error) {
	s, removeFiles, err := m.withSecrets(ctx, s)
	if err != nil {
		return nil, err
	}
	if s.Transport == config.Stdio {
		return m.dialStdio(ctx, s, gate, removeFiles)
	}
	if err := gate(ctx); err != nil {
		return nil, err
	}
	switch s.Transport {
	case config.HTTP:
		sess, err := m.dialRemote(ctx, s, config.HTTP)
		if err != nil && transport.ShouldFallBackToSSE(err) {
			m.opts.Logger.Info("falling back to SSE", "server", s.Name)
			return m.dialRemote(ctx, s, config.SSE)
		}
		return sess, err
	case config.SSE, config.WebSocket:
		return m.dialRemote(ctx, s, s.Transport)
	case config.InProcess:
		srv := m.opts.Builtin[s.Name]
		if srv == nil {
			return nil, fmt.Errorf("there is no built-in server called %q", s.Name)
		}
		return m.handshake(ctx, s, mcptransport.NewInProcessTransport(srv), nil, nil, nil)
	}
	return nil, fmt.Errorf("cannot connect over %q", s.Transport)
}

// removeFiles removes the secrets given to s as files once its process
// has stopped (withSecrets).
func (m *Manager) dialStdio(ctx context.Context, s *config.Server, gate func(context.Context) error, removeFiles func()) (*session, error) {
	env, err := m.opts.serverEnv(s)
	if err != nil {
		removeFiles()
		return nil, err
	}
	tr, err := transport.NewStdio(transport.StdioConfig{
		Command: s.Command, Args: s.Args, Env: env, Dir: s.Cwd,
		BaseEnv: m.opts.BaseEnv, Grace: m.opts.StdioGrace, Logger: m.opts.Logger.With("server", s.Name),
		Sandbox: m.stdioSandbox(s),
	})
	if err != nil {
		removeFiles()
		return nil, err
	}
	go func() {
		<-tr.Done()
		removeFiles()
	}()
	sess, err := m.handshake(ctx, s, tr, gate, tr.Done(), tr.ExitErr)
	if err != nil {
		// What the program printed usually says why better than we can.
		return nil, withStderr(err, tr.Stderr())
	}
	sess.stderr, sess.pid = tr.Stderr, tr.Pid()
	// Its secrets' files are gone by the time its close returns, as well
	// as once it ended by itself.
	closeSession := sess.close
	sess.close = func() error {
		err := closeSession()
		<-tr.Done()
		removeFiles()
		return err
	}
	return sess, nil
}

func (m *Manager) dialRemote(ctx context.Context, s *config.Server, kind config.Transport) (*session, error) {
	var tokens transport.TokenSource
	if m.opts.Tokens != nil {
		tokens = m.opts.Tokens(s)
	}
	hc := transport.NewHTTPClient(transport.HTTPOptions{RequestTimeout: m.opts.RequestTimeout, Tokens: tokens})
	log := m.opts.Logger.With("server", s.Name)
	sess, err := m.dialKind(ctx, s, kind, hc, log)
	if err != nil {
		hc.CloseIdleConnections()
		return nil, err
	}
	closeClient := sess.close
	sess.close = func() error {
		defer hc.CloseIdleConnections() // each connection has its own pool
		return closeClient()
	}
	return sess, nil
}

func (m *Manager) dialKind(ctx context.Context, s *config.Server, kind config.Transport, hc *http.Client, log *slog.Logger) (*session, error) {
	switch kind {
	case config.WebSocket:
		tr := transport.NewWebSocket(s.URL, s.Headers, hc, log)
		return m.handshake(ctx, s, tr, nil, tr.Done(), tr.Err)
	case config.SSE:
		tr, err := transport.NewSSE(s.URL, s.Headers, hc, log)
		if err != nil {
			return nil, err
		}
		return m.handshakeLosable(ctx, s, tr)
	default:
		tr, err := transport.NewStreamableHTTP(s.URL, s.Headers, hc, log)
		if err != nil {
			return nil, err
		}
		return m.handshakeLosable(ctx, s, tr)
	}
}

// handshakeLosable connects over a transport that reports a lost connection
// through mcp-go's OnConnectionLost.
func (m *Manager) handshakeLosable(ctx context.Context, s *config.Server, tr mcptransport.Interface) (*session, error) {
	lost := make(chan struct{})
	var once sync.Once
	var lostErr error
	var mu sync.Mutex
	onLost := func(err error) {
		once.Do(func() {
			mu.Lock()
			lostErr = err
			mu.Unlock()
			close(lost)
		})
	}
	sess, err := m.handshake(ctx, s, tr, nil, lost, func() error { mu.Lock(); defer mu.Unlock(); return lostErr })
	if err != nil {
		return nil, err
	}
	sess.client.OnConnectionLost(onLost)
	return sess, nil
}

// handshake starts a client on tr and initializes it. gate, when not nil,
// is waited for between the two. lost, when not nil, closes when the
// connection is gone, and lostErr then says why.
func (m *Manager) handshake(ctx context.Context, s *config.Server, tr mcptransport.Interface, gate func(context.Context) error, lost <-chan struct{}, lostErr func() error) (*session, error) {
	version := ProtocolVersion
	if lr, ok := tr.(legacyRequirer); ok && !lr.RequiresLegacyProtocol() {
		version = ModernProtocolVersion
	}
	opts := []client.ClientOption{client.WithProtocolVersion(version)}
	// Offer to answer the server's questions only over a transport that
	// can carry them: mcp-go's SSE client cannot, and a server that asks
	// anyway would wait for an answer that never comes.
	var caps mcp.ClientCapabilities
	// MCP Apps: a server that checks for the extension before it names
	// its tools' views (as its SDKs advise) names them to mcptray, whose
	// gateway passes them on to the apps that can show them.
	caps.Extensions = map[string]any{AppsExtension: map[string]any{"mimeTypes": []string{AppsMIMEType}}}
	opts = append(opts, client.WithClientCapabilities(caps))
	if _, ok := tr.(mcptransport.BidirectionalInterface); ok {
		caps.Elicitation = &mcp.ElicitationCapability{}
		// No listChanged: the roots a server gets depend on the call (its
		// own folder, or the calling app's), and mcptray sends no
		// notifications/roots/list_changed; a server asks when it needs
		// them.
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
		caps.Sampling = &mcp.SamplingCapability{}
		opts = append(opts,
			// mcp-go would otherwise declare what its handlers imply,
			// listChanged included.
			client.WithClientCapabilities(caps),
			client.WithElicitationHandler(elicitHandler{m: m, server: s.Name}),
			client.WithRootsHandler(rootsHandler{m: m, server: s}),
			client.WithSamplingHandler(samplingHandler{m: m, server: s.Name}))
	}
	cl := client.NewClient(tr, opts...)
	cl.OnNotification(m.calls.relayProgress)
	if err := cl.Start(ctx); err != nil {
		cl.Close()
		return nil, err // the transport says what it was starting
	}
	if gate != nil {
		if err := gate(ctx); err != nil {
			cl.Close()
			return nil, err
		}
	}
	initCtx, cancel := context.WithTimeout(ctx, m.opts.ConnectTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "mcptray", Version: Version}
	if _, err := cl.Initialize(initCtx, req); err != nil {
		cl.Close()
		if initCtx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return nil, fmt.Errorf("it did not answer within %s", m.opts.ConnectTimeout)
		}
		return nil, err
	}
	if lost == nil {
		lost = make(chan struct{}) // in-process: never lost
	}
	if lostErr == nil {
		lostErr = func() error { return nil }
	}
	sess := &session{client: cl, lost: lost, lostErr: lostErr, close: cl.Close, caps: caps, info: req.Params.ClientInfo}
	sess.direct = !mcp.IsModernProtocol(cl.ProtocolVersion()) && canCallDirect(tr)
	if mcp.IsModernProtocol(cl.ProtocolVersion()) {
		_, sess.http = tr.(mcptransport.HTTPConnection)
		sess.modern = true
		// 2026-07-28 has no GET stream: a server tells of changed tools
		// and prompts only on a subscriptions/listen stream the client
		// opens.
		log := m.opts.Logger.With("server", s.Name)
		stop, err := cl.ListenAsync(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true}, func(err error) {
			log.Debug("the server's notification stream ended", "err", err)
		})
		if err == nil {
			sess.close = func() error { stop(); return cl.Close() }
		}
	}
	return sess, nil
}

// legacyRequirer is a transport that says whether it can speak only the
// revisions before 2026-07-28 (mcp-go's own interface for it is unexported).
type legacyRequirer interface {
	RequiresLegacyProtocol() bool
}

// Version is mcptray's version as servers see it in initialize.
var Version = "0.1.0"
