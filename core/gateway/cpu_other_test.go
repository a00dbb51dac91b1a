//go:build !unix

package gateway

import (
	"testing"
	"time"
)

// processCPU is not measured here: the benchmarks report 0.
func processCPU(*testing.B) time.Duration { return 0 }
