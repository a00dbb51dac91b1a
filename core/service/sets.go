package service

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/guard"
	"github.com/mcptray/mcptray/core/sets"
)

// Each app its own servers (core/sets): the sets, which app gets which,
// and the tray's set, in the words the front ends show.

// What an app may get besides a set, in the API's words (core/sets).
const (
	GetsEverything = sets.Everything
	GetsTray       = sets.Tray
	GetsNothing    = sets.Nothing
)

// CheckAppName says in plain words what is wrong with an app's name as
// mcptray names apps, or nil.
func CheckAppName(app string) error { return sets.CheckApp(app) }

// SetRequest makes a set or changes one.
type SetRequest struct {
	Name string `json:"name"`
	// Servers are held whole; Tools are single tools as SERVER/TOOL.
	Servers []string `json:"servers,omitempty"`
	Tools   []string `json:"tools,omitempty"`
	// NewServers has the set hold the servers set up later too.
	NewServers bool `json:"new_servers,omitempty"`
	// From is the set's name before this change, when it is renamed: the
	// apps and the tray that had it keep it.
	From string `json:"from,omitempty"`
	// KeepContent keeps what the set holds (and which servers are new to
	// it), changing only its name or its rules.
	KeepContent bool `json:"keep_content,omitempty"`
	// Rules change the set's own permissions and hiding; nil keeps them.
	Rules *SetRules `json:"rules,omitempty"`
}

// GiveRequest gives an app what it gets: sets.Everything, sets.Tray or a
// set's name. With Unknown, it says instead what the apps mcptray does not
// know get: sets.Everything or sets.Nothing.
type GiveRequest struct {
	Unknown bool   `json:"unknown,omitempty"`
	App     string `json:"app"`
	Choice  string `json:"choice"`
}

// SetsView is every set and who gets which, as the front ends show them.
type SetsView struct {
	Sets []SetView `json:"sets"`
	// Tray is the tray's set's name; "" is everything.
	Tray string `json:"tray,omitempty"`
	// Apps are what each app mcptray knows gets, when not everything.
	Apps map[string]string `json:"apps,omitempty"`
	// Unknown is what an app mcptray does not know gets: "all" or "none".
	Unknown string `json:"unknown,omitempty"`
	// Warnings say what a change could not check: the single tools of a
	// server not connected now.
	Warnings []string `json:"warnings,omitempty"`
	// Problem says why the sets' file, edited by hand, was not taken: the
	// last good sets stay until it is fixed.
	Problem string `json:"problem,omitempty"`
}

// SetView is one set, counted against the servers running now.
type SetView struct {
	sets.Set
	// Servers and Tools count what the set gives now.
	ServerCount int `json:"server_count"`
	ToolCount   int `json:"tool_count"`
	// Joined are the servers it holds only because it holds new servers
	// too.
	Joined []string `json:"joined,omitempty"`
	// Apps are the apps that get it, those following the tray included.
	Apps []string `json:"apps,omitempty"`
	// Words sum it up: "the Work set: 3 servers, 41 tools".
	Words string `json:"words"`
	// Warning says, in the guard's words, when the set reads private data
	// and can send data out.
	Warning string `json:"warning,omitempty"`
}

// errNoSets is the answer of a service that keeps no sets.
var errNoSets = &Error{Code: NotAllowed, Msg: "this mcptray keeps no sets"}

// Sets lists the sets and who gets which.
func (s *Service) Sets(ctx context.Context) (SetsView, error) {
	if s.opts.Sets == nil {
		return SetsView{}, errNoSets
	}
	return s.setsView(ctx, s.opts.Sets.Choices())
}

// PutSet makes a set, or changes the one of its name; the servers set up
// now are kept with it, so that a later one is new to it.
func (s *Service) PutSet(ctx context.Context, req SetRequest) (SetsView, error) {
	if s.opts.Sets == nil {
		return SetsView{}, errNoSets
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return SetsView{}, err
	}
	var names []string
	for _, sv := range snap.Servers {
		names = append(names, sv.Name)
	}
	for _, want := range req.Servers {
		if !slices.Contains(names, want) {
			return SetsView{}, &Error{Code: NotFound, Msg: fmt.Sprintf("there is no server called %q in mcptray", want)}
		}
	}
	warnings, err := checkSetTools(snap, &req)
	if err != nil {
		return SetsView{}, err
	}
	c, err := s.opts.Sets.Modify(func(c *sets.Choices) error { return putSet(c, req, names) })
	if err != nil {
		return SetsView{}, invalid(err)
	}
	s.notices.Publish(struct{}{}) // the tray and the window show the sets
	v := s.setsViewOf(snap, c)
	v.Warnings = warnings
	return v, nil
}

// putSet makes or changes the set req names in c; names are the servers
// set up now.
func putSet(c *sets.Choices, req SetRequest, names []string) error {
	if req.From != "" && req.From != req.Name {
		if err := c.Rename(req.From, req.Name); err != nil {
			return err
		}
	}
	set := sets.Set{Name: req.Name, Servers: req.Servers, Tools: req.Tools, NewServers: req.NewServers}
	old, had := c.Find(req.Name)
	if req.KeepContent {
		if !had {
			return fmt.Errorf("there is no set called %q", req.Name)
		}
		set = *old
		applyRules(&set, req.Rules)
		*old = set
		return old.Check()
	}
	if had {
		set.Permissions, set.Hidden = old.Permissions, old.Hidden
	}
	applyRules(&set, req.Rules)
	return c.Put(set, names)
}

// RemoveSet takes a set away; the apps that had it get everything.
func (s *Service) RemoveSet(ctx context.Context, name string) (SetsView, error) {
	return s.modifySets(ctx, func(c *sets.Choices) error { return c.Remove(name) })
}

// GiveApp gives an app everything, the tray's set or a set.
func (s *Service) GiveApp(ctx context.Context, req GiveRequest) (SetsView, error) {
	return s.modifySets(ctx, func(c *sets.Choices) error {
		if req.Unknown {
			return c.SetUnknown(req.Choice)
		}
		return c.Give(req.App, req.Choice)
	})
}

// SetTraySet makes a set the tray's: the apps that follow the tray get it
// at once. "" or "all" is everything.
func (s *Service) SetTraySet(ctx context.Context, name string) (SetsView, error) {
	return s.modifySets(ctx, func(c *sets.Choices) error { return c.SetTray(name) })
}

func (s *Service) modifySets(ctx context.Context, fn func(*sets.Choices) error) (SetsView, error) {
	if s.opts.Sets == nil {
		return SetsView{}, errNoSets
	}
	c, err := s.opts.Sets.Modify(fn)
	if err != nil {
		return SetsView{}, invalid(err)
	}
	s.notices.Publish(struct{}{})
	return s.setsView(ctx, c)
}

// invalid is err as the API's Invalid, in its own words.
func invalid(err error) error {
	return &Error{Code: Invalid, Msg: err.Error()}
}

func (s *Service) setsView(ctx context.Context, c sets.Choices) (SetsView, error) {
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return SetsView{}, err
	}
	return s.setsViewOf(snap, c), nil
}

// setsViewOf counts each set of c against snap.
func (s *Service) setsViewOf(snap Snapshot, c sets.Choices) SetsView {
	v := SetsView{Tray: c.Tray, Apps: c.Apps, Unknown: c.Unknown, Sets: []SetView{}}
	if s.opts.Sets != nil {
		v.Problem = s.opts.Sets.Problem()
	}
	labels := snap.GuardLabels()
	for i := range c.Sets {
		set := &c.Sets[i]
		sv := SetView{Set: *set}
		given := sets.Given{Choice: set.Name, Set: set}
		var private, egress []string
		for j := range snap.Servers {
			srv := &snap.Servers[j]
			n := 0
			for _, t := range srv.Tools {
				if t.QualifiedName == "" || snap.Gateway.Hides(srv.Name, t.QualifiedName) || !given.Holds(srv.Name, t.Name, t.QualifiedName) {
					continue
				}
				n++
				if l := labels[t.QualifiedName]; l != nil {
					if l.Labels.Has(guard.Private) {
						private = append(private, t.QualifiedName)
					}
					if l.Labels.Has(guard.Egress) {
						egress = append(egress, t.QualifiedName)
					}
				}
			}
			if n == 0 && !given.Holds(srv.Name, "", "") {
				continue
			}
			if srv.State == conn.Connected || n > 0 {
				sv.ServerCount++
			}
			sv.ToolCount += n
			if set.NewServers && !slices.Contains(set.Known, srv.Name) && !slices.Contains(set.Servers, srv.Name) {
				sv.Joined = append(sv.Joined, srv.Name)
			}
		}
		for app, choice := range c.Apps {
			if choice == set.Name || (choice == sets.Tray && c.Tray == set.Name) {
				sv.Apps = append(sv.Apps, app)
			}
		}
		slices.Sort(sv.Apps)
		sv.Words = fmt.Sprintf("the %s set: %s, %s", set.Name, count(sv.ServerCount, "server"), count(sv.ToolCount, "tool"))
		if len(private) > 0 && len(egress) > 0 {
			sv.Warning = fmt.Sprintf("the %s set reads private data (%s) and can send data out (%s): an app given it could be led to send your data away; the flow guard asks before such a call",
				set.Name, firstFew(private), firstFew(egress))
		}
		v.Sets = append(v.Sets, sv)
	}
	return v
}

// count is "1 server", "3 servers".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// firstFew names up to three of list.
func firstFew(list []string) string {
	if len(list) > 3 {
		return strings.Join(list[:3], ", ") + fmt.Sprintf(" and %d more", len(list)-3)
	}
	return strings.Join(list, ", ")
}
