//go:build !linux

package keychain

import (
	"errors"
	"testing"

	"github.com/zalando/go-keyring"
)

// chunkAccounts lists the chunk items stored for account. These keychains
// cannot be searched through go-keyring, so it looks for each index up to
// more than the tests' longest value takes.
func chunkAccounts(t *testing.T, service, account string) []string {
	t.Helper()
	var names []string
	for _, slot := range []byte{'a', 'b'} {
		for i := 1; i <= 100; i++ {
			name := chunkAccount(account, slot, i)
			_, err := keyring.Get(service, name)
			if errors.Is(err, keyring.ErrNotFound) {
				continue
			}
			if err != nil {
				t.Fatalf("looking for %s: %v", name, err)
			}
			names = append(names, name)
		}
	}
	return names
}
