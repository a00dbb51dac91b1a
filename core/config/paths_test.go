package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		goos    string
		env     map[string]string
		want    Paths
		wantErr string
	}{
		{"linux", "linux", map[string]string{"HOME": "/home/me"},
			Paths{Home: "/home/me", UserConfigDir: "/home/me/.config", Enterprise: "/etc/mcptray/managed.json", RuntimeDir: os.TempDir()}, ""},
		{"linux with XDG_CONFIG_HOME", "linux", map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "/xdg"},
			Paths{Home: "/home/me", UserConfigDir: "/xdg", Enterprise: "/etc/mcptray/managed.json", RuntimeDir: os.TempDir()}, ""},
		{"linux ignores a relative XDG_CONFIG_HOME", "linux", map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "cfg"},
			Paths{Home: "/home/me", UserConfigDir: "/home/me/.config", Enterprise: "/etc/mcptray/managed.json", RuntimeDir: os.TempDir()}, ""},
		{"linux with an empty XDG_CONFIG_HOME", "linux", map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": ""},
			Paths{Home: "/home/me", UserConfigDir: "/home/me/.config", Enterprise: "/etc/mcptray/managed.json", RuntimeDir: os.TempDir()}, ""},
		{"linux with XDG_RUNTIME_DIR", "linux", map[string]string{"HOME": "/home/me", "XDG_RUNTIME_DIR": "/run/user/1000"},
			Paths{Home: "/home/me", UserConfigDir: "/home/me/.config", Enterprise: "/etc/mcptray/managed.json", RuntimeDir: "/run/user/1000"}, ""},
		{"darwin with TMPDIR", "darwin", map[string]string{"HOME": "/Users/me", "TMPDIR": "/var/folders/xy/T/"},
			Paths{Home: "/Users/me", UserConfigDir: "/Users/me/Library/Application Support", Enterprise: "/Library/Application Support/mcptray/managed.json", RuntimeDir: "/var/folders/xy/T/"}, ""},
		{"freebsd is like linux", "freebsd", map[string]string{"HOME": "/usr/home/me"},
			Paths{Home: "/usr/home/me", UserConfigDir: "/usr/home/me/.config", Enterprise: "/etc/mcptray/managed.json", RuntimeDir: os.TempDir()}, ""},
		{"darwin", "darwin", map[string]string{"HOME": "/Users/me", "XDG_CONFIG_HOME": "/xdg"},
			Paths{Home: "/Users/me", UserConfigDir: "/Users/me/Library/Application Support", Enterprise: "/Library/Application Support/mcptray/managed.json", RuntimeDir: "/tmp"}, ""},
		{"windows", "windows", map[string]string{"USERPROFILE": `C:\Users\me`, "APPDATA": `C:\Users\me\AppData\Roaming`, "ProgramData": `D:\PD`, "HOME": "/ignored"},
			Paths{Home: `C:\Users\me`, UserConfigDir: `C:\Users\me\AppData\Roaming`, Enterprise: filepath.Join(`D:\PD`, "mcptray", "managed.json"), RuntimeDir: filepath.Join(`C:\Users\me`, "AppData", "Local")}, ""},
		{"windows without ProgramData", "windows", map[string]string{"USERPROFILE": `C:\Users\me`, "APPDATA": `C:\Users\me\AppData\Roaming`},
			Paths{Home: `C:\Users\me`, UserConfigDir: `C:\Users\me\AppData\Roaming`, Enterprise: filepath.Join(`C:\ProgramData`, "mcptray", "managed.json"), RuntimeDir: filepath.Join(`C:\Users\me`, "AppData", "Local")}, ""},
		{"linux without HOME", "linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, Paths{}, "HOME is not set"},
		{"linux with an empty HOME", "linux", map[string]string{"HOME": ""}, Paths{}, "HOME is not set"},
		{"darwin without HOME", "darwin", nil, Paths{}, "HOME is not set"},
		{"windows without APPDATA", "windows", map[string]string{"USERPROFILE": `C:\Users\me`}, Paths{}, "APPDATA is not set"},
		{"windows without USERPROFILE", "windows", map[string]string{"APPDATA": `C:\AppData`, "HOME": "/h"}, Paths{}, "USERPROFILE is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Without the system's own folders (TestRuntimeDirWithout
			// XDG_RUNTIME_DIR has them), so that this computer's
			// /run/user or macOS's temporary folder do not matter.
			got, err := newPaths(tt.goos, mapLookup(tt.env), sessionFolders{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewPaths = %+v, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			got.LogDir, got.DataDir = "", "" // TestLogDir and TestDataDir check them
			if err != nil || got != tt.want {
				t.Errorf("NewPaths = %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
}

// TestLogDir: the logs go where each system keeps an app's logs.
func TestLogDir(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"HOME": "/home/me"}, "/home/me/.local/state/mcptray/logs"},
		{"linux", map[string]string{"HOME": "/home/me", "XDG_STATE_HOME": "/st"}, "/st/mcptray/logs"},
		{"linux", map[string]string{"HOME": "/home/me", "XDG_STATE_HOME": "rel"}, "/home/me/.local/state/mcptray/logs"},
		{"darwin", map[string]string{"HOME": "/Users/me"}, "/Users/me/Library/Logs/mcptray"},
		{"windows", map[string]string{"USERPROFILE": `C:\Users\me`, "APPDATA": `C:\A`, "LOCALAPPDATA": `C:\L`},
			filepath.Join(`C:\L`, "mcptray", "logs")},
	} {
		p, err := NewPaths(tt.goos, mapLookup(tt.env))
		if err != nil || p.LogDir != tt.want {
			t.Errorf("%s %v: LogDir %q, %v; want %q", tt.goos, tt.env, p.LogDir, err, tt.want)
		}
		if want := filepath.Join(tt.want, "mcptray.log"); p.LogFile() != want {
			t.Errorf("LogFile %q, want %q", p.LogFile(), want)
		}
	}
	if f := (Paths{Home: "/h"}).LogFile(); f != "" {
		t.Errorf("with no LogDir, LogFile is %q; want none", f)
	}
}

// TestDataDir: the activity record goes where each system keeps an app's
// data, or in mcptray's folder when there is no such place.
func TestDataDir(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"HOME": "/home/me"}, "/home/me/.local/share/mcptray/activity.db"},
		{"linux", map[string]string{"HOME": "/home/me", "XDG_DATA_HOME": "/d"}, "/d/mcptray/activity.db"},
		{"darwin", map[string]string{"HOME": "/Users/me"}, "/Users/me/Library/Application Support/mcptray/activity.db"},
		{"windows", map[string]string{"USERPROFILE": `C:\Users\me`, "APPDATA": `C:\A`, "LOCALAPPDATA": `C:\L`},
			filepath.Join(`C:\L`, "mcptray", "activity.db")},
	} {
		p, err := NewPaths(tt.goos, mapLookup(tt.env))
		if err != nil || p.ActivityFile() != tt.want {
			t.Errorf("%s %v: ActivityFile %q, %v; want %q", tt.goos, tt.env, p.ActivityFile(), err, tt.want)
		}
	}
	if f := (Paths{UserConfigDir: "/c"}).ActivityFile(); f != "/c/mcptray/activity.db" {
		t.Errorf("with no DataDir, ActivityFile is %q", f)
	}
}

func TestPathsFiles(t *testing.T) {
	t.Parallel()
	p := Paths{Home: "/home/me", UserConfigDir: "/home/me/.config", Enterprise: "/etc/mcptray/managed.json", RuntimeDir: os.TempDir()}
	for _, tt := range []struct{ got, want string }{
		{p.Dir(), "/home/me/.config/mcptray"},
		{p.UserFile(), "/home/me/.config/mcptray/config.json"},
		{p.ApprovalsFile(), "/home/me/.config/mcptray/approvals.json"},
		{p.PluginsDir(), "/home/me/.config/mcptray/plugins"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
	want := []struct {
		app, file string
		format    Format
	}{
		{"Claude Desktop", "/home/me/.config/Claude/claude_desktop_config.json", MCPServers},
		{"Claude Code", "/home/me/.claude.json", ClaudeCode},
		{"Cursor", "/home/me/.cursor/mcp.json", MCPServers},
		{"VS Code", "/home/me/.config/Code/User/mcp.json", VSCode},
	}
	imports := p.ImportSources()
	if len(imports) != len(want) {
		t.Fatalf("%d import sources", len(imports))
	}
	for i, w := range want {
		if s := imports[i]; s.App != w.app || s.File != w.file || s.Format != w.format || s.Scope != Imported || s.Folder != "" {
			t.Errorf("import %d = %+v, want %+v", i, s, w)
		}
	}
	folder := FolderSources("/w")
	wantF := []struct {
		file   string
		scope  Scope
		format Format
	}{
		{"/w/.mcp.json", Local, MCPServers},
		{"/w/.vscode/mcp.json", Project, VSCode},
		{"/w/.cursor/mcp.json", Project, MCPServers},
	}
	if len(folder) != len(wantF) {
		t.Fatalf("%d folder sources", len(folder))
	}
	for i, w := range wantF {
		if s := folder[i]; s.File != w.file || s.Scope != w.scope || s.Format != w.format || s.Folder != "/w" {
			t.Errorf("folder source %d = %+v, want %+v", i, s, w)
		}
	}
	if s := pluginSource("/plugins/notes"); s.Scope != Managed || s.PluginRoot != "/plugins/notes" || s.File != "/plugins/notes/.mcp.json" || s.App != "plugin notes" {
		t.Errorf("plugin source %+v", s)
	}
	for f, want := range map[Format]string{MCPServers: "mcpServers", VSCode: "vscode", ClaudeCode: "claude-code", Format(9): "format(9)"} {
		if f.String() != want {
			t.Errorf("%d.String() = %q, want %q", f, f.String(), want)
		}
	}
}

func TestDefaultPaths(t *testing.T) {
	t.Parallel()
	p, err := DefaultPaths()
	if err != nil {
		t.Skipf("no home here: %v", err)
	}
	if !filepath.IsAbs(p.Home) || p.UserConfigDir == "" || p.Enterprise == "" {
		t.Errorf("DefaultPaths = %+v", p)
	}
}
