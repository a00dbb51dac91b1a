package instance

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/service"
)

// StartService starts svc with the egress proxy its sandboxed servers
// reach the network through, when it needs one (service.EgressOptions):
// the proxy listens before the first server starts, and stop closes it
// after svc's last server is gone. An instance starts its service so; the
// command line's in-process service, which runs a command's servers while
// no mcptray runs, starts the same way.
//
// When Start fails, the proxy is closed and svc is left for the caller to
// close.
func StartService(ctx context.Context, svc *service.Service) (stop func() error, err error) {
	var proxy *egress.Proxy
	if o, ok := svc.EgressOptions(); ok {
		proxy = egress.New(o)
		// Closed by stop, not by ctx: servers still stopping after the
		// person quit keep their way out until they are gone.
		if err := proxy.Start(context.WithoutCancel(ctx)); err != nil {
			return nil, fmt.Errorf("starting the proxy for the servers' network: %w", err)
		}
		svc.UseEgress(proxy)
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
