// Command mcptray keeps a person's MCP servers in one place: with no
// arguments it opens the app; with a command (mcptray help lists them) it
// works from the terminal.
package main

import (
	// Its init must run before Fyne's; see its doc comment.
	"github.com/mcptray/mcptray/app/posixlocale"

	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/cli"
	"github.com/mcptray/mcptray/core/config"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx)
	stop()
	os.Exit(code)
}

func run(ctx context.Context) int {
	if len(os.Args) > 1 {
		posixlocale.Restore()
		return cli.Run(ctx, os.Args[1:], cli.Env{
			Stdout: os.Stdout, Stderr: os.Stderr,
			Stdin: os.Stdin, Interactive: isTerminal(os.Stdin),
		})
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	paths, err := config.DefaultPaths()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptray:", err)
		return 1
	}
	return app.Run(ctx, logger, config.NewLoader(paths))
}

// isTerminal reports whether f is a terminal, where a person can answer a
// server's questions. (/dev/null is a character device too, so the file
// mode alone would say yes.)
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
