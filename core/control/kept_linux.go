package control

import "os"

// keep marks a file of the running mcptray, 0600, to be kept by the
// cleaners of the folder it is in, however long mcptray runs: the sticky
// bit, which systemd-tmpfiles leaves alone, as the XDG base directory spec
// asks of files in $XDG_RUNTIME_DIR (and /tmp, where they are without one,
// is cleaned of files unused for ten days). A cleaned instance lock would
// let the next mcptray take a new one and run beside this one. It is a
// precaution: where the bit cannot be set, mcptray runs all the same.
func keep(path string) { _ = os.Chmod(path, 0o600|os.ModeSticky) }
