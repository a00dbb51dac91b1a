package control

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/core/config"
)

// The control key (see the package doc): 32 random bytes, written in hex
// as the running mcptray starts, in a file beside the socket that only the
// person's own programs outside a sandbox can read.

// keyBytes is the key's length before it is written in hex.
const keyBytes = 32

// KeyPath is where the running mcptray keeps its control key.
func KeyPath(p config.Paths) string { return filepath.Join(p.ControlDir(), "control.key") }

// writeKey makes a fresh key and writes it to KeyPath, mode 0600, all at
// once: a temporary file beside it, renamed over the one a stopped mcptray
// left. A client never reads half a key.
func writeKey(p config.Paths) ([]byte, error) {
	raw := make([]byte, keyBytes)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("making the control key: %w", err)
	}
	key := []byte(hex.EncodeToString(raw))
	path := KeyPath(p)
	f, err := os.CreateTemp(filepath.Dir(path), ".control.key-*") // 0600
	if err != nil {
		return nil, fmt.Errorf("writing the control key: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(key)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600) // CreateTemp's already; said for the reader
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("writing the control key: %w", err)
	}
	keep(path)
	return key, nil
}

// readKey reads the running mcptray's control key. A program that may
// not read mcptray's runtime folder (one in a sandbox) cannot.
func readKey(p config.Paths) (string, error) {
	b, err := os.ReadFile(KeyPath(p))
	if err != nil {
		return "", err
	}
	key := strings.TrimSpace(string(b))
	if len(key) != 2*keyBytes {
		return "", fmt.Errorf("%s holds no key", KeyPath(p))
	}
	return key, nil
}

// keyMatches says, in constant time, whether an Authorization header's
// value carries key. With no key (an endpoint serving a listener that
// wrote none), nothing matches.
func keyMatches(header string, key []byte) bool {
	got, ok := strings.CutPrefix(header, keyScheme)
	if !ok || len(key) == 0 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), key) == 1
}

// keyScheme begins the Authorization header's value: "Bearer KEY".
const keyScheme = "Bearer "
