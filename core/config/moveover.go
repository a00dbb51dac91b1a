package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// Movable returns the servers of src's file that mcptray already runs from
// another config (they give way to the same server, by Signature, in a
// more trusted place): taking them out of src's file loses nothing once
// the app uses mcptray's gateway. Servers only src's file has are not
// movable (import them into mcptray first), nor are a project's servers in
// Claude Code's file, which belong to that project.
func Movable(set *Set, src Source) []Entry {
	var out []Entry
	for _, e := range set.Suppressed {
		if e.Origin.File == src.File && e.Origin.Folder == "" && e.SuppressedBy != "" {
			out = append(out, e)
		}
	}
	return out
}

// ConnectAppMoving is ConnectApp that also takes the servers named move
// (as written in src's file) out of it, in the same write: the file as it
// was is kept as FILE.bak, and everything else in it stays as written,
// comments included.
func ConnectAppMoving(src Source, command string, move []string) error {
	entry := map[string]any{"command": command, "args": GatewayArgs(src)}
	if src.Format == VSCode {
		entry["type"] = "stdio"
	}
	return patchApp(src, func(v *hujson.Value, key string) ([]patchOp, error) {
		servers := member(v.Value.(*hujson.Object), key)
		var ops []patchOp
		switch {
		case servers == nil:
			if len(move) > 0 {
				return nil, fmt.Errorf("%s has no servers to move", src.File)
			}
			ops = append(ops, patchOp{Op: "add", Path: "/" + key, Value: map[string]any{}})
		default:
			obj, ok := servers.Value.(*hujson.Object)
			if !ok {
				return nil, fmt.Errorf("%s: %q is not an object; fix it first", src.File, key)
			}
			for _, name := range move {
				if name == GatewayEntry {
					continue
				}
				if member(obj, name) == nil {
					return nil, fmt.Errorf("%s has no server %q to move (it changed meanwhile?)", src.File, name)
				}
				ops = append(ops, patchOp{Op: "remove", Path: "/" + key + "/" + pointerToken(name)})
			}
		}
		return append(ops, patchOp{Op: "add", Path: "/" + key + "/" + GatewayEntry, Value: entry}), nil
	})
}

// pointerToken escapes a name for a JSON pointer (RFC 6901).
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// AppConnected reports whether src's file holds the gateway's entry, as
// ConnectApp writes it. A missing file is not connected.
func AppConnected(src Source) (bool, error) {
	data, err := os.ReadFile(src.File)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", src.File, err)
	}
	if len(data) > MaxFileSize {
		return false, fmt.Errorf("%s is larger than %d MiB", src.File, MaxFileSize>>20)
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return false, fmt.Errorf("%s is not valid JSON (%v)", src.File, err)
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return false, nil
	}
	servers := member(root, src.Format.serversKey())
	if servers == nil {
		return false, nil
	}
	obj, ok := servers.Value.(*hujson.Object)
	return ok && member(obj, GatewayEntry) != nil, nil
}

// AppFound reports whether the app whose config src is seems installed
// here: its config file exists, or the folder it would be in (when that
// is the app's own, not the home folder).
func AppFound(src Source, home string) bool {
	if _, err := os.Stat(src.File); err == nil {
		return true
	}
	dir := filepath.Dir(src.File)
	if filepath.Clean(dir) == filepath.Clean(home) {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
