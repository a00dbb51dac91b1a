// Command mcptray keeps a person's MCP servers in one place: with no
// arguments it runs in the tray (or opens the running one's window); with
// a command (mcptray help lists them) it works from the terminal.
package main

import (
	// Its init must run before Fyne's; see its doc comment.
	"github.com/mcptray/mcptray/app/posixlocale"

	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/mcptray/mcptray/app/autostart"
	"github.com/mcptray/mcptray/app/cli"
	"github.com/mcptray/mcptray/app/host"
	"github.com/mcptray/mcptray/app/opengl"
	"github.com/mcptray/mcptray/app/window"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/logfile"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/keychain"
)

// keychainService is the name mcptray's secrets go under in the keychain.
const keychainService = "mcptray"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx)
	stop()
	showStartError(code)
	os.Exit(code)
}

func run(ctx context.Context) int {
	store := keychain.New(keychainService)
	// mcptray --autostart is the login entry's: the tray, without the window.
	atLogin := len(os.Args) == 2 && os.Args[1] == autostart.Arg
	// mcptray FILE.mcpb is the file manager's, opening a bundle: the
	// tray, and the window at its install dialog.
	bundle := ""
	if len(os.Args) == 2 && isBundleFile(os.Args[1]) {
		bundle = os.Args[1]
		if abs, err := filepath.Abs(bundle); err == nil {
			bundle = abs // the running mcptray reads it, from its own folder
		}
	}
	if len(os.Args) > 1 && os.Args[1] != "window" && !atLogin && bundle == "" {
		posixlocale.Restore()
		return cli.Run(ctx, os.Args[1:], cli.Env{
			Stdout: os.Stdout, Stderr: os.Stderr,
			Stdin: os.Stdin, Interactive: isTerminal(os.Stdin),
			Store: store, Launcher: launcher(), Probe: probe(),
		})
	}
	paths, err := config.DefaultPaths()
	if err != nil {
		fmt.Fprintln(startErr, "mcptray:", err)
		return 1
	}
	if p := host.DisplayProblem(os.Getenv); p != "" {
		if bundle != "" {
			fmt.Fprintf(startErr, "%s\nTo install the bundle without a desktop: mcptray install %s\n", p, bundle)
			return 1
		}
		if cl, err := control.Dial(ctx, paths); err == nil {
			cl.Close()
			fmt.Fprintln(startErr, "mcptray is already running for you, in the background (there is no desktop here for its tray); mcptray status shows your servers.")
			return 0
		}
		fmt.Fprintln(startErr, p)
		return 1
	}
	if len(os.Args) > 1 && !atLogin && bundle == "" {
		logger, closeLog := newLogger(paths.WindowLogFile())
		defer closeLog()
		startErrLog = paths.WindowLogFile()
		return runWindow(ctx, logger, paths, os.Args[2:])
	}
	logger, closeLog := newLogger(paths.LogFile())
	defer closeLog()
	startErrLog = paths.LogFile()
	posixlocale.Restore()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(startErr, "mcptray: cannot find its own program to open the window:", err)
		return 1
	}
	so := service.FromEnvironment(os.LookupEnv)
	so.Launcher, so.SandboxProbe = launcher(), probe()
	return host.Run(ctx, host.Options{
		Paths: paths, Store: store, Logger: logger, Service: so,
		Window: []string{exe, "window"}, Stdout: os.Stdout, Stderr: startErr, AtLogin: atLogin, Bundle: bundle,
		Tell: tellPerson, WindowLog: paths.WindowLogFile(),
	})
}

// isBundleFile reports whether arg names an MCP Bundle file, as a file
// manager passes one: a name ending in .mcpb (or .dxt, its former name)
// that is not a flag.
func isBundleFile(arg string) bool {
	lower := strings.ToLower(arg)
	return !strings.HasPrefix(arg, "-") && (strings.HasSuffix(lower, ".mcpb") || strings.HasSuffix(lower, ".dxt"))
}

// runWindow is the window's process: a client of the running mcptray.
func runWindow(ctx context.Context, logger *slog.Logger, paths config.Paths, args []string) int {
	fs := flag.NewFlagSet("window", flag.ContinueOnError)
	server := fs.String("server", "", "show this server first")
	bundle := fs.String("bundle", "", "open the install dialog of this MCP Bundle file")
	noTray := fs.String("no-tray", "", "there is no tray, for this reason")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cl, err := control.DialAs(ctx, paths, control.Window)
	if err != nil {
		fmt.Fprintln(startErr, "mcptray window: mcptray is not running; start it with: mcptray")
		return 1
	}
	defer cl.Close()
	// Fyne's window, where no OpenGL 2.1 context can be made or GLFW
	// cannot start, waits forever with no window or panics: say why
	// instead, in lines the tray shows the person (app/host), and end
	// with 3.
	if err := opengl.Check(); err != nil {
		logger.Error("the window cannot open", "err", err)
		for _, line := range strings.Split(opengl.Words(err), "\n") {
			fmt.Fprintln(startErr, "mcptray window: "+line)
		}
		return 3
	}
	logger.Info("the window opens", "pid", os.Getpid())
	// Asked to end (the running mcptray quits): end at once. The window
	// holds nothing to save, and Fyne 2.7.1 can crash tearing a GLFW
	// window down while a mouse event for it is still being handled.
	go func() {
		<-ctx.Done()
		os.Exit(0)
	}()
	var login *autostart.Switch
	if exe, err := os.Executable(); err == nil {
		login, _ = autostart.New("", paths, exe) // nil: Settings says it cannot
	}
	return window.Run(ctx, logger, cl, window.Options{
		Server: *server, Bundle: *bundle, TrayProblem: *noTray, Autostart: login,
		LogFile: paths.LogFile(),
		// Without a tray, closing the window quits mcptray: the window's
		// process ends, and the running one follows (host.Run).
	})
}

// launcher is the program that puts each local server in its sandbox:
// mcptray-sandbox beside this program when it is there (it starts in a
// millisecond, see core/sandbox/cmd/mcptray-sandbox), or else this program itself
// (mcptray sandbox-exec); "" when it cannot find itself, and servers then
// run without a sandbox, as the words say.
func launcher() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	small := filepath.Join(filepath.Dir(exe), "mcptray-sandbox")
	if fi, err := os.Stat(small); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return small
	}
	return exe
}

// probe is mcptray's hostile probe, which the sandbox's check runs in a
// sandbox (mcptray sandbox-probe); nil when it cannot find itself.
func probe() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, sandbox.ProbeArg}
}

// newLogger logs warnings to stderr, or everything with MCPTRAY_DEBUG=1,
// and from Info up (everything with MCPTRAY_DEBUG=1) to the log file at
// path, which mcptray logs reads. Its function closes the file.
func newLogger(path string) (*slog.Logger, func() error) {
	stderrLevel, fileLevel := slog.LevelWarn, slog.LevelInfo
	if os.Getenv("MCPTRAY_DEBUG") != "" {
		stderrLevel, fileLevel = slog.LevelDebug, slog.LevelDebug
	}
	var w io.Writer = os.Stderr
	stderr := slog.NewTextHandler(w, &slog.HandlerOptions{Level: stderrLevel})
	logger, closeLog, err := logfile.NewLogger(path, fileLevel, stderr)
	if err != nil {
		logger.Warn("mcptray keeps no log file", "err", err)
	}
	return logger, closeLog
}

// isTerminal reports whether f is a terminal, where a person can answer a
// server's questions. (/dev/null is a character device too, so the file
// mode alone would say yes.)
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
