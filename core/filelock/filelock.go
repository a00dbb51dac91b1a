// Package filelock is the one lock every mcptray process takes before it
// changes something they share: a config file, a server's sign-in. It is a
// thin layer on gofrs/flock (flock on Unix, LockFileEx on Windows).
//
// A lock file holds nothing; it must never hold a secret.
package filelock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// poll is how often a waiting caller looks at the lock again: there is no
// event for another process letting go.
const poll = 20 * time.Millisecond

// Lock takes the lock at path, creating its folder and the file as needed,
// and waits until it is free or ctx ends. It returns the unlock.
//
// Each call opens the file anew, so two holders in one process exclude each
// other just as two processes do.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the lock folder: %w", err)
	}
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLockContext(ctx, poll)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, fmt.Errorf("locking %s: %w", path, err)
	case !ok:
		return nil, fmt.Errorf("locking %s: it stayed taken", path)
	}
	return func() { _ = fl.Unlock() }, nil
}
