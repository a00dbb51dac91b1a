package conn

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
)

// BenchmarkConnect30Slow connects 30 stdio servers that each take 300 ms to
// initialize. A 3-wide sliding window cannot do better than 30/3 × 300 ms =
// 3.0 s; the ratio to that bound is the figure that matters (goal ≤ 1.1).
func BenchmarkConnect30Slow(b *testing.B) {
	const n, delay = 30, 300 * time.Millisecond
	bound := time.Duration(n/3) * delay
	var entries []config.Entry
	for i := range n {
		entries = append(entries, stdioEntry(fmt.Sprintf("s%02d", i), "-init-delay", delay.String()))
	}
	for b.Loop() {
		m := New(Options{BaseEnv: os.Environ()})
		start := time.Now()
		if err := m.Apply(setOf(entries...)); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := m.WaitSettled(ctx); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		cancel()
		for _, s := range m.Report().Servers {
			if s.Status.State != Connected {
				b.Fatalf("%s is %s: %s", s.Name, s.Status.State, s.Status.Err)
			}
		}
		b.ReportMetric(took.Seconds(), "s/all-connected")
		b.ReportMetric(float64(took)/float64(bound), "ratio-to-3s")
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
}

var echoArgs = json.RawMessage(`{"text":"ping"}`)

// BenchmarkCallTool is one tools/call round trip to a local stdio server,
// through the connection manager (via=manager) and from a bare mcp-go
// client (via=bare), the baseline the manager's overhead is measured
// against (goal: manager ≤ 1.1 × bare). Compare with
// benchstat -col /via.
func BenchmarkCallTool(b *testing.B) {
	b.Run("via=bare", func(b *testing.B) {
		c, err := client.NewStdioMCPClient(testServerBin, os.Environ(), "-name", "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = ProtocolVersion
		if _, err := c.Initialize(ctx, init); err != nil {
			b.Fatal(err)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": "ping"}
		for b.Loop() {
			if _, err := c.CallTool(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("via=manager", func(b *testing.B) {
		m := New(Options{BaseEnv: os.Environ()})
		defer m.Close()
		if err := m.Apply(setOf(stdioEntry("bench"))); err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if err := m.WaitSettled(ctx); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := m.CallTool(ctx, "bench", "echo", echoArgs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
