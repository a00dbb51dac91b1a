package config

import (
	"context"
	"os/exec"
	"sync"
	"time"
)

// darwinUserTempDir is macOS's per-user temporary folder
// (confstr(_CS_DARWIN_USER_TEMP_DIR), /var/folders/…/T), which launchd
// gives as TMPDIR to the programs it starts: the same for every program of
// the person's, whatever its environment. mcptray is built without cgo, so
// it asks getconf, once per process; "" when that fails.
var darwinUserTempDir = sync.OnceValue(func() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/getconf", "DARWIN_USER_TEMP_DIR").Output()
	if err != nil {
		return ""
	}
	return getconfDir(out)
})
