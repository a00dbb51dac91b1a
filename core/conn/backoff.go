package conn

import (
	"math/rand/v2"
	"time"
)

// backoff is how long to wait after failures failed attempts in a row:
// doubling from lo up to hi, less up to a fifth of jitter so that servers
// that failed together do not all retry together.
func backoff(failures int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 1; i < failures && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	return d - time.Duration(rand.Int64N(int64(d/5)+1))
}
