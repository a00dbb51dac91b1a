package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// runServe runs mcptray without a window or a tray until ctx ends (SIGINT
// or SIGTERM): every server, following config changes, answering the other
// commands over the control endpoint. Then it stops every server it
// started.
func runServe(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("gateway-addr", "", "")
	noAuth := fs.Bool("gateway-no-auth", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments")
	}
	so, err := c.serviceOptions(nil)
	if err != nil {
		return err
	}
	closeLog := c.openLog()
	defer closeLog()
	inst, err := instance.Listen(instance.Options{
		Service: so, Logger: c.logger(),
		HTTP: gateway.HTTPOptions{Addr: *addr, NoAuth: *noAuth},
	})
	if errors.Is(err, control.ErrRunning) {
		return errors.New("mcptray is already running for you; stop it first: mcptray quit (or Quit in its tray menu)")
	}
	if err != nil {
		return err
	}
	// Here, where this process is the one that runs: a second serve
	// writes nothing to the log.
	log := c.logger()
	log.Info("mcptray serve starts", "pid", os.Getpid())
	defer log.Info("mcptray serve stopped")
	// Ctrl-C and mcptray quit stop it alike.
	if err := inst.Start(ctx); err != nil {
		inst.Close()
		return err
	}
	if *noAuth {
		fmt.Fprintln(c.Stderr, "mcptray serve: WARNING: the gateway's HTTP face takes requests WITHOUT a token (--gateway-no-auth):")
		fmt.Fprintln(c.Stderr, "mcptray serve: WARNING: every program on this computer can call every tool of your servers.")
	}
	svc := inst.Service
	snap, notices := lookAndFollow(ctx, inst.Context(), svc)
	fmt.Fprintf(c.Stdout, "mcptray is running %d servers; press Ctrl-C to stop.\n", len(configured(snap)))
	printGateway(c, inst.Gateway.Status())
	last := states(snap)
	c.printSettled(last)
	for {
		select {
		case <-inst.Context().Done():
			if err := inst.Err(); err != nil {
				inst.Close()
				return fmt.Errorf("the control endpoint stopped: %v", err)
			}
			return c.stopServe(inst)
		case _, ok := <-notices:
			if !ok {
				notices = nil // the instance is stopping: its context ends next
				continue
			}
			snap, err := svc.Snapshot(ctx)
			if err != nil {
				continue
			}
			next := states(snap)
			c.printChanges(last, next)
			last = next
		}
	}
}

// stateSource is what serve follows: *service.Service.
type stateSource interface {
	Snapshot(context.Context) (service.Snapshot, error)
	Subscribe(context.Context) (<-chan struct{}, error)
}

// lookAndFollow takes serve's first look at the servers and follows their
// changes until follow ends. It subscribes before it looks: a server that
// connected between a look and a later subscription had no notice left
// to come, and serve never said it was connected.
func lookAndFollow(ctx, follow context.Context, src stateSource) (service.Snapshot, <-chan struct{}) {
	notices, _ := src.Subscribe(follow)
	snap, _ := src.Snapshot(ctx)
	return snap, notices
}

// stopServe stops every server and says so.
func (c *cmdContext) stopServe(inst *instance.Instance) error {
	fmt.Fprintln(c.Stdout, "Stopping every server…")
	start := time.Now()
	inst.Close()
	fmt.Fprintf(c.Stdout, "Stopped in %s.\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// serverLine is what serve prints of one server.
type serverLine struct {
	state, why, signature string
}

func states(snap service.Snapshot) map[string]serverLine {
	out := map[string]serverLine{}
	for _, s := range snap.Servers {
		if s.Suppressed == "" {
			out[s.Name] = serverLine{state: s.State.String(), why: s.Reason, signature: s.Signature}
		}
	}
	return out
}

// printChanges prints a line for each server whose state changed.
func (c *cmdContext) printChanges(last, next map[string]serverLine) {
	var added, changed, removed []string
	for name, l := range last {
		n, ok := next[name]
		switch {
		case !ok:
			removed = append(removed, name)
		case n.signature != l.signature:
			changed = append(changed, name)
		}
	}
	for name := range next {
		if _, ok := last[name]; !ok {
			added = append(added, name)
		}
	}
	if len(added)+len(changed)+len(removed) > 0 {
		fmt.Fprintf(c.Stdout, "config changed: %d added, %d changed, %d removed\n", len(added), len(changed), len(removed))
	}
	slices.Sort(removed)
	for _, name := range removed {
		fmt.Fprintf(c.Stdout, "%s: removed\n", sanitize.Line(name))
	}
	for _, s := range sortedNames(next) {
		l := next[s]
		if last[s] == l {
			continue
		}
		c.printState(s, l)
	}
}

// printSettled prints the servers that settled before serve's first look
// at them: their change came before it, and is said here or never.
func (c *cmdContext) printSettled(first map[string]serverLine) {
	for _, name := range sortedNames(first) {
		if l := first[name]; l.state != pendingState {
			c.printState(name, l)
		}
	}
}

// pendingState is how a server that has not settled yet says its state.
var pendingState = service.Pending.String()

// printState prints the line of a server's state: "a: connected",
// "b: failed — why".
func (c *cmdContext) printState(name string, l serverLine) {
	line := fmt.Sprintf("%s: %s", sanitize.Line(name), l.state)
	if l.why != "" && l.state != "connected" {
		line += " — " + c.home(l.why)
	}
	fmt.Fprintln(c.Stdout, line)
}

func sortedNames(m map[string]serverLine) []string {
	names := slices.Collect(maps.Keys(m))
	slices.Sort(names)
	return names
}

// printGateway says where apps reach the gateway, or why its HTTP face does
// not run. It never prints the token.
func printGateway(c *cmdContext, st gateway.Status) {
	switch {
	case st.Problem != "":
		fmt.Fprintf(c.Stdout, "Gateway: apps connect with the command mcptray stdio; its HTTP face does not run: %s\n", st.Problem)
	case st.Auth == "none":
		fmt.Fprintf(c.Stdout, "Gateway: %s (no token), or the command mcptray stdio\n", st.URL)
	default:
		fmt.Fprintf(c.Stdout, "Gateway: %s (with its token: mcptray gateway says how), or the command mcptray stdio\n", st.URL)
	}
}
