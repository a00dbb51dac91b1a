package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
)

// KeptAddr returns the HTTP face's address as kept in mcptray's config,
// or "" when none was chosen yet.
func KeptAddr(p config.Paths) (string, error) {
	u, err := config.ReadUserFile(p.UserFile())
	if err != nil {
		return "", err
	}
	return u.GatewayAddr()
}

// URL is the HTTP face's endpoint for addr.
func URL(addr string) string { return "http://" + addr + Path }

// HTTPOptions configure the HTTP face.
type HTTPOptions struct {
	// Paths are where mcptray's config keeps the face's address.
	Paths config.Paths
	// Token gives the token apps must send: the service's GatewayToken,
	// which makes one the first time. Unused with NoAuth.
	Token func(ctx context.Context) (string, error)
	// Addr, when set, is where to listen this time ("127.0.0.1:PORT");
	// it is not kept. Otherwise the kept address is used, or a free port
	// is chosen and kept.
	Addr string
	// NoAuth turns the token off (test suites that cannot send one).
	NoAuth bool
}

// Status is how the HTTP face is doing, for mcptray gateway and the window.
// It never holds the token.
type Status struct {
	// URL is the endpoint apps connect to; "" when the face is not running.
	URL string `json:"url,omitempty"`
	// Auth is "bearer" (send Authorization: Bearer TOKEN) or "none".
	Auth string `json:"auth,omitempty"`
	// Problem says why the face is not running, in plain words.
	Problem string `json:"problem,omitempty"`
}

// Face is the gateway's HTTP face, listening.
type Face struct {
	g      *Gateway
	ln     net.Listener
	h      fasthttp.RequestHandler
	status Status
}

// OpenHTTP gets the token and listens for the HTTP face. Its errors say in
// plain words why the face cannot run; the rest of mcptray runs on.
func (g *Gateway) OpenHTTP(ctx context.Context, opts HTTPOptions) (*Face, error) {
	var token string
	if !opts.NoAuth {
		if opts.Token == nil {
			return nil, errors.New("it has no token to check requests against")
		}
		var err error
		if token, err = opts.Token(ctx); err != nil {
			var u *secret.UnavailableError
			if errors.As(err, &u) {
				// Said once, without the layers: "its token is kept in
				// your keychain, which mcptray cannot reach: no D-Bus…".
				return nil, fmt.Errorf("its token is kept in your keychain, which mcptray cannot reach: %s%s", u.Reason, prefixed("; ", u.Fix))
			}
			return nil, fmt.Errorf("its token is kept in your keychain: %w", err)
		}
	}
	addr, keep := opts.Addr, false
	if addr == "" {
		kept, err := KeptAddr(opts.Paths)
		if err != nil {
			return nil, fmt.Errorf("reading the gateway's address: %w", err)
		}
		addr, keep = kept, kept == ""
		if keep {
			addr = "127.0.0.1:0"
		}
	}
	ln, err := ListenLoopback(addr)
	if err != nil {
		return nil, fmt.Errorf("the gateway's HTTP face cannot listen: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	bound := fmt.Sprintf("127.0.0.1:%d", port)
	if keep {
		err := config.ModifyUserFile(opts.Paths.UserFile(), func(u *config.UserFile) error {
			if kept, err := u.GatewayAddr(); err != nil || kept != "" {
				return err // another mcptray chose one meanwhile: this run still works
			}
			return u.SetGatewayAddr(bound)
		})
		if err != nil {
			g.log.Warn("gateway: keeping its address", "err", err)
		}
	}
	f := &Face{g: g, ln: ln, status: Status{URL: URL(bound), Auth: "bearer"}}
	if opts.NoAuth {
		f.status.Auth = "none"
	}
	f.h = Protect(g.httpFace().serve, ProtectOptions{Token: token, NoAuth: opts.NoAuth, Port: port})
	return f, nil
}

// Status says where the face listens and how to authenticate.
func (f *Face) Status() Status { return f.status }

// Serve answers requests until ctx ends, then closes the listener.
func (f *Face) Serve(ctx context.Context) error {
	face := f.g.httpFace()
	go face.sweepUntil(ctx)
	return serveHTTP(ctx, f.ln, f.h, face.endAll, f.g.log)
}

// Close stops listening; for a Face that is not served.
func (f *Face) Close() error { return f.ln.Close() }

// prefixed is s after p, or "" when s is.
func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}
