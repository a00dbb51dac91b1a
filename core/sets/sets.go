package sets

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/mcptray/mcptray/core/config"
)

// What an app may get besides a set's name.
const (
	// Everything is every server and tool mcptray offers.
	Everything = "all"
	// Tray is the tray's set: whatever the tray's menu chose.
	Tray = "tray"
	// Nothing is no tool at all: for unknown apps until the person
	// chooses.
	Nothing = "none"
)

// maxName bounds a set's or an app's name.
const maxName = 64

// Set is one named set of servers and tools.
type Set struct {
	Name string `json:"name"`
	// Servers are the servers whose every tool the set holds.
	Servers []string `json:"servers,omitempty"`
	// Tools are single tools of other servers, as SERVER/TOOL.
	Tools []string `json:"tools,omitempty"`
	// NewServers has the set hold every server not in Known.
	NewServers bool `json:"new_servers,omitempty"`
	// Known are the servers set up when the set was last made or
	// changed; any other is new.
	Known []string `json:"known,omitempty"`
	// Permissions are the set's own permissions, by qualified tool name
	// (mcp__server__tool); a tool without one has the gateway's.
	Permissions map[string]config.Permission `json:"permissions,omitempty"`
	// Hidden are qualified tool names and server names the set does not
	// offer, on top of those the gateway hides for every app.
	Hidden []string `json:"hidden,omitempty"`
}

// Holds reports whether the set holds the tool (the server's own name
// for it) of server.
func (s *Set) Holds(server, tool string) bool {
	if slices.Contains(s.Servers, server) || slices.Contains(s.Tools, server+"/"+tool) {
		return true
	}
	return s.NewServers && !slices.Contains(s.Known, server)
}

// Hides reports whether the set hides the tool qualified of server.
func (s *Set) Hides(server, qualified string) bool {
	return slices.Contains(s.Hidden, qualified) || slices.Contains(s.Hidden, server)
}

// Permission is the set's own permission for the tool qualified, if it
// gives one.
func (s *Set) Permission(qualified string) (config.Permission, bool) {
	p, ok := s.Permissions[qualified]
	return p, ok
}

// Check says in plain words what is wrong with s, or nil.
func (s *Set) Check() error {
	if err := checkName("a set", s.Name); err != nil {
		return err
	}
	if s.Name == Everything || s.Name == Tray || s.Name == Nothing {
		return fmt.Errorf("a set cannot be called %q: that word means %s", s.Name, meaning(s.Name))
	}
	for _, sv := range s.Servers {
		if err := checkName("a server", sv); err != nil {
			return fmt.Errorf("the set %s: %w", s.Name, err)
		}
	}
	for _, t := range s.Tools {
		sv, tool, ok := strings.Cut(t, "/")
		if !ok || sv == "" || tool == "" {
			return fmt.Errorf("the set %s: a single tool is written SERVER/TOOL, not %q", s.Name, t)
		}
		if err := checkName("a server", sv); err != nil {
			return fmt.Errorf("the set %s: %w", s.Name, err)
		}
		if err := printable("a tool", tool); err != nil {
			return fmt.Errorf("the set %s: %w", s.Name, err)
		}
	}
	for tool, p := range s.Permissions {
		if !p.Valid() {
			return fmt.Errorf("the set %s: the tool %s's permission must be allow, ask or block, not %q", s.Name, tool, p)
		}
	}
	return nil
}

// meaning says what a reserved word means.
func meaning(w string) string {
	switch w {
	case Everything:
		return "every server and tool"
	case Tray:
		return "the tray's set"
	}
	return "no tool at all"
}

// checkName says what is wrong with name, the name of what, or nil: a
// name is a few plain characters, so that it reads the same in a menu,
// a command and the record.
func checkName(what, name string) error {
	if name == "" {
		return fmt.Errorf("%s needs a name", what)
	}
	if len(name) > maxName {
		return fmt.Errorf("%s's name is longer than %d characters", what, maxName)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" -_.", r) {
			return fmt.Errorf("%s's name %q may hold only letters, digits, spaces and - _ .", what, name)
		}
	}
	if strings.TrimSpace(name) != name {
		return fmt.Errorf("%s's name %q begins or ends with a space", what, name)
	}
	return nil
}

// printable says what is wrong with s, a name of what a server chose,
// or nil.
func printable(what, s string) error {
	if len(s) > 256 {
		return fmt.Errorf("%s's name is longer than 256 characters", what)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || r == '/' {
			return fmt.Errorf("%s's name %q holds a character that cannot be shown", what, s)
		}
	}
	return nil
}

// Choices are every set and who gets which: the content of sets.json.
type Choices struct {
	Version int   `json:"version"`
	Sets    []Set `json:"sets,omitempty"`
	// Apps are what each app mcptray knows gets: Everything, Tray or a
	// set's name. An app not here gets everything.
	Apps map[string]string `json:"apps,omitempty"`
	// Tray is the tray's set's name; "" is everything.
	Tray string `json:"tray,omitempty"`
	// Unknown is what an app mcptray does not know gets: Everything (or
	// "") or Nothing.
	Unknown string `json:"unknown,omitempty"`
}

// version is the file's form.
const version = 1

// Find returns the set named name.
func (c *Choices) Find(name string) (*Set, bool) {
	for i := range c.Sets {
		if c.Sets[i].Name == name {
			return &c.Sets[i], true
		}
	}
	return nil, false
}

// Check says in plain words what is wrong with c, or nil.
func (c *Choices) Check() error {
	if c.Version > version {
		return fmt.Errorf("the sets were written by a newer mcptray (form %d); update mcptray", c.Version)
	}
	seen := map[string]bool{}
	for i := range c.Sets {
		s := &c.Sets[i]
		if err := s.Check(); err != nil {
			return err
		}
		if seen[strings.ToLower(s.Name)] {
			return fmt.Errorf("two sets are called %s", s.Name)
		}
		seen[strings.ToLower(s.Name)] = true
	}
	for app, choice := range c.Apps {
		if err := checkName("an app", app); err != nil {
			return err
		}
		if err := c.checkChoice(choice, false); err != nil {
			return fmt.Errorf("the app %s: %w", app, err)
		}
	}
	if c.Tray != "" {
		if _, ok := c.Find(c.Tray); !ok {
			return fmt.Errorf("the tray's set %s is not one of the sets", c.Tray)
		}
	}
	if c.Unknown != "" && c.Unknown != Everything && c.Unknown != Nothing {
		return fmt.Errorf("an app mcptray does not know gets %s or %s, not %q", Everything, Nothing, c.Unknown)
	}
	return nil
}

// checkChoice says what is wrong with choice, what an app gets.
func (c *Choices) checkChoice(choice string, _ bool) error {
	switch choice {
	case Everything, Tray:
		return nil
	}
	if _, ok := c.Find(choice); !ok {
		return fmt.Errorf("there is no set called %q (the sets: %s)", choice, c.names())
	}
	return nil
}

// names lists the sets' names for an error, with the words that are
// always there.
func (c *Choices) names() string {
	var n []string
	for _, s := range c.Sets {
		n = append(n, s.Name)
	}
	n = append(n, Everything, Tray)
	return strings.Join(n, ", ")
}

// Put makes s, or changes the set of its name; servers are the servers
// set up now, kept with s so that a later one is new to it.
func (c *Choices) Put(s Set, servers []string) error {
	s.Known = slices.Clone(servers)
	slices.Sort(s.Known)
	s.Known = slices.Compact(s.Known)
	if err := s.Check(); err != nil {
		return err
	}
	if old, ok := c.Find(s.Name); ok {
		*old = s
		return nil
	}
	for _, o := range c.Sets {
		if strings.EqualFold(o.Name, s.Name) {
			return fmt.Errorf("a set called %s is there already", o.Name)
		}
	}
	c.Sets = append(c.Sets, s)
	return nil
}

// Rename gives the set named from the name to; the apps and the tray that
// had it keep it under its new name.
func (c *Choices) Rename(from, to string) error {
	s, ok := c.Find(from)
	if !ok {
		return fmt.Errorf("there is no set called %q", from)
	}
	if from == to {
		return nil
	}
	for _, o := range c.Sets {
		if o.Name != from && strings.EqualFold(o.Name, to) {
			return fmt.Errorf("a set called %s is there already", o.Name)
		}
	}
	renamed := *s
	renamed.Name = to
	if err := renamed.Check(); err != nil {
		return err
	}
	*s = renamed
	for app, choice := range c.Apps {
		if choice == from {
			c.Apps[app] = to
		}
	}
	if c.Tray == from {
		c.Tray = to
	}
	return nil
}

// Remove takes the set named name away; the apps that had it get
// everything, and the tray's set is everything if it was that one.
func (c *Choices) Remove(name string) error {
	i := slices.IndexFunc(c.Sets, func(s Set) bool { return s.Name == name })
	if i < 0 {
		return fmt.Errorf("there is no set called %q", name)
	}
	c.Sets = slices.Delete(c.Sets, i, i+1)
	for app, choice := range c.Apps {
		if choice == name {
			delete(c.Apps, app)
		}
	}
	if c.Tray == name {
		c.Tray = ""
	}
	return nil
}

// Give gives app choice: Everything, Tray or a set's name.
func (c *Choices) Give(app, choice string) error {
	if err := checkName("an app", app); err != nil {
		return err
	}
	if err := c.checkChoice(choice, false); err != nil {
		return err
	}
	if choice == Everything {
		delete(c.Apps, app)
		return nil
	}
	if c.Apps == nil {
		c.Apps = map[string]string{}
	}
	c.Apps[app] = choice
	return nil
}

// SetUnknown sets what an app mcptray does not know gets: Everything or
// Nothing.
func (c *Choices) SetUnknown(choice string) error {
	switch choice {
	case Everything:
		c.Unknown = ""
	case Nothing:
		c.Unknown = Nothing
	default:
		return fmt.Errorf("an app mcptray does not know gets %s or %s, not %q", Everything, Nothing, choice)
	}
	return nil
}

// SetTray makes name the tray's set; "" or Everything is everything.
func (c *Choices) SetTray(name string) error {
	if name == Everything {
		name = ""
	}
	if name != "" {
		if _, ok := c.Find(name); !ok {
			return fmt.Errorf("there is no set called %q (the sets: %s)", name, c.names())
		}
	}
	c.Tray = name
	return nil
}

// ErrNothing is why an unknown app gets no tool.
var ErrNothing = errors.New("mcptray does not know this app, and gives apps it does not know nothing until the person chooses")

// Given is what one app gets, found from the Choices.
type Given struct {
	// Choice is what the app was given: Everything, Tray or a set's name
	// ("" when it is unknown and gets the default).
	Choice string
	// Set is the set it gets; nil for everything or nothing.
	Set *Set
	// Nothing is set when it gets no tool at all.
	Nothing bool
}

// Name is what the app gets, in words: "the Work set", "everything",
// "nothing".
func (g Given) Name() string {
	switch {
	case g.Nothing:
		return "nothing"
	case g.Set != nil:
		return "the " + g.Set.Name + " set"
	}
	return "everything"
}

// Holds reports whether the app is offered the tool (the server's own
// name) of server, whose qualified name is qualified.
func (g Given) Holds(server, tool, qualified string) bool {
	if g.Nothing {
		return false
	}
	if g.Set == nil {
		return true
	}
	return g.Set.Holds(server, tool) && !g.Set.Hides(server, qualified)
}

// HoldsServer reports whether the app is offered server's resources and
// prompts: the set holds the server whole (not only single tools of it),
// and does not hide it.
func (g Given) HoldsServer(server string) bool {
	if g.Nothing {
		return false
	}
	if g.Set == nil {
		return true
	}
	s := g.Set
	whole := slices.Contains(s.Servers, server) || (s.NewServers && !slices.Contains(s.Known, server))
	return whole && !slices.Contains(s.Hidden, server)
}

// For is what app gets; known says whether mcptray knows the app for sure
// (it named it in the app's config, or the app sent a token of its own),
// and an app it does not know gets the default for unknown apps.
func (c *Choices) For(app string, known bool) Given {
	if !known {
		if c.Unknown == Nothing {
			return Given{Nothing: true}
		}
		return Given{}
	}
	choice, ok := c.Apps[app]
	if !ok {
		return Given{Choice: Everything}
	}
	g := Given{Choice: choice}
	name := choice
	if choice == Tray {
		name = c.Tray
	}
	if s, ok := c.Find(name); ok {
		g.Set = s
	}
	return g
}
