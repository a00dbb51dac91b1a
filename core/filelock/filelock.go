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

// TryLock takes the lock at path if it is free, without waiting: ok is
// false when another holder has it. The lock lasts until unlock is called
// or the process ends, which makes it the mark of a running instance that
// no crash can leave behind.
func TryLock(path string) (unlock func(), ok bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("creating the lock folder: %w", err)
	}
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err = fl.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	return func() { _ = fl.Unlock() }, true, nil
}
