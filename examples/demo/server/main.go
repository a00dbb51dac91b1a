// Command server is mcptray's demo MCP server (package core/demo), run
// from this folder's .mcp.json with `go run ./server`, for a clone of
// mcptray's source. An installed mcptray runs the same server itself
// ("Try the demo" on the window's welcome).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcptray/mcptray/core/demo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := demo.Serve(ctx, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo server:", err)
		os.Exit(1)
	}
}
