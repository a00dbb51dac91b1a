package service

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/builtin"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/hub"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/service/apps"
	"github.com/mcptray/mcptray/core/service/datafolders"
	"github.com/mcptray/mcptray/core/service/netpolicy"
	"github.com/mcptray/mcptray/core/service/secretkeep"
	"github.com/mcptray/mcptray/core/service/signin"
	"github.com/mcptray/mcptray/core/service/trust"
	"github.com/mcptray/mcptray/core/sets"
	"github.com/mcptray/mcptray/core/transport"
)

// Version is mcptray's version, as mcptray version, the built-in server,
// the gateway and the snapshot report it. Builds stamp it from
// FyneApp.toml's Version (the Makefile, scripts/package.sh):
//
//	go build -ldflags "-X github.com/mcptray/mcptray/core/service.Version=0.1.0"
//
// A build without the stamp reports the module version go install
// recorded, or "devel".
var Version string

func init() {
	if Version == "" {
		Version = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			Version = bi.Main.Version
		}
	}
}

// Options configure a Service. Paths and Store are required.
type Options struct {
	// Paths are where mcptray's files and the apps' configs are.
	Paths config.Paths
	// Lookup reads the environment for ${VAR} in configs; nil means the
	// process environment.
	Lookup func(string) (string, bool)
	// Store keeps sign-ins: the OS keychain in the product, an in-memory
	// store in tests.
	Store  secret.Store
	Logger *slog.Logger
	// HTTP downloads MCP Bundles that the registry lists; nil means
	// http.DefaultClient. Tests give one that trusts their server.
	HTTP *http.Client
	// Browser opens sign-in pages; nil means the system browser.
	Browser oauth.Browser
	// ClientMetadataURL is the https URL of a Client ID Metadata Document
	// to use as the client id where servers support it.
	ClientMetadataURL string
	// Elicit answers a server's questions to the person; nil answers with
	// the question's defaults.
	Elicit conn.ElicitFunc
	// Conn overrides the connection manager's timeouts and windows (tests);
	// its Logger, Elicit, Tokens, Builtin and Now are set by the Service.
	Conn conn.Options
	// Follow makes Start follow config changes and sign-ins made by other
	// processes: for a service that keeps running (the tray, serve), not
	// for one command.
	Follow bool
	// Only, when not nil, names the servers to connect; the others are
	// listed but not started. An empty Only connects none (commands that
	// only read or edit the config).
	Only []string
	// Debounce is how long the config watcher waits after a change;
	// zero means config.DefaultDebounce.
	Debounce time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// GatewayCommand is mcptray's program as other programs run it:
	// ConnectApp writes it into an app's config (run as "COMMAND stdio"),
	// AddDemo into the demo project's .mcp.json ("COMMAND demo-server");
	// "" means this program.
	GatewayCommand string
	// Launcher is mcptray's own program, through which every local server
	// starts in its sandbox (mcptray sandbox-exec, core/sandbox); "" runs
	// servers without one, and their words say so. main gives its own
	// program; tests give a built mcptray, or none.
	Launcher string
	// Egress returns the port of mcptray's egress proxy for a server and
	// the variables that send its traffic there; nil means no proxy, and
	// servers' TCP connections stay unrestricted.
	Egress func(server string) (port int, env map[string]string)
	// Network is the network policy that decides the sandboxed servers'
	// connections, and Proxy the egress proxy they go through, which asks
	// it: core/instance makes both beside the service when NeedsProxy
	// says so, starts the proxy before Start and closes it after Close.
	// Without them, a service that needs them does not start; one that
	// does not gets a policy of its own.
	Network *netpolicy.Policy
	Proxy   *egress.Proxy
	// Record is the activity record, in which the service records the
	// person's trust decisions and whose settings it keeps those of
	// mcptray's config file: core/instance opens it beside the service,
	// masking what ActivitySecrets gives, and closes it after Close. nil
	// records nothing.
	Record *activity.Log
	// Apps is what the service knows of the AI apps, with the gateway's
	// sessions: core/instance makes it beside the gateway, which tells it
	// when an app arrives or leaves (apps.Roster.Changed). nil: the
	// service makes one that follows no gateway.
	Apps *apps.Roster
	// Secrets keeps servers' secrets in the keychain, SignIns is the one
	// sign-in manager with what sign-ins need beside it, Trust keeps the
	// person's approvals and the pins' holding policy on the approvals
	// file the service's config loader then reads, and DataFolders keeps
	// each sandboxed server's data folder: core/instance makes each beside
	// the service (NewCore), on Store and Paths, and the service attaches
	// itself to each as it is made. core/instance is the one place that
	// wires the running mcptray; nil: the service makes its own, as tests
	// that make a service directly do (parts.go).
	Secrets     *secretkeep.Keeper
	SignIns     *signin.Desk
	Trust       *trust.Keeper
	DataFolders *datafolders.Folders
	// Sets keeps what each app gets (sets.go); nil keeps no sets, and
	// every app gets everything.
	Sets *sets.Keeper
	// SandboxProbe is mcptray's hostile probe, which the sandbox's check
	// runs in each kind of server's sandbox (sandboxcheck.go): mcptray's
	// program and sandbox.ProbeArg. nil: no check can run here (tests
	// that do not try it), and the check says so.
	SandboxProbe []string
	// Packages pin the servers that run an npm package by their content
	// (packages.go); nil runs them as their config says.
	Packages *PackageOptions
}

// Service is one running mcptray. Its methods are safe for concurrent use.
type Service struct {
	opts   Options
	log    *slog.Logger
	loader *config.Loader
	// loads counts the loader's loads, the watcher's too (tests: one load
	// per action).
	loads atomic.Int64
	// skips hears of each time the watcher found the files as the newest
	// load left them (tests: the service's own write is not read twice).
	skips hub.Hub[struct{}]
	auth  *oauth.Manager
	conns *conn.Manager
	// egress is the proxy through which sandboxed servers reach the
	// network, made, started and closed by core/instance (Options.Proxy);
	// nil when servers run without sandboxes (egress.go).
	egress *egress.Proxy
	// net decides the sandboxed servers' connections (Options.Network).
	net *netpolicy.Policy
	// notices tell front ends that the Snapshot may have changed; each
	// subscriber holds at most one, so a burst reaches a slow one once.
	notices hub.Hub[struct{}]

	ctx    context.Context // the service's life; Close ends it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	useMu sync.Mutex // held while a loaded config is put to use

	checkMu sync.Mutex // held while the sandbox's check runs (one at a time)

	mu      sync.Mutex
	set     *config.Set // the last loaded config
	paused  bool
	started bool
	closed  bool
	// adhoc are the connection managers of servers reached by URL.
	adhoc map[*conn.Manager]struct{}

	apps    *apps.Roster         // the AI apps and their sessions with the gateway (Options.Apps)
	secrets *secretkeep.Keeper   // servers' secrets in the keychain (secrets.go)
	signins *signin.Desk         // what sign-ins need beside auth, which it made (signin.go)
	data    *datafolders.Folders // the servers' data folders, which go with them (datafolders.go)
	trust   *trust.Keeper        // approvals, the pins' holding policy, looks kept until the approval (pins.go, look.go)
	pins    pinState             // the lists told to the pins' policy (pins.go)
	flows   flowState            // the calls of sessions the flow guard follows closely, told to net (flows.go)
	tokenMu sync.Mutex           // held while the gateway's token is read or made

	// activity is the activity record, for trust decisions (activity.go).
	activity atomic.Pointer[activity.Log]

	// packages are the servers' packages being pinned (packages.go).
	packages packageState
}

// builtinName is the name of mcptray's own in-process server.
const builtinName = BuiltinName

// New returns a Service that has not started: Start loads the config and
// connects.
func New(opts Options) (*Service, error) {
	if opts.Store == nil {
		return nil, errors.New("service: no secret store was given")
	}
	if opts.Proxy != nil && opts.Network == nil {
		// The proxy would ask a policy that knows nothing of this service.
		return nil, errors.New("service: an egress proxy was given without the network policy it asks")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Lookup == nil {
		opts.Lookup = os.LookupEnv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Debounce == 0 {
		opts.Debounce = config.DefaultDebounce
	}
	s := &Service{opts: opts, log: opts.Logger, adhoc: map[*conn.Manager]struct{}{}}
	s.attachNetwork()
	s.attachApps()
	s.attachSecrets()
	s.activity.Store(opts.Record)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.loader = config.NewLoader(opts.Paths)
	s.loader.Lookup = opts.Lookup
	s.loader.Loaded = func() { s.loads.Add(1) }
	s.loader.Skipped = func() { s.skips.Publish(struct{}{}) }
	if err := s.attachSignIns(); err != nil {
		s.cancel()
		return nil, err
	}
	s.auth = s.signins.Auth()
	s.conns = s.newConns(s.opts.Logger)
	// After conns, whose word that a server stopped the folders wait for.
	if err := s.attachDataFolders(); err != nil {
		s.cancel()
		s.conns.Close()
		return nil, err
	}
	if err := s.attachTrust(); err != nil {
		s.cancel()
		s.conns.Close()
		return nil, err
	}
	s.set = &config.Set{}
	return s, nil
}

// newConns returns a connection manager wired to the service's sign-in
// manager and built-in server; adjust, if given, changes its options last.
func (s *Service) newConns(logger *slog.Logger, adjust ...func(*conn.Options)) *conn.Manager {
	o := s.opts.Conn
	o.Logger = logger
	o.Elicit = s.opts.Elicit
	o.Now = s.opts.Now
	o.Tokens = func(sv *config.Server) transport.TokenSource {
		if !sv.Transport.Remote() {
			return nil
		}
		return s.auth.TokenSource(sv)
	}
	o.Secrets = s.readSecret
	box := s.sandboxOpts()
	o.Launcher, o.ServersDir, o.Home, o.Egress, o.EgressServe = box.Launcher, box.ServersDir, box.Home, box.Egress, box.EgressServe
	if o.HistoryFile == "" && s.opts.Paths.UserConfigDir != "" {
		o.HistoryFile = s.opts.Paths.ConnectTimesFile()
	}
	o.Builtin = map[string]*server.MCPServer{
		builtin.Name: builtin.New(Version, s.builtinStates),
	}
	for _, f := range adjust {
		f(&o)
	}
	return conn.New(o)
}

func (s *Service) builtinStates() []builtin.ServerState {
	var out []builtin.ServerState
	for _, i := range s.conns.Report().Servers {
		out = append(out, builtin.ServerState{Name: i.Name, State: i.Status.State.String(), Error: i.Status.Err, Tools: len(i.Tools)})
	}
	return out
}

// Start loads the config, starts every approved server and follows config
// changes and sign-ins made elsewhere until Close.
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return errors.New("service: started twice or after Close")
	}
	if s.egress == nil && s.wantsEgress() {
		// Sandboxed servers would have no way out, not even to their
		// package registry: core/instance gives the proxy.
		s.mu.Unlock()
		return errors.New("service: sandboxed servers need the egress proxy and its network policy (Options.Proxy, Options.Network)")
	}
	s.started = true
	s.mu.Unlock()

	// What mcptray says of each sandbox comes from the last check on
	// this computer: read before any server is described.
	s.loadSandboxCheck()

	// What every local server's first start waits for, begun now and
	// side by side rather than one after the other on the first start's
	// way: whether servers may have namespaces of their own (the
	// launcher's probe) and the login shell's environment. Only in the
	// running mcptray: a command's own service may start no server.
	if box := s.sandboxOpts(); s.opts.Follow && box.Launcher != "" && box.ServersDir != "" {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			sandbox.Isolation(box.Launcher)
		}()
	}
	if s.opts.Follow && s.opts.Conn.BaseEnv == nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			transport.LoginEnv(s.ctx, s.log)
		}()
	}

	// Subscribed before any server starts: a change made before the
	// relay's goroutine ran would otherwise reach no one.
	events := s.conns.Subscribe(s.ctx)
	s.wg.Add(1)
	go s.relay(events)
	set := s.reload()
	if s.apps.Follows() { // when each app was last seen, kept across restarts
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.apps.Run(s.ctx)
		}()
	}
	if s.opts.Follow { // the running mcptray checks again when it must
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.checkSandboxWhenChanged(s.ctx)
		}()
	}
	if s.opts.Follow {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.signins.CheckKeychain(s.ctx)
		}()
		updates, err := s.loader.Watch(s.ctx, s.log, set, s.opts.Debounce)
		if err != nil {
			// Still useful: the person's edits show after a restart.
			s.log.Warn("config changes will show after a restart", "err", err)
		} else {
			s.wg.Add(1)
			go s.follow(updates)
		}
		s.watchSignIns()
		s.watchSets()
		if s.opts.Packages != nil && s.opts.Packages.Every > 0 {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.checkPackagesDaily(s.ctx)
			}()
		}
	}
	return nil
}

// reload reads the config now and makes everything follow it: an action
// that wrote a file calls it, so that what it returns shows the change.
// The watcher then sees the same files again, and use leaves them be.
func (s *Service) reload() *config.Set {
	set := s.loader.Load()
	s.use(set)
	return set
}

// use is the one way from a loaded config to the running servers, for
// Start, actions and the watcher alike: the sign-in settings, the servers
// (unless paused), the secrets' index and the front ends follow set. A set
// equal to the one in use (the watcher seeing an action's own write)
func (s *Service) use(set *config.Set) {
	s.useMu.Lock()
	defer s.useMu.Unlock()
	set, gone := s.keepDataFolders(s.current(), set) // before any server starts in them
	s.mu.Lock()
	s.set = set
	paused := s.paused
	s.mu.Unlock()
	s.activitySecretsChanged()
	s.auth.SetIdentityProvider(signin.IdentityProvider(set))
	if !paused {
		s.apply(set)
	}
	s.data.RemoveWhenStopped(gone)
	s.forgetVanishedSecrets(set)
	s.followActivitySettings()
	s.notices.Publish(struct{}{})
}

// apply makes the connection manager run set's servers (those in
// Options.Only, when it is given).
func (s *Service) apply(set *config.Set) {
	if s.opts.Only != nil {
		only := *set
		only.Servers = slices.DeleteFunc(slices.Clone(set.Servers), func(e config.Entry) bool {
			return !slices.Contains(s.opts.Only, e.Name)
		})
		set = &only
	}
	set = s.pinnedSet(set)
	if err := s.conns.Apply(set); err != nil && !errors.Is(err, conn.ErrClosed) {
		s.log.Warn("applying the config", "err", err)
	}
}

// follow uses every config the watcher sees change.
func (s *Service) follow(updates <-chan *config.Set) {
	defer s.wg.Done()
	for set := range updates {
		if reflect.DeepEqual(s.current(), set) {
			continue // an action's own write, in use already
		}
		s.use(set)
	}
}

// relay passes the connection manager's events on as change notices,
// once the pins' policy was told of the servers' tools (pins.go).
func (s *Service) relay(events <-chan conn.Event) {
	defer s.wg.Done()
	for range events {
		s.seeLists()
		s.notices.Publish(struct{}{})
	}
}

// Close stops every server and waits until their processes are gone.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	adhoc := s.adhoc
	s.adhoc = nil
	s.mu.Unlock()
	s.cancel()
	for m := range adhoc {
		m.Close()
	}
	err := s.conns.Close()
	s.wg.Wait()
	s.data.Wait()
	s.pins.looks.Wait()
	s.notices.Close()
	return err
}

// Subscribe returns a channel that receives a notice whenever anything in
// the Snapshot may have changed. Notices are hints and are coalesced: take
// a new Snapshot after each. The channel closes when ctx ends or the
// Service closes.
func (s *Service) Subscribe(ctx context.Context) (<-chan struct{}, error) {
	return s.notices.Subscribe(ctx), nil
}

// WaitSettled waits until no server is still connecting, or ctx ends.
func (s *Service) WaitSettled(ctx context.Context) error {
	return s.conns.WaitSettled(ctx)
}

// Settle waits until no server is still connecting (or ctx ends), and
// returns a Snapshot.
func (s *Service) Settle(ctx context.Context) (Snapshot, error) {
	if err := s.WaitSettled(ctx); err != nil && ctx.Err() != nil {
		return Snapshot{}, ctx.Err()
	}
	s.seeLists() // the relay may not have come to the last event yet
	s.waitLooks(ctx)
	return s.Snapshot(ctx)
}

// checkOpen says whether the Service can take actions.
func (s *Service) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return conn.ErrClosed
	}
	return nil
}

// inUse is the config an action works from: the set in use, which every
// write of the service's own reloads at once (reload) and the watcher
// follows for everyone else's; loaded now only before Start has loaded
// one. One action then loads the config once, after its write, and not
// again before it to find what it writes about.
func (s *Service) inUse() *config.Set {
	if set := s.current(); set != nil {
		return set
	}
	return s.loader.Load()
}

// current returns the last loaded config.
func (s *Service) current() *config.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set
}

// FromEnvironment returns the options mcptray takes from its environment,
// read through lookup; every front end starts from them.
//
//   - MCPTRAY_BROWSER names a program that is given sign-in pages instead
//     of the system browser (tests use `curl -sL -o /dev/null`); it is run
//     directly, never through a shell.
//   - MCPTRAY_CLIENT_METADATA_URL is the https URL of a Client ID Metadata
//     Document to use as the client id with servers that support them.
//
// Servers that run an npm package are pinned by their content, and their
// registries asked once a day what is new (packages.go).
func FromEnvironment(lookup func(string) (string, bool)) Options {
	o := Options{Packages: &PackageOptions{Every: 24 * time.Hour}}
	if v, _ := lookup("MCPTRAY_BROWSER"); strings.TrimSpace(v) != "" {
		o.Browser = oauth.CommandBrowser(oauth.ParseBrowserCommand(v))
	}
	o.ClientMetadataURL, _ = lookup("MCPTRAY_CLIENT_METADATA_URL")
	return o
}

// attachApps gives the roster of the AI apps the service's notices;
// without one given, the service makes its own, which follows no gateway.
func (s *Service) attachApps() {
	s.apps = s.opts.Apps
	if s.apps == nil {
		s.apps = apps.New(apps.Options{Paths: s.opts.Paths, Logger: s.log, Now: s.opts.Now})
	}
	s.apps.Attach(func() { s.notices.Publish(struct{}{}) })
}
