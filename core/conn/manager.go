package conn

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/hub"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// Manager keeps every server of the applied config connected.
type Manager struct {
	opts Options
	// ctx outlives every connection; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // one per server goroutine

	local, remote *window // the sliding windows
	history       *history
	events        hub.Hub[Event] // a subscriber this far behind re-reads the snapshot
	calls         calls          // the tool calls in flight, for the servers' requests and progress

	mu  sync.Mutex
	set *config.Set // the last applied
	// applied is whether Apply ran: the first is no change to log.
	applied bool
	conns   map[string]*serverConn
	// stopping are the connections Apply stopped whose processes may not
	// be gone yet, by server name (Stopped).
	stopping map[string][]*serverConn
	order    []string // server names in the order of the set
	closed   bool
	// shared are the folders other servers may write, by server name,
	// for set (othersWrite).
	shared struct {
		sync.Mutex
		set    *config.Set
		writes map[string][]string
	}
}

// New returns a Manager with no servers; Apply gives it some.
func New(opts Options) *Manager {
	opts.setDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		opts:     opts,
		ctx:      ctx,
		cancel:   cancel,
		local:    newWindow(opts.MaxLocal, localWarmth),
		remote:   newWindow(opts.MaxRemote, 0),
		history:  newHistory(opts.HistoryFile, opts.Logger),
		events:   hub.Hub[Event]{Buffer: 64},
		conns:    map[string]*serverConn{},
		stopping: map[string][]*serverConn{},
		set:      &config.Set{},
	}
	if m.opts.Others == nil {
		m.opts.Others = m.othersWrite
	}
	return m
}

// localWarmth is how many stdio servers may start their processes while
// the local window's places are all taken, their handshakes waiting for a
// place (window.go). Two kept thirty servers of 100-500 ms within 1.01-1.03
// x the bound of bench/README.md; one, 1.00-1.08; three, 1.01.
const localWarmth = 2

// ErrClosed is returned by calls on a closed Manager.
var ErrClosed = errors.New("shutting down")

// Apply makes the running connections match set: servers that are new or
// whose config changed are (re)connected, removed ones are stopped, and the
// rest are left alone. Built-in servers are always present. The servers
// it starts queue for the windows together, the slowest to connect last
// time first (window.go).
func (m *Manager) Apply(set *config.Set) error {
	set = m.withBuiltins(set)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	changes := config.Diff(m.set, set)
	if m.applied && !changes.Empty() {
		m.opts.Logger.Info("config changed", "added", len(changes.Added), "changed", len(changes.Changed), "removed", len(changes.Removed))
	}
	m.pruneStopping()
	for _, e := range changes.Removed {
		if c := m.conns[e.Name]; c != nil {
			c.stop()
			m.stopping[e.Name] = append(m.stopping[e.Name], c)
			delete(m.conns, e.Name)
			m.events.Publish(Event{Server: e.Name, Removed: true})
		}
	}
	starts := slices.Concat(changes.Changed, changes.Added)
	// In the config's order, which the queue keeps among equals.
	pos := make(map[string]int, len(set.Servers))
	for i, e := range set.Servers {
		pos[e.Name] = i
	}
	slices.SortStableFunc(starts, func(a, b config.Entry) int { return pos[a.Name] - pos[b.Name] })
	expect := m.history.expected(set.Servers)
	for _, e := range starts {
		if old := m.conns[e.Name]; old != nil {
			old.stop()
			m.stopping[e.Name] = append(m.stopping[e.Name], old)
		}
		c := newServerConn(m, e)
		if c.connects() {
			c.first = c.window().enqueue(expect[historyKey(&e)])
		}
		m.conns[e.Name] = c
		c.start()
	}
	m.local.dispatch()
	m.remote.dispatch()
	m.set, m.applied = set, true
	m.order = m.order[:0]
	for _, e := range set.Servers {
		m.order = append(m.order, e.Name)
	}
	return nil
}

// Stopped returns a channel that is closed once the processes of every
// connection to the server called name that Apply stopped are gone: at
// once when there are none. A server of that name that runs now is not
// waited for.
func (m *Manager) Stopped(name string) <-chan struct{} {
	m.mu.Lock()
	m.pruneStopping()
	var dones []chan struct{}
	for _, c := range m.stopping[name] {
		dones = append(dones, c.done)
	}
	m.mu.Unlock()
	out := make(chan struct{})
	go func() {
		for _, d := range dones {
			<-d
		}
		close(out)
	}()
	return out
}

// pruneStopping forgets the stopped connections whose processes are gone.
// m.mu must be held.
func (m *Manager) pruneStopping() {
	for name, cs := range m.stopping {
		cs = slices.DeleteFunc(cs, func(c *serverConn) bool {
			select {
			case <-c.done:
				return true
			default:
				return false
			}
		})
		if len(cs) == 0 {
			delete(m.stopping, name)
		} else {
			m.stopping[name] = cs
		}
	}
}

// withBuiltins adds the in-process servers to a copy of set.
func (m *Manager) withBuiltins(set *config.Set) *config.Set {
	if len(m.opts.Builtin) == 0 {
		return set
	}
	out := *set
	out.Servers = slices.Clone(set.Servers)
	for _, name := range slices.Sorted(maps.Keys(m.opts.Builtin)) {
		out.Servers = append(out.Servers, config.Entry{
			Server: config.Server{
				Name: name, ConfigName: name, Scope: config.Dynamic,
				Transport: config.InProcess, Origin: config.Origin{App: "mcptray (built in)"},
			},
			Signature: "in-process:" + name,
			Approval:  config.NotNeeded,
		})
	}
	return &out
}

// Report returns every server's state now, in the order of the config.
func (m *Manager) Report() Report {
	m.mu.Lock()
	conns := make([]*serverConn, 0, len(m.order))
	for _, name := range m.order {
		if c := m.conns[name]; c != nil {
			conns = append(conns, c)
		}
	}
	m.mu.Unlock()
	var snap Report
	for _, c := range conns {
		snap.Servers = append(snap.Servers, c.info())
	}
	m.nameTools(snap.Servers)
	return snap
}

// nameTools gives every tool its qualified name, unique across all servers.
func (m *Manager) nameTools(servers []ServerInfo) {
	var refs []tools.Ref
	for _, s := range servers {
		for _, t := range s.Tools {
			refs = append(refs, tools.Ref{Server: s.Name, Tool: t.Name})
		}
	}
	names := tools.AssignNames(refs)
	i := 0
	for _, s := range servers {
		for j := range s.Tools {
			s.Tools[j].QualifiedName = names[i]
			i++
		}
	}
}

// Subscribe returns a channel that receives an Event whenever a server's
// state or tools change, until ctx ends or the Manager closes.
func (m *Manager) Subscribe(ctx context.Context) <-chan Event {
	return m.events.Subscribe(ctx)
}

// Close stops every server and waits until their processes are gone.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	for _, c := range m.conns {
		c.stop()
	}
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	m.history.close()
	m.events.Close()
	return nil
}

// expected is how long e is expected to take to connect, among the
// servers of the last applied set.
func (m *Manager) expected(e *config.Entry) time.Duration {
	m.mu.Lock()
	servers := m.set.Servers
	m.mu.Unlock()
	return m.history.expected(append(slices.Clip(servers), *e))[historyKey(e)]
}

// conn returns the connection of the server called name.
func (m *Manager) conn(name string) (*serverConn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if c := m.conns[name]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("there is no server called %q", sanitize.Line(name))
}

// Status returns one server's status, without building a whole Report:
// what a call checks before it is made.
func (m *Manager) Status(name string) (Status, bool) {
	c, err := m.conn(name)
	if err != nil {
		return Status{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, true
}
