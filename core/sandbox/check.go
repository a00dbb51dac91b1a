package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Report is what one check of the sandbox on this computer found
// (Check): for each kind of server, what each door did.
type Report struct {
	Time time.Time `json:"time"`
	// Kernel is the kernel's release (uname -r) and Version mcptray's:
	// a change to either checks again.
	Kernel  string `json:"kernel"`
	Version string `json:"version"`
	ABI     int    `json:"abi"`
	// Launcher is "c" (mcptray-sandbox) or "go" (mcptray sandbox-exec).
	Launcher string `json:"launcher"`
	// Namespaces: the servers were in namespaces of their own, as this
	// computer runs them; false is the fallback.
	Namespaces bool `json:"namespaces"`
	// OwnProxy: the servers whose network goes through mcptray's proxy
	// reached mcptray's own (CheckOptions.Proxy), not a stand-in.
	OwnProxy bool         `json:"ownProxy,omitempty"`
	Kinds    []KindResult `json:"kinds"`
	// Err is why no probe could run at all.
	Err string `json:"err,omitempty"`
}

// Held reports whether every door held, for every kind of server.
func (r Report) Held() bool {
	if r.Err != "" || len(r.Kinds) == 0 {
		return false
	}
	for _, k := range r.Kinds {
		if !k.Held() {
			return false
		}
	}
	return true
}

// Open are the doors that did not hold (or Musts that did not work), each
// once, with the kinds they did not hold for.
func (r Report) Open() []DoorResult {
	var out []DoorResult
	seen := map[string]bool{}
	for _, k := range r.Kinds {
		for _, d := range k.Doors {
			if (d.State == "open" || d.State == "broken") && !seen[d.Door] {
				seen[d.Door] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// Summary says the check in one sentence.
func (r Report) Summary() string {
	mode := "in namespaces of their own"
	if !r.Namespaces {
		mode = "without namespaces (this computer does not let mcptray make them, or MCPTRAY_SANDBOX_NO_NAMESPACES=1)"
	}
	when := r.Time.Local().Format("2 Jan 2006 15:04")
	switch {
	case r.Err != "":
		return fmt.Sprintf("mcptray could not check its sandbox on this computer (%s): %s", when, r.Err)
	case r.Held():
		return fmt.Sprintf("Every door held on this computer (%s, Linux %s, Landlock %d, servers %s).", when, r.Kernel, r.ABI, mode)
	}
	var names []string
	for _, d := range r.Open() {
		if d.State == "broken" { // what a server must be able to do
			names = append(names, "not "+d.Tries)
		} else {
			names = append(names, d.Tries)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("Not every door held on this computer (%s, Linux %s, Landlock %d, servers %s): not every kind of server could be tried.", when, r.Kernel, r.ABI, mode)
	}
	return fmt.Sprintf("Not every door held on this computer (%s, Linux %s, Landlock %d, servers %s): a server could %s.", when, r.Kernel, r.ABI, mode, list(names))
}

// Said is r as a few lines for a person: its summary, then each door
// that did not hold (or kind of server not tried) once, with the kinds of
// server it did not hold for, then what to do.
func (r Report) Said() []string {
	lines := []string{r.Summary()}
	var order []string
	kinds := map[string][]string{}
	words := map[string]string{}
	for _, k := range r.Kinds {
		if k.Err != "" {
			key := "not tried: " + k.Err
			if _, ok := kinds[key]; !ok {
				order = append(order, key)
			}
			kinds[key], words[key] = append(kinds[key], strings.ToLower(k.Kind.Words[:1])+k.Kind.Words[1:]), key
		}
		for _, d := range k.Doors {
			if d.State != "open" && d.State != "broken" {
				continue
			}
			if _, ok := kinds[d.Door]; !ok {
				order = append(order, d.Door)
			}
			kinds[d.Door] = append(kinds[d.Door], strings.ToLower(k.Kind.Words[:1])+k.Kind.Words[1:])
			words[d.Door] = d.Open
			if d.State == "broken" {
				words[d.Door] = d.Words
			}
		}
	}
	for _, key := range order {
		w := words[key]
		lines = append(lines, strings.ToUpper(w[:1])+w[1:]+" ("+strings.Join(kinds[key], "; ")+").")
	}
	if len(order) > 0 {
		lines = append(lines, whatToDo+".")
	}
	return lines
}

// WriteText writes r as mcptray sandbox check prints it: the summary,
// then one line a door, grouped by kind of server.
func (r Report) WriteText(w io.Writer) {
	fmt.Fprintln(w, r.Summary())
	for _, k := range r.Kinds {
		fmt.Fprintf(w, "\n%s (%s):\n", k.Kind.Words, k.Level)
		if k.Err != "" {
			fmt.Fprintf(w, "  not tried: %s\n", k.Err)
		}
		for _, d := range k.Doors {
			switch d.State {
			case "held":
				fmt.Fprintf(w, "  held:   %s\n", d.Tries)
			case "works":
				fmt.Fprintf(w, "  works:  %s\n", d.Tries)
			case "limit":
				fmt.Fprintf(w, "  limit:  %s: %s\n", d.Tries, d.Words)
			default:
				fmt.Fprintf(w, "  %s: %s (%s). %s\n", strings.ToUpper(d.State), d.Tries, d.Outcome, d.Words)
			}
		}
	}
}

// The last check on this computer, which what mcptray says about a
// sandbox comes from (Protection): set where mcptray runs servers
// (SetLastCheck), from the file it keeps it in.
var lastCheck struct {
	sync.Mutex
	r *Report
}

// SetLastCheck makes r the last check on this computer; nil for none.
func SetLastCheck(r *Report) {
	lastCheck.Lock()
	defer lastCheck.Unlock()
	lastCheck.r = r
}

// LastCheck is the last check on this computer, or nil.
func LastCheck() *Report {
	lastCheck.Lock()
	defer lastCheck.Unlock()
	return lastCheck.r
}

// Words about the check in a sandboxed server's level.
const (
	wordsNotChecked = "mcptray has not yet checked its sandbox on this computer (mcptray sandbox check, or Settings)"
	wordsCheckedNot = "on this computer mcptray's check (%s) found that %s. %s"
)

// withCheck is l, said as the last check on this computer found it for a
// server with p: a door that did not hold, for the kind of server p is,
// is said plainly, with what to do, and takes back what l says holds.
func withCheck(l Level, p Policy) Level {
	if !l.Files {
		return l // no sandbox: nothing to prove
	}
	r := LastCheck()
	if r == nil {
		l.Words += "; " + wordsNotChecked
		return l
	}
	var open []string
	seen := map[string]bool{}
	for _, k := range r.Kinds {
		if k.Kind.Proxy != p.RestrictTCP {
			continue
		}
		if k.Err != "" && !seen["err"] {
			seen["err"] = true
			open = append(open, "its probe could not run ("+k.Err+")")
		}
		for _, d := range k.Doors {
			if (d.State != "open" && d.State != "broken") || seen[d.Door] {
				continue
			}
			seen[d.Door] = true
			open = append(open, strings.TrimPrefix(strings.TrimPrefix(d.Open, "a server could "), "a project's server could "))
			switch d.Area {
			case "files", "works":
				l.Files = false
			case "network", "sockets":
				l.Network, l.Isolated = false, false
			}
		}
	}
	if r.Err != "" {
		open = append(open, "its probe could not run ("+r.Err+")")
	}
	if len(open) > 0 {
		l.Words += "; " + fmt.Sprintf(wordsCheckedNot, r.Time.Local().Format("2 Jan 2006"), "a server could "+list(open), whatToDo)
	}
	return l
}

// CheckFile is where mcptray keeps the last check, in its folder dir.
func CheckFile(dir string) string { return filepath.Join(dir, "sandbox-check.json") }

// ReadCheck reads the last check kept at path; nil with no error when
// there is none.
func ReadCheck(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the last sandbox check: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading the last sandbox check: %w", err)
	}
	return &r, nil
}

// WriteCheck keeps r at path, whole or not at all.
func WriteCheck(path string, r Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("keeping the sandbox check: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("keeping the sandbox check: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".sandbox-check-*")
	if err != nil {
		return fmt.Errorf("keeping the sandbox check: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("keeping the sandbox check: %w", err)
	}
	return nil
}

// Stale reports whether r is no check of this computer as it is now: none
// yet, another kernel, or another mcptray.
func Stale(r *Report, version string) bool {
	return r == nil || r.Kernel != Kernel() || r.Version != version
}

// CheckProxy is the egress proxy as the check uses it: core/egress's,
// given by the service, which sandbox does not import.
type CheckProxy struct {
	// Port is its port on 127.0.0.1.
	Port int
	// Env is the variables that send a server's traffic there, with its
	// credential (a new one for each call).
	Env func(server string) map[string]string
	// Serve serves the proxy on a listener in a server's own network,
	// until the listener closes.
	Serve func(net.Listener)
}
