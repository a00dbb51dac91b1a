package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// shutdownGrace bounds how long Serve waits for HTTP connections to close.
const shutdownGrace = 5 * time.Second

// Serve runs the server described by opts until ctx ends, over transport:
//
//   - "stdio": JSON-RPC lines on stdin and stdout; returns when stdin closes.
//   - "http": streamable HTTP at /mcp on addr.
//   - "sse": the legacy SSE transport at /sse, posting to /message, on addr.
//
// For http and sse, addr must be a loopback address ("127.0.0.1:0" picks a
// free port; "" means that), and the first line Serve writes to stdout is the
// URL a client connects to; stdin is not used. A server stopped by ctx
// returns nil.
//
// The stdio transport uses mcp-go's process-wide stdio session, so run at
// most one stdio Serve per process.
func Serve(ctx context.Context, opts Options, transport, addr string, stdin io.Reader, stdout io.Writer) error {
	if transport != "stdio" && transport != "http" && transport != "sse" {
		return fmt.Errorf("unknown transport %q: want stdio, http or sse", transport)
	}
	if opts.StderrFlood > 0 {
		if err := flood(opts.stderr(), opts.StderrFlood); err != nil {
			return err
		}
	}
	s := New(opts)
	if transport == "stdio" {
		return serveStdio(ctx, s, opts, stdin, stdout)
	}
	return serveHTTP(ctx, s, opts, transport, addr, stdout)
}

func serveStdio(ctx context.Context, s *server.MCPServer, opts Options, stdin io.Reader, stdout io.Writer) error {
	if opts.GarbageStdout {
		g := &garbageWriter{w: stdout}
		if err := g.garbage(); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
		stdout = g
	}
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(opts.stderr(), "mcp-testserver: ", 0))
	// mcp-go's default of 5 workers would make concurrent sleep calls
	// measure its pool rather than the client; 100 is its maximum.
	server.WithWorkerPoolSize(100)(stdio)
	err := stdio.Listen(ctx, stdin, stdout)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func serveHTTP(ctx context.Context, s *server.MCPServer, opts Options, transport, addr string, stdout io.Writer) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if err := checkLoopback(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	base := "http://" + ln.Addr().String()

	// Requests inherit ctx, so stopping the server also releases handlers
	// that hang on purpose (HangInit, HangTool) and open SSE streams.
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	var url string
	var shutdown func(context.Context) error
	if transport == "http" {
		h := server.NewStreamableHTTPServer(s,
			server.WithStreamableHTTPServer(srv),
			server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(opts.stderr(), nil))),
		)
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		srv.Handler = mux
		url, shutdown = base+"/mcp", h.Shutdown
	} else {
		h := server.NewSSEServer(s, server.WithBaseURL(base), server.WithHTTPServer(srv))
		srv.Handler = h
		url, shutdown = base+"/sse", h.Shutdown
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if _, err := fmt.Fprintln(stdout, url); err != nil {
		srv.Close()
		<-served
		return fmt.Errorf("writing the url: %w", err)
	}

	select {
	case err := <-served:
		return fmt.Errorf("serving %s: %w", url, err)
	case <-ctx.Done():
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := shutdown(stopCtx); err != nil {
		srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// checkLoopback refuses any address a client elsewhere could reach.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("refusing to listen on %q: only loopback addresses are allowed", addr)
	}
	return nil
}
