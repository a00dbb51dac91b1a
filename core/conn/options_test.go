package conn

import (
	"testing"
	"time"
)

// TestPromisedNumbers pins the numbers mcptray promises, as literals: a
// change to a constant must be a change to this test too.
func TestPromisedNumbers(t *testing.T) {
	t.Parallel()
	var o Options
	o.setDefaults()
	for _, c := range []struct {
		what      string
		got, want time.Duration
	}{
		{"connect timeout", o.ConnectTimeout, 30 * time.Second},
		{"request timeout", o.RequestTimeout, 60 * time.Second},
		{"tool call timeout", o.ToolCallTimeout, 27*time.Hour + 46*time.Minute + 40*time.Second},
		{"needs-auth TTL", NeedsAuthTTL, 15 * time.Minute},
		{"least backoff", o.MinBackoff, time.Second},
		{"most backoff", o.MaxBackoff, 5 * time.Minute},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if o.MaxLocal != 3 || o.MaxRemote != 20 {
		t.Errorf("windows of %d local and %d remote servers, want 3 and 20", o.MaxLocal, o.MaxRemote)
	}
}
