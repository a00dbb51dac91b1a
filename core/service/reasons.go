package service

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sanitize"
)

// installHints says what to install for the programs server configs most
// often start, by the program's name without folder or extension.
var installHints = map[string]string{
	"npx":     "Install Node.js (it includes npx) from nodejs.org or your package manager",
	"npm":     "Install Node.js (it includes npm) from nodejs.org or your package manager",
	"node":    "Install Node.js from nodejs.org or your package manager",
	"uvx":     "Install uv (it includes uvx) from docs.astral.sh/uv",
	"uv":      "Install uv from docs.astral.sh/uv",
	"python":  "Install Python from python.org or your package manager",
	"python3": "Install Python 3 from python.org or your package manager",
	"pipx":    "Install pipx from your package manager",
	"docker":  "Install Docker Desktop or Docker Engine, and make sure it is running",
	"podman":  "Install Podman from your package manager",
	"deno":    "Install Deno from deno.com",
	"bun":     "Install Bun from bun.sh",
	"bunx":    "Install Bun (it includes bunx) from bun.sh",
	"go":      "Install Go from go.dev",
	"java":    "Install a Java runtime from your package manager",
}

// missingVar finds a variable or key a program complained about, in the
// words such programs use: "GITHUB_TOKEN is not set", "missing API_KEY",
// "environment variable BRAVE_API_KEY is required".
var missingVar = []*regexp.Regexp{
	regexp.MustCompile(`\b([A-Z][A-Z0-9_]*[A-Z0-9])\b[^.\n]{0,40}?\b(?:is not set|not set|is missing|missing|is required|required|is undefined|undefined|must be set|must be provided|not provided|not found in (?:the )?environment)\b`),
	regexp.MustCompile(`(?i:missing|no|requires?|set(?: the)?|provide(?: the)?|please set|undefined)\b[^.\n]{0,30}?\b([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])\b`),
}

// explain says in plain words why a server is in its state and what fixes
// it. stderr is the tail of a local server's error output.
func explain(e *config.Entry, st conn.Status, stderr string) (string, Fix) {
	switch st.State {
	case conn.Connected:
		return "", Fix{}
	case conn.Pending:
		if st.Err != "" {
			return st.Err, Fix{}
		}
		return "connecting…", Fix{}
	case conn.AwaitingApproval:
		return "waits for your approval before it runs", Fix{Action: ApproveAction, Label: "Review…"}
	case conn.NeedsAuth:
		return authReason(st.Err), Fix{Action: SignInAction, Label: "Sign in…"}
	case conn.Disabled:
		switch {
		case e.Approval == config.Denied:
			return "you denied it", Fix{Action: ApproveAction, Label: "Review…"}
		case e.Disabled && !e.TurnedOff:
			return "turned off in its config file", Fix{Action: EditConfigAction, Label: "Edit its config", Hint: `remove "disabled": true from its entry in ` + e.Origin.File}
		case e.Disabled:
			return "you turned it off", Fix{Action: EnableAction, Label: "Turn on"}
		}
		return st.Err, Fix{}
	case conn.Failed:
		return explainFailure(e, st.Err, stderr)
	}
	return st.Err, Fix{}
}

// authPhrases begin the sentences a sign-in challenge is told in (see
// transport.AuthError); what the HTTP client wrapped around them (the
// method, the URL) is not for a person.
var authPhrases = []string{
	"the server needs more permissions",
	"the server no longer accepts this sign-in",
	"the server does not take this sign-in",
	"the server refused access",
	"the server needs you to sign in",
	"the sign-in expired",
}

// authReason is why a server wants a sign-in, in the challenge's own words.
func authReason(why string) string {
	for _, p := range authPhrases {
		if i := strings.Index(why, p); i >= 0 {
			return why[i:]
		}
	}
	return "needs you to sign in"
}

// explainFailure recognises the common ways a server fails to start.
func explainFailure(e *config.Entry, why, stderr string) (string, Fix) {
	retry := Fix{Action: RetryAction, Label: "Retry"}
	if name, ok := conn.MissingSecret(why); ok {
		return "needs " + name, Fix{Action: SetSecretAction, Label: "Enter " + name + "…", Secret: name,
			Hint: fmt.Sprintf("Enter it in mcptray, or run: mcptray secret set %s %s", commandArg(e.Name), name)}
	}
	if e.Transport == config.Stdio && strings.Contains(why, "was not found in any folder on PATH") {
		prog := programName(e.Command)
		if hint, ok := installHints[prog]; ok {
			return fmt.Sprintf("%s is not installed", prog), Fix{Action: RetryAction, Label: "Retry", Hint: hint + ", then press Retry."}
		}
		return fmt.Sprintf("%s is not installed, or not on your PATH", sanitize.Line(prog)),
			Fix{Action: RetryAction, Label: "Retry", Hint: "Install " + sanitize.Line(prog) + " or correct the command in the server's config, then press Retry."}
	}
	if e.Transport == config.Stdio && strings.Contains(why, "does not exist or is not a program") {
		return fmt.Sprintf("%s does not exist, or is not a program", sanitize.Line(e.Command)),
			Fix{Action: EditConfigAction, Label: "Edit its config", Hint: "Correct the command in " + e.Origin.File + "; mcptray starts it again when the file changes."}
	}
	if e.Transport == config.Stdio {
		if v := findMissingVar(stderr + "\n" + why); v != "" {
			return fmt.Sprintf("it needs %s, which is not set", v), Fix{Action: EditConfigAction, Label: "Edit its config",
				Hint: fmt.Sprintf("Set %s in the server's \"env\" in %s; mcptray starts it again when the file changes.", v, e.Origin.File)}
		}
	}
	if e.Transport.Remote() {
		if reason, ok := networkFailure(e, why); ok {
			return reason, Fix{Action: RetryAction, Label: "Retry", Hint: "Check the address and your internet connection, then press Retry."}
		}
		if strings.Contains(why, "HTTP 403") || strings.Contains(why, "refused access") {
			return why, Fix{Action: SignInAction, Label: "Sign in again…"}
		}
	}
	if why == "" {
		why = "it stopped working"
	}
	return why, retry
}

// networkFailure says in plain words why a remote server could not be
// reached, when the error is one of the network's own.
func networkFailure(e *config.Entry, why string) (string, bool) {
	host := e.URL
	if u, err := url.Parse(e.URL); err == nil && u.Host != "" {
		host = u.Host
	}
	host = sanitize.Line(host)
	switch {
	case strings.Contains(why, "no such host"):
		return fmt.Sprintf("cannot find %s: the name is unknown, or this computer is offline", host), true
	case strings.Contains(why, "connection refused"):
		return fmt.Sprintf("nothing answers at %s (the connection was refused): is the server running?", host), true
	case strings.Contains(why, "network is unreachable"), strings.Contains(why, "no route to host"):
		return fmt.Sprintf("cannot reach %s: this computer seems to be offline", host), true
	case strings.Contains(why, "i/o timeout"), strings.Contains(why, "TLS handshake timeout"):
		return fmt.Sprintf("%s did not answer in time", host), true
	case strings.Contains(why, "certificate"):
		return fmt.Sprintf("%s's certificate is not valid for it, so mcptray does not trust the connection", host), true
	}
	return "", false
}

func programName(command string) string {
	base := filepath.Base(strings.ReplaceAll(command, `\`, "/"))
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		base = strings.TrimSuffix(strings.ToLower(base), ext)
	}
	return base
}

// findMissingVar returns the variable a program's output says is missing,
// or "".
func findMissingVar(text string) string {
	for _, re := range missingVar {
		if m := re.FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	return ""
}
