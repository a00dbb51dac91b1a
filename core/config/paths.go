package config

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Paths names every file mcptray reads or writes, for one operating system
// and one person. It is the only place that knows where things are.
type Paths struct {
	// Home is the person's home folder.
	Home string
	// UserConfigDir is what os.UserConfigDir returns: ~/.config (or
	// $XDG_CONFIG_HOME) on Linux, ~/Library/Application Support on macOS,
	// %APPDATA% on Windows.
	UserConfigDir string
	// Enterprise is the file an administrator manages.
	Enterprise string
	// RuntimeDir is where a running mcptray puts its control socket: the
	// per-user runtime folder. On Linux that is $XDG_RUNTIME_DIR, or
	// without it /run/user/UID when that is the person's own private
	// folder (RunUserDir), or else the system's temporary folder; on macOS
	// the per-user temporary folder the system names
	// (DARWIN_USER_TEMP_DIR), whatever $TMPDIR says; on Windows
	// %LOCALAPPDATA%. An AI app may start mcptray stdio with little more
	// than HOME and PATH (the MCP SDK's stdio client passes HOME, LOGNAME,
	// PATH, SHELL, TERM and USER): the folder must be the same for it as
	// for the mcptray the desktop session started, or it would start a
	// second one.
	RuntimeDir string
	// LogDir holds the long-running processes' logs (see LogFile):
	// $XDG_STATE_HOME/mcptray/logs (~/.local/state) on Linux,
	// ~/Library/Logs/mcptray on macOS, %LOCALAPPDATA%\mcptray\logs on
	// Windows. Empty means no log file is written.
	LogDir string
	// DataDir holds what mcptray keeps that is not a setting (the
	// activity record): $XDG_DATA_HOME/mcptray (~/.local/share) on Linux,
	// ~/Library/Application Support/mcptray on macOS,
	// %LOCALAPPDATA%\mcptray on Windows. Empty means Dir.
	DataDir string
}

// DefaultPaths returns the paths for this computer and the current
// environment.
func DefaultPaths() (Paths, error) { return NewPaths(runtime.GOOS, os.LookupEnv) }

// NewPaths computes the paths for goos from environment variables (HOME,
// XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR, APPDATA, LOCALAPPDATA,
// USERPROFILE, ProgramData), so that tests can run against a temporary
// home. For this computer's own system it also looks where a variable
// left out would have pointed (RuntimeDir); a test that names
// XDG_RUNTIME_DIR (Linux) keeps its own.
func NewPaths(goos string, lookup func(string) (string, bool)) (Paths, error) {
	var s sessionFolders
	if goos == runtime.GOOS {
		s = sessionFolders{runUser: RunUserDir, darwinTemp: darwinUserTempDir}
	}
	return newPaths(goos, lookup, s)
}

// sessionFolders finds the per-user folders that the system keeps whatever
// a program's environment says. A nil func finds none.
type sessionFolders struct {
	// runUser is RunUserDir: /run/user/UID when it is the person's own.
	runUser func() string
	// darwinTemp is macOS's per-user temporary folder.
	darwinTemp func() string
}

func (s sessionFolders) find(f func() string) string {
	if f == nil {
		return ""
	}
	return f()
}

func newPaths(goos string, lookup func(string) (string, bool), session sessionFolders) (Paths, error) {
	env := func(k string) string {
		v, _ := lookup(k)
		return v
	}
	var p Paths
	switch goos {
	case "windows":
		p.Home = env("USERPROFILE")
		p.UserConfigDir = env("APPDATA")
		if p.UserConfigDir == "" {
			return p, errors.New("APPDATA is not set; mcptray cannot find where to keep its settings")
		}
		if p.Home == "" {
			return p, errors.New("USERPROFILE is not set; mcptray cannot find your home folder")
		}
		programData := env("ProgramData")
		if programData == "" {
			programData = `C:\ProgramData`
		}
		p.Enterprise = filepath.Join(programData, "mcptray", "managed.json")
		p.RuntimeDir = env("LOCALAPPDATA")
		if p.RuntimeDir == "" {
			p.RuntimeDir = filepath.Join(p.Home, "AppData", "Local")
		}
		p.LogDir = filepath.Join(p.RuntimeDir, "mcptray", "logs")
		p.DataDir = filepath.Join(p.RuntimeDir, "mcptray")
	case "darwin", "ios":
		p.Home = env("HOME")
		p.UserConfigDir = filepath.Join(p.Home, "Library", "Application Support")
		p.Enterprise = "/Library/Application Support/mcptray/managed.json"
		// The per-user temporary folder, which launchd also gives as
		// TMPDIR to what it starts; an app may leave TMPDIR out, or set
		// its own.
		p.RuntimeDir = session.find(session.darwinTemp)
		if !filepath.IsAbs(p.RuntimeDir) {
			p.RuntimeDir = env("TMPDIR")
		}
		if !filepath.IsAbs(p.RuntimeDir) {
			p.RuntimeDir = "/tmp"
		}
		p.LogDir = filepath.Join(p.Home, "Library", "Logs", "mcptray")
		p.DataDir = filepath.Join(p.UserConfigDir, "mcptray")
	default:
		p.Home = env("HOME")
		p.UserConfigDir = env("XDG_CONFIG_HOME")
		if !filepath.IsAbs(p.UserConfigDir) {
			p.UserConfigDir = filepath.Join(p.Home, ".config")
		}
		p.Enterprise = "/etc/mcptray/managed.json"
		p.RuntimeDir = env("XDG_RUNTIME_DIR")
		if !filepath.IsAbs(p.RuntimeDir) {
			p.RuntimeDir = session.find(session.runUser)
		}
		if !filepath.IsAbs(p.RuntimeDir) {
			p.RuntimeDir = os.TempDir()
		}
		state := env("XDG_STATE_HOME")
		if !filepath.IsAbs(state) {
			state = filepath.Join(p.Home, ".local", "state")
		}
		p.LogDir = filepath.Join(state, "mcptray", "logs")
		data := env("XDG_DATA_HOME")
		if !filepath.IsAbs(data) {
			data = filepath.Join(p.Home, ".local", "share")
		}
		p.DataDir = filepath.Join(data, "mcptray")
	}
	if p.Home == "" {
		return p, errors.New("HOME is not set; mcptray cannot find your home folder")
	}
	return p, nil
}

// ControlDir is the folder of a running mcptray's control socket and
// instance lock. Its name carries the person's account (Account) and a
// hash of UserConfigDir: one mcptray runs per person and config, so a test
// with a config folder of its own never reaches the person's running
// mcptray.
func (p Paths) ControlDir() string {
	sum := sha256.Sum256([]byte(p.UserConfigDir))
	return filepath.Join(p.RuntimeDir, fmt.Sprintf("mcptray-%s-%x", Account(), sum[:4]))
}

// Dir is mcptray's own folder.
func (p Paths) Dir() string { return filepath.Join(p.UserConfigDir, "mcptray") }

// DemoDir is the demo project folder that the welcome's "Try the demo"
// makes: a .mcp.json whose server is mcptray's own demo server.
func (p Paths) DemoDir() string { return filepath.Join(p.Dir(), "demo") }

// UserFile is mcptray's config file: the user scope and the folders list.
func (p Paths) UserFile() string { return filepath.Join(p.Dir(), "config.json") }

// ApprovalsFile keeps the person's approvals and denials.
func (p Paths) ApprovalsFile() string { return filepath.Join(p.Dir(), "approvals.json") }

// AppsSeenFile keeps when each AI app last used the gateway and how many
// tools it was given then, so that the Apps view can say so after a
// restart.
func (p Paths) AppsSeenFile() string { return filepath.Join(p.Dir(), "apps-seen.json") }

// ConnectTimesFile keeps how long each server took to connect the last
// time, by a hash of what it runs, so that the next start lets the
// slowest in first.
func (p Paths) ConnectTimesFile() string { return filepath.Join(p.Dir(), "connect-times.json") }

// ActivityFile is the activity record: every call the apps made through
// the gateway, and the person's trust decisions (core/activity), in
// DataDir.
func (p Paths) ActivityFile() string {
	dir := p.DataDir
	if dir == "" {
		dir = p.Dir()
	}
	return filepath.Join(dir, "activity.db")
}

// BundlesDir holds the files of each server installed from an MCP Bundle,
// in a folder by its name, in DataDir: read-only to the server.
func (p Paths) BundlesDir() string {
	dir := p.DataDir
	if dir == "" {
		dir = p.Dir()
	}
	return filepath.Join(dir, "bundles")
}

// DownloadsDir holds the MCP Bundles downloaded from the registry, each
// named by its SHA-256, in DataDir, until installed or a day unused.
func (p Paths) DownloadsDir() string {
	dir := p.DataDir
	if dir == "" {
		dir = p.Dir()
	}
	return filepath.Join(dir, "downloads")
}

// LogFile is the log of the tray's process or mcptray serve (one of them
// runs at a time); "" when LogDir is.
func (p Paths) LogFile() string { return p.logFile("mcptray.log") }

// WindowLogFile is the window process's log, a file of its own so that
// only one process writes each file; "" when LogDir is.
func (p Paths) WindowLogFile() string { return p.logFile("window.log") }

func (p Paths) logFile(name string) string {
	if p.LogDir == "" {
		return ""
	}
	return filepath.Join(p.LogDir, name)
}

// PluginsDir holds one folder per plugin, each with a .mcp.json.
func (p Paths) PluginsDir() string { return filepath.Join(p.Dir(), "plugins") }

// ImportSources are the other apps' config files that mcptray imports.
func (p Paths) ImportSources() []Source {
	return []Source{
		{Scope: Imported, App: "Claude Desktop", Format: MCPServers,
			File: filepath.Join(p.UserConfigDir, "Claude", "claude_desktop_config.json")},
		{Scope: Imported, App: "Claude Code", Format: ClaudeCode,
			File: filepath.Join(p.Home, ".claude.json")},
		{Scope: Imported, App: "Cursor", Format: MCPServers,
			File: filepath.Join(p.Home, ".cursor", "mcp.json")},
		{Scope: Imported, App: "VS Code", Format: VSCode,
			File: filepath.Join(p.UserConfigDir, "Code", "User", "mcp.json")},
	}
}

// FolderSources are the config files mcptray reads in a project folder.
func FolderSources(folder string) []Source {
	return []Source{
		{Scope: Local, App: ".mcp.json", Format: MCPServers, Folder: folder,
			File: filepath.Join(folder, ".mcp.json")},
		{Scope: Project, App: "VS Code project", Format: VSCode, Folder: folder,
			File: filepath.Join(folder, ".vscode", "mcp.json")},
		{Scope: Project, App: "Cursor project", Format: MCPServers, Folder: folder,
			File: filepath.Join(folder, ".cursor", "mcp.json")},
	}
}

// pluginSource is the manifest of the plugin in folder dir.
func pluginSource(dir string) Source {
	return Source{Scope: Managed, App: "plugin " + filepath.Base(dir), Format: MCPServers,
		PluginRoot: dir, File: filepath.Join(dir, ".mcp.json")}
}

// ServersDir holds each local server's private data folder, the one folder
// of mcptray's that its sandbox lets the server use (core/sandbox).
func (p Paths) ServersDir() string { return filepath.Join(p.Dir(), "servers") }

// DataFolderOwnersFile keeps whom each server's data folder (ServersDir)
// was made for (core/service/datafolders), beside it, where no server may
// write.
func (p Paths) DataFolderOwnersFile() string { return filepath.Join(p.Dir(), "data-folders.json") }
