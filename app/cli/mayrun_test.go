package cli

import (
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
)

// TestMayRun pins the words list prints for whether a server may run.
func TestMayRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    service.Server
		want string
	}{
		{service.Server{Approval: config.NotNeeded}, "ready"},
		{service.Server{Approval: config.Approved}, "ready"},
		{service.Server{Approval: config.Undecided}, "awaiting approval"},
		{service.Server{Approval: config.Denied}, "denied"},
		{service.Server{Approval: config.NotNeeded, Suppressed: "blocked"}, "not running"},
		{service.Server{Approval: config.Undecided, Suppressed: "blocked"}, "not running"},
		{service.Server{Approval: config.Approved, Disabled: true}, "disabled"},
		{service.Server{Approval: config.Undecided, Disabled: true}, "disabled"},
	}
	for _, tt := range tests {
		if got := mayRun(tt.s); got != tt.want {
			t.Errorf("mayRun(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
