// Package sandboxtest helps tests of what depends on the sandbox's folder
// names: two server names that sandbox.FolderName gives one folder, found
// as an attacker would find them.
package sandboxtest

import (
	"crypto/sha256"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/core/sandbox"
)

// CollidingNames are two server names with one data folder: names that
// differ only in characters sandbox.FolderName replaces clean to one, and
// among some hundred thousand of them two hashes agree (a birthday search
// over 32 bits, about 0.2 s, done once per test program).
func CollidingNames(t testing.TB) (string, string) {
	t.Helper()
	a, b := collision()
	if a == "" {
		t.Fatal("no two names share a folder")
	}
	if sandbox.FolderName(a) != sandbox.FolderName(b) {
		t.Fatalf("%q and %q: one hash, two folders", a, b)
	}
	return a, b
}

var collision = sync.OnceValues(func() (string, string) {
	seen := map[[4]byte]string{}
	for i := 0; i < 1<<24; i++ {
		var b strings.Builder
		b.WriteString("notes")
		for bit := range 24 {
			b.WriteByte("!#"[i>>bit&1])
		}
		name := b.String()
		sum := sha256.Sum256([]byte(name))
		key := [4]byte(sum[:4])
		if other, ok := seen[key]; ok {
			return other, name
		}
		seen[key] = name
	}
	return "", ""
})
