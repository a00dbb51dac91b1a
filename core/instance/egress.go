package instance

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/netpolicy"
)

// NewService makes the service of so and, when its sandboxed servers
// reach the network through mcptray's egress proxy (so.NeedsProxy), the
// network policy that decides their connections and the proxy that asks
// it: they meet here, and the service is given both. ask asks the person
// about a host not on a server's list; nil means there is no one to ask.
// Start the two with StartService. An instance makes its service so; the
// command line's in-process service, which runs a command's servers while
// no mcptray runs, is made the same way.
func NewService(so service.Options, ask egress.AskFunc) (*service.Service, *egress.Proxy, error) {
	var proxy *egress.Proxy
	if so.NeedsProxy() {
		so.Network = netpolicy.New(netpolicy.Options{Logger: so.Logger, UserFile: so.Paths.UserFile(), Ask: ask})
		proxy = egress.New(so.Network.ProxyOptions())
		so.Proxy = proxy
	}
	svc, err := service.New(so)
	if err != nil {
		return nil, nil, err
	}
	return svc, proxy, nil
}

// StartService starts the proxy NewService made (nil: none), then svc:
// the proxy listens before the first server starts, and stop closes it
// after svc's last server is gone.
//
// When Start fails, the proxy is closed and svc is left for the caller to
// close.
func StartService(ctx context.Context, svc *service.Service, proxy *egress.Proxy) (stop func() error, err error) {
	if proxy != nil {
		// Closed by stop, not by ctx: servers still stopping after the
		// person quit keep their way out until they are gone.
		if err := proxy.Start(context.WithoutCancel(ctx)); err != nil {
			return nil, fmt.Errorf("starting the proxy for the servers' network: %w", err)
		}
	}
	closeProxy := func() error {
		if proxy == nil {
			return nil
		}
		if err := proxy.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("closing the proxy for the servers' network: %w", err)
		}
		return nil
	}
	if err := svc.Start(ctx); err != nil {
		return nil, errors.Join(err, closeProxy())
	}
	return func() error { return errors.Join(svc.Close(), closeProxy()) }, nil
}
