package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/service"
)

// BenchmarkCallLayers splits a tools/call through the gateway into its
// layers, in one process: an mcp-go client straight to the test server over
// stdio (via=mcp-go), the service's Call (via=service: the connection
// manager's client to the same kind of server), the gateway's MCP server
// in front of that without a transport (via=gateway-in-process), the
// stdio face's session on a stream, as mcptray stdio's pipes reach it
// (via=stream), and the gateway's HTTP face (via=http-face, with a bare
// HTTP/1.1 client). It reports
// each one's p50 and p99, and the CPU this process spent per call (cpu-µs),
// which this shared machine's noise moves far less than the wall clock.
//
//	go test -run '^$' -bench CallLayers -benchtime 3000x ./core/gateway
func BenchmarkCallLayers(b *testing.B) {
	r := newRig(b, nil)
	b.Run("via=mcp-go", func(b *testing.B) {
		c, err := client.NewStdioMCPClient(testServerBin, nil, "-name", "direct")
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = legacy
		if _, err := c.Initialize(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		call := mcp.CallToolRequest{}
		call.Params.Name = "echo"
		call.Params.Arguments = map[string]any{"text": "hi"}
		measureCalls(b, func() error { _, err := c.CallTool(context.Background(), call); return err })
	})
	b.Run("via=service", func(b *testing.B) {
		req := service.CallRequest{Server: "a", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}
		measureCalls(b, func() error { _, err := r.svc.Call(context.Background(), req); return err })
	})
	b.Run("via=gateway-in-process", func(b *testing.B) {
		msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`)
		measureCalls(b, func() error {
			out, err := json.Marshal(r.gw.MCPServer().HandleMessage(context.Background(), msg))
			if err == nil && !strings.Contains(string(out), `"hi"`) {
				err = fmt.Errorf("answered %s", out)
			}
			return err
		})
	})
	b.Run("via=stream", func(b *testing.B) {
		a := r.stream()
		out := bufio.NewReader(a.out)
		send := func(msg string) (string, error) {
			if _, err := io.WriteString(a.in, msg+"\n"); err != nil {
				return "", err
			}
			return out.ReadString('\n')
		}
		if _, err := send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacy + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`); err != nil {
			b.Fatal(err)
		}
		io.WriteString(a.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		measureCalls(b, func() error {
			line, err := send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`)
			if err == nil && !strings.Contains(line, `"hi"`) {
				err = fmt.Errorf("answered %s", line)
			}
			return err
		})
	})
	b.Run("via=http-face", func(b *testing.B) {
		// A bare client: HTTP/1.1 written on one kept connection and the
		// answer read off it, so that the figure is the face's side.
		url := r.face.Status().URL
		u, err := neturl.Parse(url)
		if err != nil {
			b.Fatal(err)
		}
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		rd := bufio.NewReader(c)
		post := func(session, body string) (string, error) {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+r.token)
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("Mcp-Protocol-Version", legacy)
			}
			if err := req.Write(c); err != nil {
				return "", err
			}
			resp, err := http.ReadResponse(rd, req)
			if err != nil {
				return "", err
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(out), `"hi"`) && session != "" && strings.Contains(body, "tools/call") {
				return "", fmt.Errorf("answered %s", out)
			}
			return resp.Header.Get("Mcp-Session-Id"), nil
		}
		sess, err := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		if err != nil {
			b.Fatal(err)
		}
		post(sess, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		measureCalls(b, func() error {
			_, err := post(sess, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`)
			return err
		})
	})
}

// goroutinesCreated is how many goroutines this process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func measureCalls(b *testing.B, fn func() error) {
	for range 50 {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	took := make([]time.Duration, 0, b.N)
	cpu, spawned := processCPU(b), goroutinesCreated()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU(b)-cpu).Microseconds())/float64(b.N), "cpu-µs")
	b.ReportMetric(float64(goroutinesCreated()-spawned)/float64(b.N), "goroutines/op")
	slices.Sort(took)
	at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
