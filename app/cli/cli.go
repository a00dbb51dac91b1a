// Package cli is mcptray's command-line face: listing servers, approving
// and denying them, adding and removing servers and project folders.
//
// It imports no GUI package, so every command works over SSH and in scripts.
// Commands print plain words for people and, with --json, a stable form for
// scripts. They never print an environment or header value: those are often
// secrets.
package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/demo"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/service"
)

// Env is the world a command runs in; tests give it a temporary home.
type Env struct {
	Stdout, Stderr io.Writer
	// Stdin is where a person answers questions; they are asked only when
	// Interactive is set (stdin is a terminal).
	Stdin       io.Reader
	Interactive bool
	// Lookup reads environment variables; nil means os.LookupEnv.
	Lookup func(string) (string, bool)
	// Paths overrides where mcptray's files are; nil means they follow
	// the environment (HOME, XDG_CONFIG_HOME, APPDATA).
	Paths *service.Paths
	// Now is the clock for recorded decisions; nil means time.Now.
	Now func() time.Time
	// Store keeps sign-ins when a command runs mcptray in-process: the
	// OS keychain (main.go gives it), an in-memory store in tests.
	Store secret.Store
	// Launcher is mcptray's own program, which a service this process runs
	// (mcptray serve, a command run without a running mcptray) starts each
	// local server through to sandbox it; "" runs them without a sandbox.
	// main.go gives it; tests give a built mcptray, or none.
	Launcher string
	// Probe is mcptray's hostile probe, which the sandbox's check runs
	// (mcptray's program and sandbox.ProbeArg) when a command runs mcptray
	// in-process; nil: the check says it has none. main.go gives it.
	Probe []string
	// HTTP downloads the MCP Bundles the registry lists when a command
	// runs mcptray in-process; nil means http.DefaultClient. Tests give
	// one that trusts their server.
	HTTP *http.Client
	// BaseEnv is the environment the servers of a command that runs
	// mcptray in-process start from; nil means the person's login shell's
	// (main.go). Tests give their own, which does not wait for a shell.
	BaseEnv []string
}

// command is one subcommand.
type command struct {
	name, args, help string
	run              func(ctx context.Context, c *cmdContext, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"list", "[--json]", "show every server, where it came from and whether it may run", runList},
		{"approve", "NAME [--look]", "let a project server run exactly what it runs now; --look first runs it once in its sandbox to show its tools, then asks", recording(runApprove)},
		{"deny", "NAME", "keep a project server from running", recording(runDeny)},
		{"add", "NAME [--env K=V]… [--secret-env K]… -- COMMAND ARGS…", "add a program to your servers; --secret-env keeps K in your keychain (its value is read from stdin, or asked for)", runAdd},
		{"add", "NAME --url URL [--transport http|sse|ws] [--header K=V]… [--secret-header K]…", "add a remote server; --secret-header keeps header K's value in your keychain (read from stdin, or asked for)", nil},
		{"remove", "NAME", "remove a server you added", runRemove},
		{"secret", "set|unset|list SERVER [NAME]", "keep a server's secret (an API key) in your keychain; set reads it from stdin, or asks without showing it", runSecret},
		{"secret", "move SERVER", "keep the keys a server's file holds in plain text in your keychain; mcptray's config refers to them instead (another app's file is left as it is)", nil},
		{"search", "WORDS… [--json]", "find servers in the MCP Registry", runSearch},
		{"install", "REGISTRY-NAME [--as NAME] [--local|--remote] [--runtime npx|uvx|docker|dnx] [--use N] [--set K=V]… | FILE.mcpb [--as NAME] [--set K=V]… [--write K]…", "add a server from the MCP Registry, or from an MCP Bundle file (checked first; its folder settings become its sandbox's, read only unless --write K); asks for what it needs (secrets from the terminal or stdin, never --set); when it runs in several ways, asks which (--use N picks the Nth it lists; without a terminal, the first that can run here)", runInstall},
		{"folders", "add|remove|list [PATH]", "choose the project folders whose servers mcptray reads", runFolders},
		{"status", "[--json]", "connect to every server and say how each is doing; exits 1 when one that should run is not connected", runStatus},
		{"retry", "NAME", "connect a server that failed again at once, or pin its package or image again", runRetry},
		{"tools", "SERVER|URL [--json]", "list a server's tools", recording(withSignIn(runTools))},
		{"review", "[SERVER] [--json]", "say in words what changed in servers' tools since you saw them (held from your apps until you accept), and which tools' descriptions give the AI instructions", runReview},
		{"accept", "SERVER [TOOL…]", "accept a server's changed tools (all when none is named): your apps are offered them as they are now", recording(runAccept)},
		{"keep", "SERVER [TOOL…]", "keep a server's changed tools held (all when none is named): your apps are not offered them, and mcptray stops asking you to look at them until they change again", recording(runKeep)},
		{"updates", "[--json]", "ask the registry of each server that runs a pinned npm package or docker image what is new, and say what each update changes: the lines that send data somewhere new first, then the packages and files changed (an image's configuration and layers)", runUpdates},
		{"update", "NAME [--tree HASH] [--back]", "run the update mcptray updates reviewed for a server, after showing it and asking (its earlier version is kept); --tree runs it without asking, only if it is still the tree that was shown; --back runs the earlier version again", runUpdate},
		{"accept-changes", "SERVER on|off", "accept a server's changes as they come (but for flagged tools and lowered annotations), or hold them for review", runAcceptChanges},
		{"call", "SERVER|URL TOOL [JSON]", "call a tool and print what it returns", recording(withSignIn(runCall))},
		{"login", "[--client-id ID] [--client-secret-file FILE] [--scope S] [--callback-port N] SERVER|URL", "sign in to a remote server in your browser", recording(runLogin)},
		{"login", "--client-credentials --client-id ID (--client-secret-file FILE | --private-key-file FILE) SERVER|URL", "sign in as a machine, without a browser", nil},
		{"login", "--jwt-bearer-assertion-file FILE [--client-id ID] SERVER|URL", "sign in as a workload with the JWT its platform gave it (RFC 7523)", nil},
		{"login", "--idp", "sign in to your identity provider (\"identityProvider\" in config.json), for servers with Cross-App Access", nil},
		{"logout", "SERVER|URL", "forget the sign-in to a remote server", recording(runLogout)},
		{"logout", "--idp", "forget the sign-in to your identity provider", nil},
		{"serve", "[--gateway-addr 127.0.0.1:PORT] [--gateway-no-auth]", "run every server without a window until Ctrl-C, with the gateway for your apps", runServe},
		{"quit", "", "stop the running mcptray (in the tray, or mcptray serve, perhaps started by an app) and every server it runs", runQuit},
		{"gateway", "[--json] [--show-token]", "say where apps reach your servers through mcptray, and how they authenticate", runGateway},
		{"gateway", "search [on|off]", "with search on, apps see two tools that find and call your tools, instead of every tool (for many servers)", nil},
		{"connect", "APP [--move]", "make an app (claude-desktop, claude-code, cursor, vs-code) use mcptray's gateway: writes mcptray stdio into its config, with a backup", runConnect},
		{"disconnect", "APP", "take mcptray's gateway out of an app's config again", runDisconnect},
		{"sets", "[--json]", "list the sets of servers and tools, what each holds and which apps get it", runSets},
		{"set", "NAME --servers A,B [--tools SERVER/TOOL,…] [--new-servers] [--allow|--ask|--block|--general SERVER/TOOL,…] [--hide|--show SERVER/TOOL,…] [--rename NEW]", "make a set of servers (and single tools of others) to give apps, or change one; --new-servers has it hold servers added later too; --allow, --ask and --block give tools the set's own permission, --general takes it back, --hide and --show hide tools or servers in the set", runSet},
		{"set", "remove NAME", "take a set away; the apps that had it get every server", nil},
		{"app", "set APP SET|all|tray", "give an app (as mcptray connect names it) a set, every server, or the tray's set; its sessions are told at once", runApp},
		{"app", "unknown all|none", "what an app mcptray does not know gets (one that only says who it is): every server, or nothing until you choose", nil},
		{"app", "token APP", "print an app's own token for the gateway's HTTP face, by which the gateway knows the app", nil},
		{"permissions", "[list] | allow|ask|block|reset TOOL", "what the gateway does when an app calls a tool (mcp__SERVER__TOOL)", recording(runPermissions)},
		{"guard", "[status] | off|ask|block", "how strict the flow guard is: once an app's session has read your data and content from outside, it asks (the default) or refuses before the app sends data out", recording(runGuard)},
		{"guard", "label TOOL [--private|--not-private|--untrusted|--not-untrusted|--egress|--not-egress|--reset]", "show a tool's labels with their reasons, or correct them", nil},
		{"hide", "TOOL|SERVER", "keep a tool, or every tool of a server, from the apps", runHide},
		{"unhide", "TOOL|SERVER", "offer a hidden tool or server to the apps again", runUnhide},
		{"sandbox", "[show] SERVER [--json]", "say what a local server may do in its sandbox, and the files it was refused lately (show names a server called check, allow, deny, on, off or show)", recording(runSandbox)},
		{"sandbox", "allow|deny SERVER --read PATH | --write PATH | --host HOST | --port N | --sockets", "let a local server read or change a folder, reach a host (through mcptray's proxy) or a port, or use other programs' sockets, or take it back", nil},
		{"sandbox", "on|off SERVER", "run a local server in its sandbox (the default) or without one", nil},
		{"sandbox", "check [--json]", "check the sandbox on this computer: a hostile server tries every way out mcptray knows, in the sandbox each kind of server gets, and it says what held (MCPTRAY_SANDBOX_NO_NAMESPACES=1 checks the fallback without namespaces)", nil},
		{"activity", "[--since 1h|DATE] [--app A] [--server S] [--tool T] [--outcome O] [-n N] [--json] [-f]", "show what your AI apps did through mcptray, and your trust decisions: the newest N rows (50), oldest first; -f keeps showing new ones", runActivity},
		{"activity", "verify [--key FILE] [--json]", "check that no row of the activity record was changed or removed since it was written; --key checks its seals with the verification key you kept", nil},
		{"activity", "reset [--yes]", "delete every row of the activity record and start it anew, after asking; the new record says that you did", nil},
		{"activity", "key FILE [--forget]", "write the activity record's verification key to FILE, to keep somewhere else; --forget then removes it from your keychain", nil},
		{"activity", "export --csv FILE [--since …] [--app A] [--server S] [--tool T] [--outcome O]", "write the activity record to a CSV file (- for the standard output)", nil},
		{"logs", "[-f] [-n N]", "show the newest lines of the log of mcptray in the tray or mcptray serve; -f keeps showing new ones", runLogs},
		{"autostart", "on|off|status [--json]", "start mcptray in the tray when you log in, or stop doing so", runAutostart},
		{"version", "[--json]", "say which mcptray this is: its version, the Go it was built with, and the system", runVersion},
		{"help", "[COMMAND]", "say how to call a command (mcptray COMMAND --help does too), or list them all", runHelp},
		{"stdio", "[--app NAME]", "be an MCP server on stdin and stdout for an app: the servers mcptray runs that the app NAME gets (mcptray connect names it), through the running mcptray (started when none runs)", runStdio},
	}
}

// usageError is a mistake in how a command was called; it exits 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// cmdContext is what every command gets.
type cmdContext struct {
	Env
	paths service.Paths
	// open is the backend withSignIn holds across its attempts.
	open backend
	// signingIn names the server a sign-in is for, for the line that says
	// the browser opens.
	signingIn string
	// lines reads stdin a line at a time, for secrets and answers.
	lines *bufio.Reader
	// asking is held while a server's question is asked (elicit).
	asking sync.Mutex
	// log, when set, is logger's answer: mcptray serve's, with its file.
	log *slog.Logger
	// records says that the command makes trust decisions, which a
	// service run in this process records (recording).
	records bool
}

// Run runs the command in args (without the program name) and returns the
// process exit code: 0 done, 1 failed, 2 called wrongly.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Lookup == nil {
		env.Lookup = os.LookupEnv
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if len(args) == 0 || (args[0] == "help" && len(args) == 1) || args[0] == "-h" || args[0] == "--help" {
		usage(env.Stdout)
		return 0
	}
	if args[0] == sandbox.LauncherArg {
		// Not listed: the launcher every local server starts through. It
		// returns only when it could not execute the server.
		return sandbox.Launch(args[1:], env.Stderr)
	}
	if args[0] == sandbox.ProbeArg {
		// Not listed: the hostile server that mcptray sandbox check runs
		// in a sandbox (core/sandbox's Check).
		return sandbox.Probe(args[1:], env.Stdin, env.Stdout)
	}
	if args[0] == demo.Arg && len(args) == 1 {
		// Not listed: the demo project's .mcp.json runs it (core/demo).
		if err := demo.Serve(ctx, env.Stdin, env.Stdout, env.Stderr); err != nil {
			fmt.Fprintf(env.Stderr, "mcptray %s: %v\n", demo.Arg, err)
			return 1
		}
		return 0
	}
	if args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...)
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == args[0] && commands[i].run != nil {
			cmd = &commands[i]
			break
		}
	}
	if cmd == nil {
		fmt.Fprintf(env.Stderr, "mcptray: there is no command %q\n\n", args[0])
		usage(env.Stderr)
		return 2
	}
	if wantsHelp(args[1:]) {
		commandUsage(env.Stdout, cmd.name)
		return 0
	}
	c := &cmdContext{Env: env}
	if env.Paths != nil {
		c.paths = *env.Paths
	} else {
		var err error
		if c.paths, err = service.NewPaths(runtime.GOOS, env.Lookup); err != nil {
			fmt.Fprintf(env.Stderr, "mcptray: %v\n", err)
			return 1
		}
	}

	// What the command decides, a service run in this process records as
	// the command line's; through the running mcptray, its endpoint says
	// so itself.
	ctx = service.DecidedBy(ctx, control.Self(control.CommandLine))
	err := cmd.run(ctx, c, args[1:])
	var ue usageError
	var refused *control.RefusedError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "mcptray %s: %v\nusage: %s\n", cmd.name, err, synopsis(cmd.name))
		return 2
	case errors.As(err, &refused):
		fmt.Fprintf(env.Stderr, "mcptray %s: the running mcptray refused: %s.\n%s\n", cmd.name, sanitize.String(refused.Msg), refusedFix(refused))
		return 1
	default:
		msg := err.Error()
		if service.CodeOf(err) == service.NotFound {
			msg += "; mcptray list shows them all"
		}
		// Errors can quote what a server said: never let that rewrite the
		// terminal.
		fmt.Fprintf(env.Stderr, "mcptray %s: %s\n", cmd.name, sanitize.String(msg))
		return 1
	}
}

// refusedFix says why the running mcptray did not take this program for
// one of its own tools, and what to do.
func refusedFix(e *control.RefusedError) string {
	switch {
	case e.Sandboxed:
		return "This program runs in a sandbox, as the servers mcptray runs do. Run mcptray from your own terminal, outside any sandbox."
	case e.NoKey != "":
		return fmt.Sprintf("mcptray's own tools show the key it keeps in %s, which this program could not read (%s). Run mcptray from your own terminal, as the person who started mcptray, not from inside a sandbox or a program mcptray runs.",
			sanitize.Line(e.KeyPath), sanitize.Line(e.NoKey))
	}
	return "mcptray may have restarted since this command began (it makes a new key each time it starts): run the command again."
}

func synopsis(name string) string {
	var lines []string
	for _, c := range commands {
		if c.name == name {
			lines = append(lines, "mcptray "+c.name+" "+c.args)
		}
	}
	return strings.Join(lines, "\n       ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "mcptray keeps your MCP servers in one place.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run it without a command to start it in the tray (or open its window when it runs).")
	fmt.Fprintln(w, "While it runs, these commands go through it, so every server runs once. Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  mcptray %s %s\n      %s\n", c.name, c.args, c.help)
	}
	fmt.Fprintln(w, "\nExit codes: 0 done, 1 failed (status: a server is not connected), 2 called wrongly.")
	fmt.Fprintln(w, "MCPTRAY_DEBUG=1 shows what mcptray does on stderr.")
}
