//go:build unix

package sets

import "syscall"

// nonBlock opens without waiting: a named pipe put where the file was
// would otherwise keep mcptray waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
