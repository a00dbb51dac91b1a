package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// gatewayInfo is what mcptray gateway --json prints: a promise to scripts.
type gatewayInfo struct {
	// Running says whether mcptray runs now; when not, URL is where the
	// HTTP face will listen.
	Running bool   `json:"running"`
	URL     string `json:"url,omitempty"`
	// Auth is "bearer" (send Authorization: Bearer TOKEN) or "none".
	Auth    string `json:"auth,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Token is there only with --show-token.
	Token string    `json:"token,omitempty"`
	Stdio stdioInfo `json:"stdio"`
	// Apps are the AI apps here and how each stands with the gateway,
	// while mcptray runs.
	Apps []service.App `json:"apps,omitempty"`
}

// stdioInfo is the command an app runs to reach the gateway over stdio.
type stdioInfo struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func runGateway(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) > 0 && args[0] == "search" {
		return runGatewaySearch(ctx, c, args[1:])
	}
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	showToken := fs.Bool("show-token", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("gateway takes no arguments")
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "mcptray"
	}
	info := gatewayInfo{Stdio: stdioInfo{Command: exe, Args: []string{"stdio"}}}
	cl, err := control.DialAs(ctx, c.paths, control.CommandLine)
	switch {
	case err == nil:
		defer cl.Close()
		st, err := cl.GatewayStatus(ctx)
		if err != nil {
			return fmt.Errorf("asking the running mcptray about its gateway: %w", err)
		}
		info.Running, info.URL, info.Auth, info.Problem = true, st.URL, st.Auth, st.Problem
		if apps, err := cl.Apps(ctx); err == nil {
			info.Apps = apps
		}
	case errors.Is(err, control.ErrNotRunning):
		addr, err := gateway.KeptAddr(c.paths)
		if err != nil {
			return err
		}
		if addr != "" {
			info.URL, info.Auth = gateway.URL(addr), "bearer"
		}
	default:
		return err
	}
	if *showToken {
		b, done, err := c.backend(ctx, connectNone)
		if err != nil {
			return err
		}
		info.Token, err = b.GatewayToken(ctx)
		done()
		if err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(c.Stdout, info, true)
	}
	w := c.Stdout
	fmt.Fprintf(w, "Apps that start a command: %s stdio\n", exe)
	switch {
	case info.Problem != "":
		fmt.Fprintf(w, "Apps that speak HTTP: not available: %s\n", info.Problem)
	case info.URL == "":
		fmt.Fprintln(w, "Apps that speak HTTP: the gateway gets its address the first time mcptray runs")
	default:
		fmt.Fprintf(w, "Apps that speak HTTP: %s\n", info.URL)
		if info.Auth == "none" {
			fmt.Fprintln(w, "  No token is asked for now (mcptray serve --gateway-no-auth).")
		} else if info.Token != "" {
			fmt.Fprintf(w, "  with the header  Authorization: Bearer %s\n", info.Token)
		} else {
			fmt.Fprintln(w, "  with the header  Authorization: Bearer TOKEN  (mcptray gateway --show-token prints TOKEN; it is kept in your keychain)")
		}
	}
	if !info.Running {
		fmt.Fprintln(w, "mcptray is not running now: mcptray stdio starts it, or start mcptray yourself.")
	}
	printApps(w, info.Apps)
	return nil
}

// printApps says how each app found here stands with the gateway.
func printApps(w io.Writer, apps []service.App) {
	for _, a := range apps {
		if !a.Found {
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", sanitize.Line(a.Name), sanitize.Line(a.Status))
		for _, more := range []string{a.Hint, a.ToolWarning, a.Problem} {
			if more != "" {
				fmt.Fprintf(w, "  %s\n", sanitize.Line(more))
			}
		}
		if a.Key != "" && !a.Connected {
			fmt.Fprintf(w, "  mcptray connect %s connects it.\n", a.Key)
		}
	}
}
