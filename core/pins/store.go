package pins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// FileName is the pins' file in mcptray's own folder.
const FileName = "pins.json"

// fileVersion is the version of the file's format this package writes.
const fileVersion = 1

// Server is what mcptray keeps of one server.
type Server struct {
	// Tools and Prompts are the pinned definitions, sorted by name.
	Tools   []Def `json:"tools"`
	Prompts []Def `json:"prompts,omitempty"`
	// PromptsPinned says its prompts were seen once (a server may have
	// none).
	PromptsPinned bool `json:"promptsPinned,omitempty"`
	// Pinned is when its tools were first seen.
	Pinned time.Time `json:"pinned"`
	// Changes counts how often its definitions changed after the first
	// sight; LastChange is when they last did.
	Changes    int       `json:"changes,omitempty"`
	LastChange time.Time `json:"lastChange,omitzero"`
	// AcceptChanges is the person's "Accept changes from this server":
	// changes are pinned as they come, but for those flagged or whose
	// annotations claim less.
	AcceptChanges bool `json:"acceptChanges,omitempty"`
	// Seen is a fingerprint of the last list that differed from the pins,
	// so that one change is counted once, across restarts too.
	Seen string `json:"seen,omitempty"`
	// Held and HeldPrompts are its held changes (changed, new and renamed
	// tools and prompts) as last seen while it ran: what a command that
	// does not start it (mcptray list) says of it.
	Held        []Change `json:"held,omitempty"`
	HeldPrompts []Change `json:"heldPrompts,omitempty"`
	// Kept are the held changes the person chose to keep held ("Keep it
	// held"), each as the definition it was kept with: the server's next
	// change of it is a new change to review.
	Kept []Kept `json:"kept,omitempty"`
	// DeclaredTools and DeclaredPrompts say the list is pinned as its
	// bundle declared it (names and descriptions) and the server has not
	// run since (declared.go).
	DeclaredTools   bool `json:"declaredTools,omitempty"`
	DeclaredPrompts bool `json:"declaredPrompts,omitempty"`
}

// Kept is one held change the person decided to keep held.
type Kept struct {
	// Prompt says it is a prompt's change, not a tool's.
	Prompt bool   `json:"prompt,omitempty"`
	Name   string `json:"name"`
	// Def is the Fingerprint of the definition kept held.
	Def string `json:"def"`
	// Since is when the person decided.
	Since time.Time `json:"since"`
}

// KeptSince says whether the person kept the held change ch (of a prompt
// or a tool) held as it is now, and since when.
func (sv *Server) KeptSince(prompt bool, ch Change) (time.Time, bool) {
	if ch.New == nil || !ch.Held() {
		return time.Time{}, false
	}
	var fp string
	for _, k := range sv.Kept {
		if k.Prompt != prompt || k.Name != ch.Name {
			continue
		}
		if fp == "" {
			fp = Fingerprint([]Def{*ch.New})
		}
		if k.Def == fp {
			return k.Since, true
		}
	}
	return time.Time{}, false
}

// Keep records that the person keeps the held change ch held, from now.
func (sv *Server) Keep(prompt bool, ch Change, now time.Time) {
	if ch.New == nil || !ch.Held() {
		return
	}
	sv.Kept = slices.DeleteFunc(sv.Kept, func(k Kept) bool { return k.Prompt == prompt && k.Name == ch.Name })
	sv.Kept = append(sv.Kept, Kept{Prompt: prompt, Name: ch.Name, Def: Fingerprint([]Def{*ch.New}), Since: now})
}

// PruneKept forgets the decisions to keep held, of prompts or of tools,
// that no change in changes matches any longer: the change was accepted,
// went, or changed again (a new change to review). It reports whether it
// forgot any.
func (sv *Server) PruneKept(prompt bool, changes []Change) bool {
	before := len(sv.Kept)
	sv.Kept = slices.DeleteFunc(sv.Kept, func(k Kept) bool {
		if k.Prompt != prompt {
			return false
		}
		i := slices.IndexFunc(changes, func(c Change) bool { return c.Name == k.Name })
		if i < 0 {
			return true
		}
		_, ok := (&Server{Kept: []Kept{k}}).KeptSince(prompt, changes[i])
		return !ok
	})
	return len(sv.Kept) != before
}

// file is the pins' file.
type file struct {
	Version int                `json:"version"`
	Servers map[string]*Server `json:"servers"`
}

// Store is the pins of every server, kept in one file. It is safe for
// concurrent use within one process; one mcptray runs at a time.
type Store struct {
	path  string
	mu    sync.Mutex
	f     file
	dirty bool // Stage changed what Flush has not written yet
}

// Open reads the pins at path; a missing file is no pins yet. A file that
// cannot be read is an error, never taken for no pins: that would accept
// every change unseen.
func Open(path string) (*Store, error) {
	s := &Store{path: path, f: file{Version: fileVersion, Servers: map[string]*Server{}}}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("reading the pinned tools: %w", err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("reading the pinned tools in %s: %w (its last good copy is %s.bak)", path, err, path)
	}
	if f.Version > fileVersion {
		return nil, fmt.Errorf("the pinned tools in %s were written by a newer mcptray (format %d)", path, f.Version)
	}
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	f.Version = fileVersion
	s.f = f
	return s, nil
}

// Path is the file the pins are kept in.
func (s *Store) Path() string { return s.path }

// Server returns a copy of what is kept of the server called name.
func (s *Store) Server(name string) (Server, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sv, ok := s.f.Servers[name]
	if !ok {
		return Server{}, false
	}
	return sv.clone(), true
}

// Defs returns a copy of the pinned definitions of the server's list l,
// and whether that list was ever pinned.
func (s *Store) Defs(name string, l List) ([]Def, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sv, ok := s.f.Servers[name]
	if !ok || !l.pinned(sv) {
		return nil, false
	}
	return slices.Clone(l.defs(sv)), true
}

// Names are the servers that have pins, sorted.
func (s *Store) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.f.Servers))
	for n := range s.f.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Update changes what is kept of the server called name (a new one starts
// empty, with ok false) and writes the file; fn returns false to change
// nothing. On a write error nothing is changed in memory either.
func (s *Store) Update(name string, fn func(sv *Server, ok bool) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.f.Servers[name]
	var sv Server
	if ok {
		sv = old.clone()
	}
	if !fn(&sv, ok) {
		return nil
	}
	sortDefs(sv.Tools)
	sortDefs(sv.Prompts)
	s.f.Servers[name] = &sv
	if err := s.write(); err != nil {
		if ok {
			s.f.Servers[name] = old
		} else {
			delete(s.f.Servers, name)
		}
		return err
	}
	return nil
}

// Stage changes what is kept of the server called name as Update does,
// in memory only: Flush writes every staged change at once, so that the
// first sight of a hundred servers writes the file once, not a hundred
// times.
func (s *Store) Stage(name string, fn func(sv *Server, ok bool) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.f.Servers[name]
	var sv Server
	if ok {
		sv = old.clone()
	}
	if !fn(&sv, ok) {
		return
	}
	sortDefs(sv.Tools)
	sortDefs(sv.Prompts)
	s.f.Servers[name] = &sv
	s.dirty = true
}

// Flush writes what Stage changed; nothing when nothing was. A change
// that could not be written stays staged for the next Flush.
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return nil
	}
	return s.write()
}

func (s *Store) write() error {
	// Compact: with a hundred servers of a hundred tools the file holds
	// ten thousand schemas.
	data, err := json.Marshal(s.f)
	if err != nil {
		return fmt.Errorf("encoding the pinned tools: %w", err)
	}
	if err := config.WriteFileAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("keeping the pinned tools: %w", err)
	}
	s.dirty = false
	return nil
}

func (sv *Server) clone() Server {
	c := *sv
	c.Tools = slices.Clone(sv.Tools)
	c.Prompts = slices.Clone(sv.Prompts)
	c.Kept = slices.Clone(sv.Kept)
	c.Held = slices.Clone(sv.Held)
	c.HeldPrompts = slices.Clone(sv.HeldPrompts)
	return c
}

func sortDefs(d []Def) {
	slices.SortFunc(d, func(a, b Def) int { return strings.Compare(a.Name, b.Name) })
}

// Fingerprint names a list of definitions by what they say, whatever their
// order.
func Fingerprint(defs []Def) string {
	sorted := slices.Clone(defs)
	sortDefs(sorted)
	h := sha256.New()
	for _, d := range sorted {
		c := d
		c.InputSchema, c.OutputSchema, c.Meta = canonical(d.InputSchema), canonical(d.OutputSchema), canonical(d.Meta)
		b, _ := json.Marshal(c)
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ChangesFingerprint names a set of changes by what they say, so that the
// same change seen again (after a restart, or listed twice) is known; it
// reads only the changed definitions.
func ChangesFingerprint(changes []Change) string {
	h := sha256.New()
	for _, c := range changes {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", c.Kind, c.Name, c.Was)
		if c.New != nil {
			h.Write([]byte(Fingerprint([]Def{*c.New})))
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// HeldOf are the held ones of changes (changed, new, renamed), nil when
// none is.
func HeldOf(changes []Change) []Change {
	var out []Change
	for _, c := range changes {
		if c.Held() {
			out = append(out, c)
		}
	}
	return out
}

// Accept pins what changes says of the definitions named (all when names
// is empty) in pinned: a changed or new one is pinned as it is now, a
// renamed one under its new name, and every removed one's pin goes. It
// returns the new pins and the names it did not find among the changes.
func Accept(pinned []Def, changes []Change, names []string) ([]Def, []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	byName := map[string]Def{}
	for _, d := range pinned {
		byName[d.Name] = d
	}
	found := map[string]bool{}
	for _, c := range changes {
		if c.Kind == Removed {
			delete(byName, c.Name)
			continue
		}
		if len(want) > 0 && !want[c.Name] && !want[c.Was] {
			continue
		}
		found[c.Name], found[c.Was] = true, true
		if c.Kind == Renamed {
			delete(byName, c.Was)
		}
		if c.New != nil {
			byName[c.Name] = *c.New
		}
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	out := make([]Def, 0, len(byName))
	for _, d := range byName {
		out = append(out, d)
	}
	sortDefs(out)
	return out, missing
}
