// Package instance is one running mcptray: the service with its servers,
// the proxy their network goes through, the gateway that serves them to
// the person's apps, the activity record, and the control endpoint through
// which the window, the command line and mcptray stdio reach them all. It
// owns every listener, and is the one place that wires them together and
// takes them down again, in order: it makes the service's parts beside
// what they serve (the network policy with the egress proxy, the roster
// of the apps with the gateway, the keeper of secrets and the sign-in
// desk on the keychain, the trust keeper on the approvals file, the data
// folders, the record; NewCore) and gives each to the service as it is
// made. What is done with them, the service decides.
//
// The tray's process (app/host) and mcptray serve (app/cli) each run one,
// and so do the tests that need a whole mcptray. What differs between them
// is what sits in front: a tray and a window, or a terminal.
//
//	inst, err := instance.Listen(opts) // this process is now the running mcptray
//	...                                 // hook up what needs inst.Endpoint
//	err = inst.Start(ctx)               // servers start; the endpoint and the gateway serve
//	<-inst.Context().Done()             // Quit, mcptray quit, ctx's end, or the endpoint failed
//	inst.Close()                        // endpoint, gateway, every server process, the proxy, the record, the socket and its key
package instance

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/memtrim"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/apps"
	"github.com/mcptray/mcptray/core/sets"
)

// Options configure an Instance.
type Options struct {
	// Service configures the service. Paths and Store are required;
	// Logger, Follow and (with Window) Elicit are set by Listen.
	Service service.Options
	Logger  *slog.Logger
	// Window says that the person answers in mcptray's window: servers'
	// questions and the gateway's permission questions go to it through
	// the control endpoint. Without a window, servers' questions go to
	// Service.Elicit (nil: their defaults) and calls that would ask are
	// refused with the command that allows them.
	Window bool
	// OpenWindow opens the window, or brings it forward, at a server (""
	// for none); nil means this mcptray has no window to open.
	OpenWindow func(server string) error
	// OpenBundle opens the window, or brings it forward, at the install
	// dialog of an MCP Bundle file; nil means the same as for OpenWindow.
	OpenBundle func(file string) error
	// HTTP configures the gateway's HTTP face; its Paths and Token are
	// the service's.
	HTTP gateway.HTTPOptions
}

// Instance is a running mcptray. Listen sets Service, Activity and
// Endpoint, Start sets Gateway; none changes after.
type Instance struct {
	// Service runs the servers.
	Service *service.Service
	// Endpoint answers the window, the command line and mcptray stdio.
	Endpoint *control.Endpoint
	// Gateway serves the servers to the person's apps; nil until Start
	// has started it.
	Gateway *gateway.Running
	// Activity is the record of the apps' calls and the person's trust
	// decisions, opened beside the service (NewCore); nil when it could
	// not be opened.
	Activity *activity.Log

	opts Options
	log  *slog.Logger
	ln   *control.Listener
	// core is the service with what is made beside it: the network
	// policy with the egress proxy, and the activity record (NewCore).
	core *Core
	// apps is the service's roster of the AI apps, made beside the
	// gateway whose sessions it reads.
	apps *apps.Roster
	// sets keep what each app gets; the gateway follows them.
	sets *sets.Keeper

	ctx    context.Context // ends with Quit
	cancel context.CancelFunc

	mu      sync.Mutex
	started bool
	served  chan error // the endpoint's end, once it serves
	// stopService closes the service, then its egress proxy and the record (Core.Start).
	stopService func() error
	err         error // why the endpoint stopped by itself

	closeOnce sync.Once
	closeErr  error
}

// Listen makes this process the running mcptray for opts.Service.Paths:
// it takes the instance lock, writes a new control key, listens on the
// control socket and builds the service and the endpoint, which serve once
// Start is called. It returns
// an error matching control.ErrRunning when another mcptray runs.
func Listen(opts Options) (*Instance, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ln, err := control.Listen(opts.Service.Paths)
	if err != nil {
		return nil, err
	}
	i := &Instance{opts: opts, log: opts.Logger, ln: ln}
	i.Endpoint = &control.Endpoint{Logger: opts.Logger, OpenWindow: opts.OpenWindow, OpenBundle: opts.OpenBundle, Quit: i.Quit}
	so := opts.Service
	so.Logger, so.Follow = opts.Logger, true
	co := CoreOptions{Record: true, NoRecord: "the activity record could not be opened; calls are not recorded"}
	if opts.Window {
		so.Elicit, co.Ask = i.Endpoint.Ask, i.Endpoint.AskEgress
	}
	// The apps' sessions are the gateway's, which Start starts: the
	// roster reads them, and the gateway tells it of each change. A
	// roster given in Service.Apps (tests: sessions of their own) is
	// told instead.
	if so.Apps == nil {
		so.Apps = apps.New(apps.Options{Paths: so.Paths, Logger: so.Logger, Now: so.Now, Sessions: i.sessions})
	}
	i.apps = so.Apps
	i.ctx, i.cancel = context.WithCancel(context.Background())
	if i.core, err = NewCore(i.ctx, so, co); err != nil {
		i.cancel()
		ln.Close()
		return nil, err
	}
	i.Service, i.Activity = i.core.Service, i.core.Record
	i.sets = i.core.Sets // the gateway follows them once Start has started it
	i.Endpoint.API = i.Service
	return i, nil
}

// Start starts the servers, the gateway and the endpoint. They run until
// Quit, or until ctx ends.
func (i *Instance) Start(ctx context.Context) error {
	i.mu.Lock()
	if i.started {
		i.mu.Unlock()
		return errors.New("instance: started twice")
	}
	i.started = true
	i.mu.Unlock()
	stop := context.AfterFunc(ctx, i.Quit)
	go func() { <-i.ctx.Done(); stop() }()
	stopService, err := i.core.Start(i.ctx)
	if err != nil {
		return err
	}
	// A running mcptray sits idle for hours: the heap a burst freed goes
	// back to the system once it is quiet.
	go memtrim.Run(i.ctx, i.log, memtrim.Options{})
	i.mu.Lock()
	i.stopService = stopService
	i.mu.Unlock()
	gopts := gateway.StartOptions{Options: gateway.Options{Logger: i.log, Recorder: i.recorder(), Home: i.opts.Service.Paths.Home}, HTTP: i.opts.HTTP}
	gopts.HTTP.Paths, gopts.HTTP.Token = i.opts.Service.Paths, i.Service.GatewayToken
	gopts.AppsChanged = i.apps.Changed
	if i.opts.Window {
		gopts.Ask, gopts.AskGuard = i.Endpoint.AskPermission, i.Endpoint.AskGuard
	}
	gw := gateway.Start(i.ctx, i.Service, gopts)
	i.Endpoint.Gateway, i.Endpoint.Stream = gw.Status, gw.ServeStream
	i.sets.Follow(gw.SetChoices)
	served := make(chan error, 1)
	i.mu.Lock()
	i.Gateway, i.served = gw, served
	i.mu.Unlock()
	go func() {
		err := i.Endpoint.Serve(i.ctx, i.ln)
		if err != nil && i.ctx.Err() == nil {
			i.log.Warn("the control endpoint stopped", "err", err)
			i.mu.Lock()
			i.err = err
			i.mu.Unlock()
		}
		i.Quit() // without its endpoint, nothing reaches this mcptray
		served <- err
	}()
	return nil
}

// sessions are the gateway's sessions with the apps; none before Start
// has started it.
func (i *Instance) sessions() []service.AppSession {
	i.mu.Lock()
	gw := i.Gateway
	i.mu.Unlock()
	if gw == nil {
		return nil
	}
	return gw.Sessions()
}

// Quit asks the instance to stop, as the tray's Quit, mcptray quit and
// Ctrl-C do. It does not wait: Close does.
func (i *Instance) Quit() { i.cancel() }

// Context ends once the instance is asked to stop, or its endpoint
// stopped by itself (Err says why). What runs beside the instance, such as
// the tray, runs under it.
func (i *Instance) Context() context.Context { return i.ctx }

// Err says why the endpoint stopped by itself, or nil.
func (i *Instance) Err() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.err
}

// Close stops the instance and waits, in order, for the endpoint, the
// gateway and every server process to be gone, closes the proxy and the
// record, then lets go of the socket, the control key and the instance
// lock. It is safe to call more
// than once.
func (i *Instance) Close() error {
	i.closeOnce.Do(func() {
		i.Quit()
		i.mu.Lock()
		served, gw := i.served, i.Gateway
		i.mu.Unlock()
		if served != nil { // Start got as far as serving
			<-served
			gw.Wait()
		}
		i.mu.Lock()
		stopService := i.stopService
		i.mu.Unlock()
		if stopService == nil { // Start did not get as far
			stopService = i.core.Close
		}
		i.closeErr = stopService()
		i.ln.Close()
	})
	return i.closeErr
}

// recorder is the activity record as the gateway's recorder: none when it
// could not be opened, not a nil *activity.Log in one.
func (i *Instance) recorder() gateway.Recorder {
	if i.Activity == nil {
		return nil
	}
	return i.Activity
}
