package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// lockWait is how long an edit waits for another mcptray process (the app,
// a command in a terminal) to finish its edit of the same file.
const lockWait = 10 * time.Second

// lockFile takes the lock beside path that every mcptray process takes
// before it reads, changes and writes that file, so that two edits made at
// the same moment both survive. The lock file holds nothing.
func lockFile(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	fl := flock.New(path+".lock", flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 20*time.Millisecond)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("another mcptray has been changing %s for %s; try again in a moment", path, lockWait)
	}
	return func() { _ = fl.Unlock() }, nil
}
