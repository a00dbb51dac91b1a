package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
)

// Browser opens an http(s) URL for the person. It returns once the browser
// has been asked; the answer comes back through the loopback listener.
type Browser func(ctx context.Context, u string) error

// SystemBrowser opens URLs in the person's default browser: xdg-open on
// Linux and the BSDs, open on macOS, the URL protocol handler on Windows.
// The URL is one argument of a program run directly, never a shell line.
func SystemBrowser() Browser {
	switch runtime.GOOS {
	case "darwin":
		return CommandBrowser([]string{"open"})
	case "windows":
		return CommandBrowser([]string{"rundll32", "url.dll,FileProtocolHandler"})
	default:
		return CommandBrowser([]string{"xdg-open"})
	}
}

// CommandBrowser runs argv with the URL as its last argument, directly (no
// shell), and does not wait for it to end. Tests use an HTTP client here:
// `curl -sL -o /dev/null` follows the authorization server's redirect to
// the loopback listener as a browser would.
func CommandBrowser(argv []string) Browser {
	return func(ctx context.Context, u string) error {
		if len(argv) == 0 {
			return errors.New("no browser command")
		}
		if err := checkOpenable(u); err != nil {
			return err
		}
		// Not CommandContext: a browser outlives the request that opened it.
		cmd := exec.Command(argv[0], append(append([]string(nil), argv[1:]...), u)...)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("opening the browser (%s): %w", argv[0], err)
		}
		go func() { _ = cmd.Wait() }() // reap it; it ends on its own
		return nil
	}
}

// ParseBrowserCommand splits a command line such as MCPTRAY_BROWSER's
// ("curl -sL -o /dev/null") at spaces. Quotes are not interpreted: it is
// not a shell.
func ParseBrowserCommand(s string) []string { return strings.Fields(s) }

// checkOpenable refuses anything but an absolute http(s) URL: a
// javascript:, file: or custom-scheme URL from a hostile server must never
// reach the browser or the operating system's URL handler.
func checkOpenable(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("refusing to open an address that is not a URL")
	}
	if s := strings.ToLower(u.Scheme); s != "https" && s != "http" {
		return fmt.Errorf("refusing to open a %q address; only http and https are opened", u.Scheme)
	}
	if u.Host == "" || u.Opaque != "" {
		return errors.New("refusing to open an address with no host")
	}
	if strings.ContainsAny(raw, " \t\r\n\x00") {
		return errors.New("refusing to open an address with spaces or control characters")
	}
	return nil
}
