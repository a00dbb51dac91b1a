package statefile

import (
	"encoding/json"
	"maps"

	"github.com/mcptray/mcptray/core/config"
)

// Replace makes vals the whole state, in memory and in the file, at once,
// and returns what kept the file from being written: for a state whose
// every change must be on disk before mcptray acts on it, and that holds
// what this mcptray decided, not news to lay over another's (the data
// folders' owners). What is not in vals is no longer kept.
func (f *File[V]) Replace(vals map[string]V) error {
	f.write.Lock()
	defer f.write.Unlock()
	f.mu.Lock()
	f.vals = f.bound(maps.Clone(vals))
	f.dirty = false
	all := maps.Clone(f.vals)
	f.mu.Unlock()
	if f.o.Path == "" {
		return nil
	}
	b, err := json.MarshalIndent(map[string]any{"version": version, f.o.Field: all}, "", "  ")
	if err != nil {
		return err
	}
	return config.ReplaceFile(f.o.Path, append(b, '\n'), 0o600)
}
