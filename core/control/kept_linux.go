package control

import "os"

// kept is the mode bit that keeps the instance lock and the socket from
// the cleaners of the folder they are in, however long mcptray runs: the
// sticky bit, which systemd-tmpfiles leaves alone, as the XDG base
// directory spec asks of files in $XDG_RUNTIME_DIR (and /tmp, where they
// are without one, is cleaned of files unused for ten days). A cleaned
// lock would let the next mcptray take a new one and run beside this one.
const kept = os.ModeSticky
