package host

import "os"

// terminate ends a process: Windows has no polite signal for a GUI one.
func terminate(p *os.Process) error { return p.Kill() }
