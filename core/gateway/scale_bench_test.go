package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
)

// scaleRig is a rig with n more servers, s00…, each with tools trivial
// tools besides the test server's own, waited on until every one is
// connected and offered.
func scaleRig(b *testing.B, n, tools int) *rig {
	b.Helper()
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("s%02d", i)] = map[string]any{"command": testServerBin, "args": []string{"-name", fmt.Sprintf("s%02d", i), "-tools", fmt.Sprint(tools)}}
	}
	r := newRig(b, servers)
	ctx, cancel := context.WithTimeout(context.Background(), 4*deadline)
	defer cancel()
	notices, _ := r.svc.Subscribe(ctx)
	for {
		snap, err := r.svc.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		connected := 0
		for _, sv := range snap.Servers {
			if sv.State == conn.Connected && len(sv.Tools) > 0 && !sv.BuiltIn() {
				connected++
			}
		}
		if connected == n+1 {
			break
		}
		select {
		case <-ctx.Done():
			b.Fatalf("%d of %d servers connected in %s", connected, n+1, 4*deadline)
		case <-notices:
		}
	}
	if err := r.gw.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkListTools100x100 is tools/list through the HTTP face with 100
// servers of 100 trivial tools each (and the test server "a"): the time an
// app waits for the list's bytes (goal: at most 50 ms at p50; the app's own
// parsing of them is not counted), their size, and the heap that the
// running service and gateway hold for those servers.
//
//	go test -run '^$' -bench ListTools100x100 -benchtime 50x ./core/gateway
func BenchmarkListTools100x100(b *testing.B) {
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := scaleRig(b, 100, 100)
	session := r.initialize(b, http.StatusOK)
	var size int
	measureCalls(b, func() error {
		resp, err := http.DefaultClient.Do(r.request(b, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"mcp__s99__t99"`)) {
			return fmt.Errorf("tools/list: %s, %d bytes without mcp__s99__t99", resp.Status, len(body))
		}
		size = len(body)
		return nil
	})
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(size)/(1<<20), "list-MB")
	b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "heap-MB")
}

// BenchmarkSharedServers is K = 3 apps × N = 10 servers: three apps, each
// on its own session of the HTTP face, call every server's pid tool, and
// the benchmark fails unless the calls reached exactly N server processes.
// It reports that number and the time of one round of 3 × 10 calls.
//
//	go test -run '^$' -bench SharedServers -benchtime 20x ./core/gateway
func BenchmarkSharedServers(b *testing.B) {
	const apps, servers = 3, 10
	r := scaleRig(b, servers-1, 0) // "a" is the tenth
	var clients []func(tool string) (string, error)
	for range apps {
		c := r.client()
		clients = append(clients, func(tool string) (string, error) {
			req := mcp.CallToolRequest{}
			req.Params.Name = tool
			res, err := c.CallTool(context.Background(), req)
			if err != nil {
				return "", err
			}
			if res.IsError || len(res.Content) == 0 {
				return "", fmt.Errorf("%s failed: %+v", tool, res.Content)
			}
			return strings.TrimSpace(res.Content[0].(mcp.TextContent).Text), nil
		})
	}
	tools := []string{"mcp__a__pid"}
	for i := range servers - 1 {
		tools = append(tools, fmt.Sprintf("mcp__s%02d__pid", i))
	}
	pids := map[string]bool{}
	round := func() error {
		for _, call := range clients {
			for _, tool := range tools {
				pid, err := call(tool)
				if err != nil {
					return err
				}
				pids[pid] = true
			}
		}
		return nil
	}
	measureCalls(b, round)
	if len(pids) != servers {
		b.Fatalf("%d apps calling %d servers reached %d server processes, want %d", apps, servers, len(pids), servers)
	}
	b.ReportMetric(float64(len(pids)), "server-processes")
}
