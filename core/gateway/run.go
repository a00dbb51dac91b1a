package gateway

import (
	"context"
	"io"
	"sync"

	"github.com/mcptray/mcptray/core/service"
)

// StartOptions configure Start.
type StartOptions struct {
	Options
	HTTP HTTPOptions
}

// Running is a gateway that follows a service, with its HTTP face when it
// could open.
type Running struct {
	g      *Gateway
	status Status
	wg     sync.WaitGroup
}

// Start runs a gateway for svc until ctx ends: it follows svc's servers and
// serves the HTTP face. When the face cannot open (no keychain, the kept
// port is taken) the gateway still runs for mcptray stdio, and Status says
// why in plain words. Wait waits for both to end.
func Start(ctx context.Context, svc Servers, opts StartOptions) *Running {
	r := &Running{g: New(svc, opts.Options)}
	log := r.g.log
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if err := r.g.Run(ctx); err != nil {
			log.Warn("gateway: following the servers", "err", err)
		}
	}()
	face, err := r.g.OpenHTTP(ctx, opts.HTTP)
	if err != nil {
		r.status = Status{Problem: err.Error()}
		log.Warn("gateway: the HTTP face does not run", "err", err)
		return r
	}
	r.status = face.Status()
	log.Info("gateway: listening", "url", r.status.URL, "auth", r.status.Auth)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if err := face.Serve(ctx); err != nil {
			log.Warn("gateway: the HTTP face stopped", "err", err)
		}
	}()
	return r
}

// ServeStream serves one app's session through mcptray stdio
// (Gateway.ServeStream).
func (r *Running) ServeStream(ctx context.Context, in io.Reader, out io.Writer) error {
	return r.g.ServeStream(ctx, in, out)
}

// Status says where the HTTP face listens and how to authenticate, or
// why it does not run.
func (r *Running) Status() Status { return r.status }

// Sessions are the apps' sessions with the gateway (Gateway.Sessions).
func (r *Running) Sessions() []service.AppSession { return r.g.Sessions() }

// Wait waits until the gateway has stopped, once Start's ctx has ended.
func (r *Running) Wait() { r.wg.Wait() }
