package autostart

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/mcptray/mcptray/core/config"
)

// Arg is the argument every login entry starts mcptray with.
const Arg = "--autostart"

// ID names the entry: the app's ID, as in FyneApp.toml and packaging/.
const ID = "dev.mcptray.mcptray"

// Status says whether mcptray starts at login.
type Status struct {
	// On is true when the entry is there and the desktop has not switched
	// it off.
	On bool `json:"on"`
	// Where is the entry's file, or the registry key and value on Windows.
	Where string `json:"where"`
	// Current is true when the entry starts this very program with Arg;
	// false for an entry left by a copy of mcptray that was moved or
	// removed. Enable rewrites it.
	Current bool `json:"current"`
}

// place is where one system keeps a login entry.
type place interface {
	// read returns the entry, or found false when there is none.
	read() (entry string, found bool, err error)
	write(entry string) error
	// remove succeeds when there is no entry.
	remove() error
	String() string
}

// Switch turns the login entry on and off.
type Switch struct {
	goos string
	exe  string
	at   place
}

// New returns the Switch for goos (runtime.GOOS when empty) whose entry
// starts exe, with the person's folders from paths.
func New(goos string, paths config.Paths, exe string) (*Switch, error) {
	if goos == "" {
		goos = runtime.GOOS
	}
	if exe == "" {
		return nil, errors.New("autostart: no program to start")
	}
	s := &Switch{goos: goos, exe: exe}
	switch goos {
	case "windows":
		s.at = runKey{}
	case "darwin":
		s.at = file{launchAgentPath(paths)}
	case "ios", "android", "js", "wasip1", "plan9":
		return nil, fmt.Errorf("starting at login is not something mcptray can set up on %s", goos)
	default:
		s.at = file{desktopEntryPath(paths)}
	}
	return s, nil
}

// entry is what Enable writes.
func (s *Switch) entry() string {
	switch s.goos {
	case "windows":
		return RunCommand(s.exe)
	case "darwin":
		return LaunchAgent(s.exe)
	default:
		return DesktopEntry(s.exe)
	}
}

// Enable makes mcptray start at login, replacing any entry there was.
func (s *Switch) Enable() error {
	if err := s.at.write(s.entry()); err != nil {
		return fmt.Errorf("turning on start at login (%s): %w", s.at, err)
	}
	return nil
}

// Disable stops mcptray from starting at login; it is not an error when it
// did not.
func (s *Switch) Disable() error {
	if err := s.at.remove(); err != nil {
		return fmt.Errorf("turning off start at login (%s): %w", s.at, err)
	}
	return nil
}

// Status says whether mcptray starts at login.
func (s *Switch) Status() (Status, error) {
	st := Status{Where: s.at.String()}
	got, found, err := s.at.read()
	if err != nil {
		return st, fmt.Errorf("reading the login entry (%s): %w", s.at, err)
	}
	if !found {
		return st, nil
	}
	st.On = s.goos == "windows" || s.goos == "darwin" || desktopEntryOn(got)
	st.Current = got == s.entry()
	return st, nil
}
