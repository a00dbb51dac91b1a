package oauth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lockPoll is how often a waiting refresh looks at the lock again.
const lockPoll = 25 * time.Millisecond

// lockRefresh takes the server's refresh lock, shared by every mcptray
// process: a refresh token used twice can make the authorization server
// revoke the whole token family, signing the person out everywhere. The
// lock is a file in dir named for the server's key; it holds no secret.
// An empty dir means no cross-process lock (the caller's mutex suffices).
// It waits until the lock is free or ctx ends, and returns the unlock.
func lockRefresh(ctx context.Context, dir, key string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the lock folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "refresh-"+key+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the refresh lock: %w", err)
	}
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("taking the refresh lock: %w", err)
		}
		if ok {
			return func() {
				_ = unlock(f)
				f.Close()
			}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another mcptray to finish refreshing: %w", ctx.Err())
		case <-t.C:
		}
	}
}
