package window

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// secretPatterns find what looks like a token or a password in text a
// server wrote: a bearer token, key=value or key: value with a secret-ish
// key, a JWT, and the well-known token prefixes. Each match keeps its
// first group (the key) and loses the secret.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9\-._~+/]+=*`),
	regexp.MustCompile(`(?i)(basic\s+)[A-Za-z0-9+/]{8,}=*`),
	regexp.MustCompile(`(?i)((?:access[_-]?token|refresh[_-]?token|id[_-]?token|token|secret|password|passwd|api[_-]?key|apikey|client[_-]?secret|authorization|auth|session|cookie|private[_-]?key)["']?\s*[:=]\s*["']?)[^\s"',;&]+`),
	regexp.MustCompile(`()eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
	regexp.MustCompile(`()\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})`),
}

// redact takes out of s whatever looks like a secret.
func redact(s string) string {
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "${1}REDACTED")
	}
	return s
}

// redactURL hides a URL's password and the values of its query, which
// may carry keys.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redact(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// secretFlag matches a command-line flag whose value is a secret:
// --token, --api-key, -p …
var secretFlag = regexp.MustCompile(`(?i)^--?(?:[a-z0-9]+[-_])*(?:token|secret|password|passwd|key|apikey|auth|credentials?)$`)

// redactArgs hides the values of secret flags (--token X, --token=X) and
// anything else in the arguments that looks like a secret.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		switch {
		case hideNext:
			out[i] = "REDACTED"
			hideNext = false
			continue
		case secretFlag.MatchString(a):
			hideNext = true
			out[i] = a
			continue
		}
		if k, _, ok := strings.Cut(a, "="); ok && secretFlag.MatchString(k) {
			out[i] = k + "=REDACTED"
			continue
		}
		if strings.Contains(a, "://") {
			out[i] = redactURL(a)
			continue
		}
		out[i] = redact(a)
	}
	return out
}

// diagnostics is what "Copy diagnostics" puts on the clipboard: what sv
// runs, its state and since when, why, and its last error output, with
// secrets left out. Environment and header values are never in a
// Snapshot; only their names are written.
func diagnostics(sv service.Server, snap service.Snapshot, now time.Time) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("mcptray %s — diagnostics for %s", sanitize.Line(snap.Version), sanitize.Line(sv.Name))
	line("")
	if sv.ConfigName != "" && sv.ConfigName != sv.Name {
		line("Named in its file: %s", quoteArg(sv.ConfigName))
	}
	line("Scope: %s", sv.Scope)
	line("Comes from: %s", sanitize.Line(sv.Origin.String()))
	switch {
	case sv.Transport.Remote():
		line("Connects to: %s (%s)", sanitize.Line(redactURL(sv.URL)), sv.Transport)
		if len(sv.HeaderNames) > 0 {
			line("Headers (names only): %s", names(sv.HeaderNames))
		}
	case sv.Command != "":
		line("Runs: %s", commandLine(sv.Command, redactArgs(sv.Args)))
		if sv.Cwd != "" {
			line("In folder: %s", sanitize.Line(sv.Cwd))
		}
		if len(sv.EnvNames) > 0 {
			line("Environment (names only): %s", names(sv.EnvNames))
		}
		if sv.EnvFile != "" {
			line("Environment file: %s", sanitize.Line(sv.EnvFile))
		}
	default:
		line("Transport: %s", sv.Transport)
	}
	if a := string(sv.Approval); a != "" {
		line("Approval: %s", a)
	}
	word, _ := stateWord(sv)
	state := word
	if s := sv.State.String(); s != word {
		state += " (" + s + ")"
	}
	if !sv.Since.IsZero() {
		state += fmt.Sprintf(" since %s (%s ago)", sv.Since.UTC().Format(time.RFC3339), now.Sub(sv.Since).Round(time.Second))
	}
	line("State: %s", state)
	if sv.Failures > 0 {
		line("Failed attempts in a row: %d", sv.Failures)
	}
	if sv.Reason != "" {
		line("Why: %s", sanitize.Line(redact(sv.Reason)))
	}
	if sv.Fix.Hint != "" {
		line("What fixes it: %s", sanitize.Line(sv.Fix.Hint))
	}
	if sv.Suppressed != "" {
		line("Not used: %s", sanitize.Line(sv.Suppressed))
	}
	if sv.State == service.Connected {
		line("Tools: %d", len(sv.Tools))
	}
	if snap.Paused {
		line("All servers are paused.")
	}
	if sv.Stderr != "" {
		line("")
		line("Last error output:")
		for _, l := range strings.Split(strings.TrimRight(sv.Stderr, "\n"), "\n") {
			line("  %s", sanitize.Line(redact(l)))
		}
	}
	line("")
	line("(Secrets are left out: environment and header values are never shown, and anything that looks like a token reads REDACTED.)")
	return b.String()
}
