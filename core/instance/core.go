package instance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/netpolicy"
	"github.com/mcptray/mcptray/core/sets"
)

// Core is a service with what core/instance makes beside it: its parts
// (parts.go), the network policy that decides its sandboxed servers'
// connections with the egress proxy that asks it, and the activity
// record. An instance makes its service so; the command line's in-process
// service, which runs a command's servers while no mcptray runs, is made
// the same way.
type Core struct {
	Service *service.Service
	// Record is the activity record the service records trust decisions
	// in; nil when none was asked for, or it could not be opened.
	Record *activity.Log
	// Sets keep what each app gets (core/sets), in mcptray's config
	// folder.
	Sets *sets.Keeper

	proxy *egress.Proxy
	log   *slog.Logger
}

// CoreOptions say what NewCore makes beside the service.
type CoreOptions struct {
	// Ask asks the person about a host not on a sandboxed server's list;
	// nil means there is no one to ask.
	Ask egress.AskFunc
	// Record opens the activity record at the service's ActivityFile.
	// When it cannot be opened, the service runs without one, and
	// NoRecord is said in the log.
	Record   bool
	NoRecord string
}

// NewCore makes the service of so and, beside it, what it is given as it
// is made: its parts on so's keychain and paths (makeParts); when its
// sandboxed servers reach the network through mcptray's egress proxy
// (so.NeedsProxy), the network policy that decides their connections and
// the proxy that asks it, which meet here; with o.Record, the activity
// record. Start them with Start.
func NewCore(ctx context.Context, so service.Options, o CoreOptions) (*Core, error) {
	log := so.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Core{log: log}
	makeParts(&so, log)
	if so.NeedsProxy() {
		so.Network = netpolicy.New(netpolicy.Options{Logger: log, UserFile: so.Paths.UserFile(), Ask: o.Ask})
		c.proxy = egress.New(so.Network.ProxyOptions())
		so.Proxy = c.proxy
	}
	if so.Sets == nil {
		var err error
		if so.Sets, err = sets.Open(sets.Path(so.Paths)); err != nil {
			log.Warn("every app gets every server until the sets are fixed", "err", err)
		}
	}
	c.Sets = so.Sets
	if o.Record {
		// The record masks the secrets the service keeps, and the service
		// records in the record: it is opened first, and asks the service
		// once there is one.
		var svc atomic.Pointer[service.Service]
		secrets := func(ctx context.Context) []string {
			if s := svc.Load(); s != nil {
				return s.ActivitySecrets(ctx)
			}
			return nil
		}
		l, err := openActivity(ctx, so, secrets, log)
		if err != nil {
			log.Warn(o.NoRecord, "err", err)
		} else {
			c.Record, so.Record = l, l
		}
		defer func() { svc.Store(c.Service) }()
	}
	var err error
	if c.Service, err = service.New(so); err != nil {
		closeActivity(c.Record, log)
		return nil, err
	}
	return c, nil
}

// Start starts the proxy, then the service: the proxy listens before the
// first server starts. stop closes the service, then the proxy once the
// service's last server is gone, then the record.
//
// When Start fails, the proxy is closed and the rest is left for Close.
func (c *Core) Start(ctx context.Context) (stop func() error, err error) {
	if c.proxy != nil {
		// Closed by stop, not by ctx: servers still stopping after the
		// person quit keep their way out until they are gone.
		if err := c.proxy.Start(context.WithoutCancel(ctx)); err != nil {
			return nil, fmt.Errorf("starting the proxy for the servers' network: %w", err)
		}
	}
	if err := c.Service.Start(ctx); err != nil {
		return nil, errors.Join(err, c.closeProxy())
	}
	return func() error {
		err := errors.Join(c.Service.Close(), c.closeProxy())
		closeActivity(c.Record, c.log)
		return err
	}, nil
}

// Close closes the service and the record, when Start was not called or
// failed.
func (c *Core) Close() error {
	err := c.Service.Close()
	closeActivity(c.Record, c.log)
	return err
}

func (c *Core) closeProxy() error {
	if c.proxy == nil {
		return nil
	}
	if err := c.proxy.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("closing the proxy for the servers' network: %w", err)
	}
	return nil
}
