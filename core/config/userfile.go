package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/tailscale/hujson"
)

// UserFile is mcptray's own config file: the person's servers (the user
// scope) and the project folders whose configs mcptray watches.
type UserFile struct {
	// MCPServers keeps each entry as written, so that keys mcptray does
	// not know survive an edit.
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	// Folders are absolute paths of project folders.
	Folders []string `json:"folders,omitempty"`
	// TurnedOff are the signatures of servers the person turned off in
	// mcptray, from any scope: a server from another app's file is turned
	// off here without editing that file.
	TurnedOff []string `json:"turnedOff,omitempty"`
	// rest keeps top-level keys this version does not know.
	rest map[string]json.RawMessage
}

// userFileMu serialises read-modify-write cycles within this process.
var userFileMu sync.Mutex

// ReadUserFile reads the file at path; a missing file is an empty one.
func ReadUserFile(path string) (*UserFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &UserFile{MCPServers: map[string]json.RawMessage{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, MaxFileSize>>20)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v); fix it or remove it first", path, err)
	}
	var rest map[string]json.RawMessage
	if err := json.Unmarshal(std, &rest); err != nil {
		return nil, fmt.Errorf("%s must hold a JSON object; fix it or remove it first", path)
	}
	u := &UserFile{rest: rest}
	if err := takeKey(rest, "mcpServers", &u.MCPServers); err != nil {
		return nil, fmt.Errorf("%s: %q must be an object of servers by name; fix it first", path, "mcpServers")
	}
	if err := takeKey(rest, "folders", &u.Folders); err != nil {
		return nil, fmt.Errorf("%s: %q must be a list of folder paths; fix it first", path, "folders")
	}
	if err := takeKey(rest, "turnedOff", &u.TurnedOff); err != nil {
		return nil, fmt.Errorf("%s: %q must be a list of server signatures; fix it first", path, "turnedOff")
	}
	if u.MCPServers == nil {
		u.MCPServers = map[string]json.RawMessage{}
	}
	return u, nil
}

func takeKey(m map[string]json.RawMessage, key string, dst any) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	delete(m, key)
	return json.Unmarshal(raw, dst)
}

// MarshalJSON writes the known keys and every key that was kept.
func (u *UserFile) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(u.rest)+2)
	for k, v := range u.rest {
		out[k] = v
	}
	out["mcpServers"] = u.MCPServers
	if len(u.Folders) > 0 {
		out["folders"] = u.Folders
	}
	if len(u.TurnedOff) > 0 {
		out["turnedOff"] = u.TurnedOff
	}
	return json.Marshal(out)
}

// ModifyUserFile is the one door through which mcptray changes its own
// config: under a lock every mcptray process takes, it reads the file, lets
// fn change it, and writes it back atomically with a backup. When fn returns an error nothing is written. A
// file that cannot be parsed is never overwritten: the person's hand edits
// are not to be lost.
func ModifyUserFile(path string, fn func(*UserFile) error) error {
	userFileMu.Lock()
	defer userFileMu.Unlock()
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	u, err := ReadUserFile(path)
	if err != nil {
		return err
	}
	if err := fn(u); err != nil {
		return err
	}
	data, err := json.MarshalIndent(u, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// gatewayKey is the user file's top-level key for the gateway's settings:
// {"gateway": {"addr": "127.0.0.1:PORT"}}. Other keys in that object are
// kept as written.
const gatewayKey = "gateway"

// GatewayAddr returns the address the gateway's HTTP face was given
// ("127.0.0.1:PORT"), or "" when none was chosen yet.
func (u *UserFile) GatewayAddr() (string, error) {
	raw, ok := u.rest[gatewayKey]
	if !ok {
		return "", nil
	}
	var g struct {
		Addr string `json:"addr"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return "", fmt.Errorf("%q must be an object such as {\"addr\": \"127.0.0.1:PORT\"}", gatewayKey)
	}
	return g.Addr, nil
}

// SetGatewayAddr keeps addr as the gateway's address, leaving any other
// key of the gateway's settings as it was.
func (u *UserFile) SetGatewayAddr(addr string) error {
	return u.setGatewayKeys(map[string]any{"addr": addr})
}
