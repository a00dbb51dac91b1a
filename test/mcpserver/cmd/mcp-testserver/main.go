// Command mcp-testserver runs mcptray's MCP test server (package
// test/mcpserver) as a process, for tests and benchmarks that need a real
// child process or a real port. It is a test peer, never shipped.
// Called docker or podman (a copy of it by that name), it stands in for
// that client: its env tool says DOCKER_ARGS, the command line it was
// given.
//
//	mcp-testserver [-transport stdio|http|sse] [-addr 127.0.0.1:0] [misbehaviour flags]
//
// Over stdio, stdout carries only the protocol (plus garbage with
// -garbage-stdout). Over http and sse, the first line on stdout is the URL to
// connect to. It exits with status 0 on SIGINT or SIGTERM and, over stdio,
// when stdin closes; the crash tool makes it exit with status 3.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcptray/mcptray/test/mcpserver"
)

func main() {
	if b := filepath.Base(os.Args[0]); b == "docker" || b == "podman" {
		// A stand-in for docker's (or podman's) client, where no
		// Docker daemon runs:
		// it keeps the command line docker was given (the env tool says
		// DOCKER_ARGS), takes no flag of its own, and serves as the
		// image would.
		_ = os.Setenv("DOCKER_ARGS", strings.Join(os.Args[1:], " "))
		os.Args = os.Args[:1]
	}
	var opts mcpserver.Options
	transport := flag.String("transport", "stdio", "stdio, http (streamable HTTP at /mcp) or sse (/sse and /message)")
	addr := flag.String("addr", "127.0.0.1:0", "loopback address for http and sse")
	flag.StringVar(&opts.Name, "name", mcpserver.DefaultName, "server name reported in initialize")
	flag.IntVar(&opts.Tools, "tools", 0, "add n trivial tools t0…t<n-1>")
	flag.DurationVar(&opts.InitDelay, "init-delay", 0, "hold back the initialize answer this long")
	flag.BoolVar(&opts.HangInit, "hang-init", false, "never answer initialize")
	flag.BoolVar(&opts.HangPrompts, "hang-prompts", false, "never answer prompts/list")
	flag.StringVar(&opts.HangTool, "hang-tool", "", "name of a tool whose calls never answer (added if missing)")
	flag.BoolVar(&opts.GarbageStdout, "garbage-stdout", false, "stdio: write non-JSON-RPC lines to stdout among the messages")
	flag.IntVar(&opts.StderrFlood, "stderr-flood", 0, "write this many bytes of junk to stderr before serving")
	flag.IntVar(&opts.BigDescription, "big-description", 0, "add a tool big_description with a description this many characters long")
	flag.BoolVar(&opts.Bidi, "bidi", false, "add a tool whose name, description and output hide bidi controls and invisible characters")
	flag.BoolVar(&opts.CollidingTools, "colliding-tools", false, "add tools a.b and a_b, which collide once normalised")
	flag.BoolVar(&opts.App, "app", false, "add an MCP App: the tool show_app and its view "+mcpserver.AppURI)
	flag.BoolVar(&opts.AppUnlisted, "app-unlisted", false, "the same, with the view left out of resources/list")
	readFile := flag.String("read-home-file", "", "read this file in $HOME first, and say on stderr if that fails, as a server refused a file by its sandbox would (relative, so that the command line does not name it)")
	flag.BoolVar(&opts.Escape, "escape", false, "add the tool "+mcpserver.EscapeTool+", which tries the doors out of its sandbox as a hostile server would")
	flag.BoolVar(&opts.Fetch, "fetch", false, "add the tool "+mcpserver.FetchTool+", which GETs a URL through the proxy the environment names")
	flag.BoolVar(&opts.Post, "post", false, "add the tool "+mcpserver.PostTool+", which POSTs a text to a URL")
	flag.BoolVar(&opts.Backup, "backup", false, "add the tool "+mcpserver.BackupTool+", which POSTs a text to a URL under a name that says nothing of sending")
	flag.StringVar(&opts.ToolsFile, "tools-file", "", "add the tools of this JSON file; the tool "+mcpserver.ReloadTool+" reads it again")
	flag.StringVar(&opts.PromptsFile, "prompts-file", "", "add the prompts of this JSON file; the tool "+mcpserver.ReloadTool+" reads it again")
	writeFile := flag.String("write-file", "", "write this file first (a relative path is in the folder it runs in), and say on stderr if that fails, as a server refused by its sandbox would")
	fetchURL := flag.String("fetch-url", "", "GET this URL first, through the proxy the environment names, and say on stderr how it went")
	say := flag.String("say", "", "print this on stderr first (\\n between lines), as a hostile server that forges refusals would")
	printFile := flag.String("print-file", "", "print what this file holds on stderr first, or why it could not be read")
	flag.Parse()
	if *printFile != "" {
		if b, err := os.ReadFile(*printFile); err != nil {
			fmt.Fprintf(os.Stderr, "mcp-testserver: %v\n", err)
		} else {
			fmt.Fprintf(os.Stderr, "mcp-testserver: %s holds %q\n", *printFile, b)
		}
	}
	if *say != "" {
		fmt.Fprintln(os.Stderr, strings.ReplaceAll(*say, `\n`, "\n"))
	}
	if *writeFile != "" {
		if err := os.WriteFile(*writeFile, []byte("written by mcp-testserver\n"), 0o600); err != nil {
			fmt.Fprintf(os.Stderr, "mcp-testserver: %v\n", err)
		}
	}
	if *fetchURL != "" {
		if resp, err := http.Get(*fetchURL); err != nil {
			fmt.Fprintf(os.Stderr, "mcp-testserver: %v\n", err)
		} else {
			resp.Body.Close()
			fmt.Fprintf(os.Stderr, "mcp-testserver: GET %s: %s\n", *fetchURL, resp.Status)
		}
	}
	if *readFile != "" {
		if _, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), *readFile)); err != nil {
			fmt.Fprintf(os.Stderr, "mcp-testserver: %v\n", err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcpserver.Serve(ctx, opts, *transport, *addr, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "mcp-testserver: %v\n", err)
		stop()
		os.Exit(1)
	}
}
