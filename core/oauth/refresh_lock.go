package oauth

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mcptray/mcptray/core/filelock"
)

// lockRefresh takes the server's refresh lock, shared by every mcptray
// process: a refresh token used twice can make the authorization server
// revoke the whole token family, signing the person out everywhere. The
// lock is a file in dir named for the server's key; it holds no secret. An
// empty dir means no cross-process lock (the caller's mutex suffices). It
// waits until the lock is free or ctx ends, and returns the unlock.
func lockRefresh(ctx context.Context, dir, key string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	unlock, err := filelock.Lock(ctx, filepath.Join(dir, "refresh-"+key+".lock"))
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("waiting for another mcptray to finish refreshing: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("taking the refresh lock: %w", err)
	}
	return unlock, nil
}
