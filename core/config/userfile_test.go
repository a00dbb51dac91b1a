package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestReadUserFileMissing(t *testing.T) {
	t.Parallel()
	u, err := ReadUserFile(filepath.Join(t.TempDir(), "none", "config.json"))
	if err != nil || u.MCPServers == nil || len(u.MCPServers) != 0 || len(u.Folders) != 0 {
		t.Errorf("ReadUserFile of a missing file = %+v, %v; want an empty file", u, err)
	}
}

func TestModifyUserFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray", "config.json")
	before := `// the person's notes
{
  "theme": "dark",
  "gateway": {"port": 8123, "extra": [1, 2]},
  "mcpServers": {
    "notes": {"command": "notes-mcp", "alwaysAllow": ["read"], "x-custom": {"k": true},},
  },
  "folders": ["/home/me/code"],
}`
	writeFile(t, path, before)
	err := ModifyUserFile(path, func(u *UserFile) error {
		if _, ok := u.MCPServers["notes"]; !ok || !reflect.DeepEqual(u.Folders, []string{"/home/me/code"}) {
			return fmt.Errorf("read %+v", u)
		}
		u.MCPServers["web"] = json.RawMessage(`{"url": "https://web.example/mcp"}`)
		u.Folders = append(u.Folders, "/home/me/blog")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path+".bak"); got != before {
		t.Errorf("backup %q, want the file as it was", got)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	var after struct {
		Theme      string
		Gateway    map[string]any
		MCPServers map[string]map[string]any `json:"mcpServers"`
		Folders    []string
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &after); err != nil {
		t.Fatal(err)
	}
	if after.Theme != "dark" || after.Gateway["port"] != 8123.0 || !reflect.DeepEqual(after.Gateway["extra"], []any{1.0, 2.0}) {
		t.Errorf("unknown top-level keys lost: %+v", after)
	}
	notes := after.MCPServers["notes"]
	if notes["command"] != "notes-mcp" || !reflect.DeepEqual(notes["alwaysAllow"], []any{"read"}) || !reflect.DeepEqual(notes["x-custom"], map[string]any{"k": true}) {
		t.Errorf("unknown server keys lost: %+v", notes)
	}
	if after.MCPServers["web"]["url"] != "https://web.example/mcp" {
		t.Errorf("new server missing: %+v", after.MCPServers)
	}
	if !reflect.DeepEqual(after.Folders, []string{"/home/me/code", "/home/me/blog"}) {
		t.Errorf("folders %q", after.Folders)
	}

	// What was written loads as the user scope.
	u, err := ReadUserFile(path)
	if err != nil || len(u.MCPServers) != 2 {
		t.Fatalf("reading back: %+v, %v", u, err)
	}
}

// TestModifyUserFileRefuses: when fn fails or the file cannot be parsed,
// the file stays exactly as it was, and no backup replaces the last one.
func TestModifyUserFileRefuses(t *testing.T) {
	t.Parallel()
	errNo := errors.New("the person cancelled")
	tests := []struct {
		name    string
		content string // "" means no file
		fn      func(*UserFile) error
		wantErr string
	}{
		{"fn fails", `{"mcpServers": {"a": {"command": "a"}}}`, func(u *UserFile) error {
			u.MCPServers["b"] = json.RawMessage(`{}`)
			return errNo
		}, errNo.Error()},
		{"fn fails on a missing file", "", func(*UserFile) error { return errNo }, errNo.Error()},
		{"bad JSON", `{"mcpServers": {"a": {"command": "a"},,}}`, nil, "is not valid JSON"},
		{"top level is a list", `[{"mcpServers": {}}]`, nil, "must hold a JSON object"},
		{"mcpServers is a list", `{"mcpServers": [], "keep": 1}`, nil, `"mcpServers" must be an object`},
		{"folders is a string", `{"mcpServers": {}, "folders": "/home"}`, nil, `"folders" must be a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "config.json")
			if tt.content != "" {
				writeFile(t, path, tt.content)
			}
			called := false
			err := ModifyUserFile(path, func(u *UserFile) error {
				called = true
				if tt.fn == nil {
					u.MCPServers["new"] = json.RawMessage(`{"command": "new"}`)
					return nil
				}
				return tt.fn(u)
			})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if tt.fn == nil && called {
				t.Error("fn was called with a file that could not be parsed")
			}
			if tt.content == "" {
				if got := dirNames(t, dir); len(got) != 0 {
					t.Errorf("created %q", got)
				}
				return
			}
			if got := readFile(t, path); got != tt.content {
				t.Errorf("file changed to %q", got)
			}
			if got := dirNames(t, dir); !reflect.DeepEqual(got, []string{"config.json"}) {
				t.Errorf("folder holds %q", got)
			}
		})
	}
}

// TestModifyUserFileSerialises: concurrent edits within the process each
// see the others' results; none is lost.
func TestModifyUserFileSerialises(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			err := ModifyUserFile(path, func(u *UserFile) error {
				u.MCPServers[fmt.Sprintf("s%d", i)] = json.RawMessage(fmt.Sprintf(`{"command": "c%d"}`, i))
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	u, err := ReadUserFile(path)
	if err != nil || len(u.MCPServers) != 20 {
		t.Errorf("after 20 concurrent edits: %d servers, %v", len(u.MCPServers), err)
	}
}

// TestGatewayAddr: the gateway's address is kept in the user file beside
// whatever else its settings hold.
func TestGatewayAddr(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray", "config.json")
	writeFile(t, path, `{"gateway": {"port": 8123}, "theme": "dark"}`)
	u, err := ReadUserFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if addr, err := u.GatewayAddr(); addr != "" || err != nil {
		t.Errorf("GatewayAddr before one was set = %q, %v; want none", addr, err)
	}
	if err := ModifyUserFile(path, func(u *UserFile) error { return u.SetGatewayAddr("127.0.0.1:4567") }); err != nil {
		t.Fatal(err)
	}
	u, err = ReadUserFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if addr, err := u.GatewayAddr(); addr != "127.0.0.1:4567" || err != nil {
		t.Errorf("GatewayAddr = %q, %v; want 127.0.0.1:4567", addr, err)
	}
	var after struct {
		Theme   string
		Gateway map[string]any
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &after); err != nil {
		t.Fatal(err)
	}
	if after.Theme != "dark" || after.Gateway["port"] != 8123.0 {
		t.Errorf("other settings lost: %+v", after)
	}

	writeFile(t, path, `{"gateway": "127.0.0.1:1"}`)
	if u, err = ReadUserFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := u.GatewayAddr(); err == nil {
		t.Error("a gateway setting that is not an object was read without an error")
	}
	if err := u.SetGatewayAddr("127.0.0.1:2"); err == nil {
		t.Error("a gateway setting that is not an object was replaced")
	}
}
