package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// GatewayEntry is the name under which mcptray connect writes the gateway
// into an app's config.
const GatewayEntry = "mcptray"

// IsGateway reports whether s runs mcptray's own gateway (mcptray stdio), as
// mcptray connect writes it into an app's config.
func IsGateway(s *Server) bool {
	if s.Transport != Stdio || len(s.Args) == 0 || s.Args[0] != "stdio" {
		return false
	}
	if len(s.Args) != 1 && (len(s.Args) != 3 || s.Args[1] != "--app") {
		return false
	}
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(s.Command)), ".exe")
	return base == "mcptray"
}

// AppSource returns the config file of the app that name stands for
// ("claude-desktop", "claude-code", "cursor", "vscode"; case and spaces do
// not matter), among the apps mcptray imports from.
func (p Paths) AppSource(name string) (Source, bool) {
	want := appKey(name)
	for _, src := range p.ImportSources() {
		if appKey(src.App) == want {
			return src, true
		}
	}
	return Source{}, false
}

func appKey(s string) string {
	k := strings.ToLower(strings.NewReplacer(" ", "", "-", "", "_", "").Replace(s))
	return k
}

// AppNames are the apps AppSource knows, as a person types them.
func (p Paths) AppNames() []string {
	var out []string
	for _, src := range p.ImportSources() {
		out = append(out, AppKeyFor(src.App))
	}
	return out
}

// AppKeyFor is the name a person types for the app a Source names
// ("Claude Code" → "claude-code"); "" for none.
func AppKeyFor(app string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(app), " ", "-"))
}

// GatewayArgs are the arguments of the gateway's entry in src's file:
// mcptray stdio, naming the app (--app), so that the gateway knows the app
// by the name mcptray gave it and not by what it says of itself.
func GatewayArgs(src Source) []string {
	return []string{"stdio", "--app", AppKeyFor(src.App)}
}

// ConnectApp writes the gateway's entry (command with GatewayArgs) into
// src's file, keeping everything else in it as written,
// comments included; the file is replaced atomically and the old one kept
// as FILE.bak. A missing file is created.
func ConnectApp(src Source, command string) error {
	entry := map[string]any{"command": command, "args": GatewayArgs(src)}
	if src.Format == VSCode {
		entry["type"] = "stdio"
	}
	return patchApp(src, func(v *hujson.Value, key string) ([]patchOp, error) {
		var ops []patchOp
		if member(v.Value.(*hujson.Object), key) == nil {
			ops = append(ops, patchOp{Op: "add", Path: "/" + key, Value: map[string]any{}})
		} else if _, ok := member(v.Value.(*hujson.Object), key).Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("%s: %q is not an object; fix it first", src.File, key)
		}
		return append(ops, patchOp{Op: "add", Path: "/" + key + "/" + GatewayEntry, Value: entry}), nil
	})
}

// DisconnectApp removes the gateway's entry from src's file, keeping
// everything else as ConnectApp does. It reports whether there was one.
func DisconnectApp(src Source) (bool, error) {
	found := false
	err := patchApp(src, func(v *hujson.Value, key string) ([]patchOp, error) {
		servers := member(v.Value.(*hujson.Object), key)
		if servers == nil {
			return nil, nil
		}
		obj, ok := servers.Value.(*hujson.Object)
		if !ok || member(obj, GatewayEntry) == nil {
			return nil, nil
		}
		found = true
		return []patchOp{{Op: "remove", Path: "/" + key + "/" + GatewayEntry}}, nil
	})
	return found, err
}

type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// patchApp reads src's file, applies the patch fn returns and writes the
// result back atomically with a backup; no patch, no write.
func patchApp(src Source, fn func(v *hujson.Value, serversKey string) ([]patchOp, error)) error {
	data, err := os.ReadFile(src.File)
	perm := fs.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte("{}\n")
	case err != nil:
		return fmt.Errorf("reading %s: %w", src.File, err)
	default:
		if fi, err := os.Stat(src.File); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("%s is larger than %d MiB", src.File, MaxFileSize>>20)
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%v); fix it first", src.File, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return fmt.Errorf("%s must hold a JSON object; fix it first", src.File)
	}
	ops, err := fn(&v, src.Format.serversKey())
	if err != nil || len(ops) == 0 {
		return err
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	if err := v.Patch(patch); err != nil {
		return fmt.Errorf("changing %s: %w", src.File, err)
	}
	out := v.Pack()
	if json.Valid(data) {
		// Plain JSON (the apps that read it may not take comments or
		// trailing commas) stays plain JSON, indented as the apps write it.
		var buf bytes.Buffer
		if err := json.Indent(&buf, out, "", "  "); err == nil {
			out = append(buf.Bytes(), '\n')
		}
	}
	return WriteFileAtomic(src.File, out, perm)
}
