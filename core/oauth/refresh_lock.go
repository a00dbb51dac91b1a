package oauth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// lockPoll is how often a waiting refresh looks at the lock again.
const lockPoll = 25 * time.Millisecond

// lockRefresh takes the server's refresh lock, shared by every mcptray
// process: a refresh token used twice can make the authorization server
// revoke the whole token family, signing the person out everywhere. The
// lock is a file in dir named for the server's key (flock on Unix,
// LockFileEx on Windows, through gofrs/flock); it holds no secret. An empty
// dir means no cross-process lock (the caller's mutex suffices). It waits
// until the lock is free or ctx ends, and returns the unlock.
func lockRefresh(ctx context.Context, dir, key string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the lock folder: %w", err)
	}
	// Each Flock opens the file anew, so two in one process exclude each
	// other as two processes do.
	fl := flock.New(filepath.Join(dir, "refresh-"+key+".lock"), flock.SetPermissions(0o600))
	ok, err := fl.TryLockContext(ctx, lockPoll)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("waiting for another mcptray to finish refreshing: %w", ctx.Err())
	case err != nil:
		return nil, fmt.Errorf("taking the refresh lock: %w", err)
	case !ok:
		return nil, fmt.Errorf("taking the refresh lock: it stayed taken")
	}
	return func() { _ = fl.Unlock() }, nil
}
