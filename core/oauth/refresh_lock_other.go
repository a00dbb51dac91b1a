//go:build !unix && !windows

package oauth

import "os"

// tryLock on systems with neither flock nor LockFileEx: the in-process
// mutex is all there is.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }
