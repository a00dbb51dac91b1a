package config

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/core/filelock"
)

// lockWait is how long an edit waits for another mcptray process (the app,
// a command in a terminal) to finish its edit of the same file.
const lockWait = 10 * time.Second

// lockFile takes the lock beside path that every mcptray process takes
// before it reads, changes and writes that file, so that two edits made at
// the same moment both survive.
func lockFile(path string) (unlock func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	unlock, err = filelock.Lock(ctx, path+".lock")
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("another mcptray has been changing %s for %s; try again in a moment", path, lockWait)
	}
	return unlock, err
}
