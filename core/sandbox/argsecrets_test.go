package sandbox

import (
	"strings"
	"testing"
)

// TestDescribeArgSecrets: a secret on a server's command line is said,
// with who can read it there in each mode, and none is said for none.
func TestDescribeArgSecrets(t *testing.T) {
	if got := DescribeArgSecrets(nil, &Policy{}); got != "" {
		t.Errorf("no secret: %q", got)
	}
	for _, c := range []struct {
		p    *Policy
		want string
	}{
		{nil, "every program of yours can read it"},
		{&Policy{Namespaces: true}, "only its own processes can read it"},
		{&Policy{}, "every program of yours and every other server can read it"},
	} {
		got := DescribeArgSecrets([]string{"TOKEN"}, c.p)
		if !strings.Contains(got, "the secret TOKEN") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}
