package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// LauncherArg is the hidden command that makes mcptray the launcher:
// mcptray sandbox-exec --, with the policy, the program and its arguments
// in the environment variable policyEnv. No help lists it.
const LauncherArg = "sandbox-exec"

// probeArg, after LauncherArg, makes the launcher try what it does in a
// server's namespaces and end (Isolation).
const probeArg = "--probe"

// policyEnv carries the policy to the launcher, which takes it out of the
// server's environment before executing it. An environment variable rather
// than an inherited file: nothing is left open in the server, and the
// launcher reads it without a system call. It carries the program and its
// arguments too, which a config may have filled with a secret: a
// process's command line is for everyone to read in /proc, its
// environment only for what may trace it: not another server (Landlock
// forbids it, and the server holds no capability), nor, once the launcher
// made itself undumpable, any program of the person's without
// privileges.
const policyEnv = "MCPTRAY_SANDBOX_POLICY"

// The policy travels as lines a few lines of C can read too (the
// launcher's program does its work in C, before Go's runtime starts, see
// its cmd/mcptray-sandbox): "r PATH" to read, "w PATH" to write, "s PATH"
// a folder another server may write, where a rule is opened through no
// link and which gives nothing (Policy.Shared), "t" to
// limit TCP to the "p PORT" lines, "u" to leave named sockets to the
// filter (Policy.AnySocket), "f HEX" the system call filter to
// install (seccomp.go), "b PORT" to bring the proxy's port into the
// network namespace the launcher was started in (namespaces_linux.go),
// "m" to give the server a /proc, /tmp and /dev/shm of its own in the
// mount namespace the launcher was started in (mounts_linux.go), "i" to
// stay as the server's init (init_linux.go), and last "x PROGRAM" and an
// "a ARG" for each of its argv, in which a backslash is written "\\" and a
// line break "\n". A path with a line break in it cannot be written as a
// rule, and is refused.
const policyMagic = "mcptray-sandbox 3"

// launchPlan is what the launcher does beyond Landlock's rules.
type launchPlan struct {
	filter string // the seccomp filter, hexadecimal; "" for none
	bridge int    // the proxy's port to bring in; 0 for none
	init   bool   // stay as init: fork the server, end its descendants with it
	mounts bool   // a /proc, /tmp and /dev/shm of its own
	// program and argv are what to execute.
	program string
	argv    []string
}

// maxPolicy is what the kernel takes of one environment variable
// (MAX_ARG_STRLEN, 32 pages), its name included.
const maxPolicy = 32*4096 - len(policyEnv) - 2

// encodeCommand is the policy enc followed by the program and its argv.
func encodeCommand(enc, program string, argv []string) (string, error) {
	var b strings.Builder
	b.WriteString(enc)
	b.WriteString("x " + escapeArg(program) + "\n")
	for _, a := range argv {
		b.WriteString("a " + escapeArg(a) + "\n")
	}
	if b.Len() > maxPolicy {
		return "", errors.New("its command line is too long for the launcher")
	}
	return b.String(), nil
}

// escapeArg writes s on one line: a backslash as "\\", a line break as
// "\n".
func escapeArg(s string) string {
	if !strings.ContainsAny(s, "\\\n") {
		return s
	}
	return strings.NewReplacer("\\", "\\\\", "\n", "\\n").Replace(s)
}

// unescapeArg reads what escapeArg wrote.
func unescapeArg(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch {
		case i < len(s) && s[i] == '\\':
			b.WriteByte('\\')
		case i < len(s) && s[i] == 'n':
			b.WriteByte('\n')
		default:
			return "", fmt.Errorf("%q is not written as the launcher writes", s)
		}
	}
	return b.String(), nil
}

func encode(p Policy) (string, error) {
	var b strings.Builder
	b.WriteString(policyMagic + "\n")
	for _, l := range []struct {
		kind  string
		paths []string
	}{{"r", p.Read}, {"w", p.Write}, {"s", p.Shared}} {
		for _, path := range l.paths {
			if strings.ContainsAny(path, "\n\x00") || path == "" {
				return "", fmt.Errorf("encoding its sandbox: the path %q cannot be given to the launcher", path)
			}
			b.WriteString(l.kind + " " + path + "\n")
		}
	}
	if p.RestrictTCP {
		b.WriteString("t\n")
	}
	if p.AnySocket {
		b.WriteString("u\n")
	}
	for _, port := range p.Ports {
		fmt.Fprintf(&b, "p %d\n", port)
	}
	filter, err := encodeFilter(p)
	if err != nil {
		return "", err
	}
	if filter != "" {
		b.WriteString("f " + filter + "\n")
	}
	if p.Bridge > 0 {
		fmt.Fprintf(&b, "b %d\n", p.Bridge)
	}
	if p.Namespaces {
		b.WriteString("m\n")
	}
	b.WriteString("i\n")
	return b.String(), nil
}

// decode reads what encode wrote: the part of the policy the launcher
// applies.
func decode(s string) (Policy, launchPlan, error) {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) == 0 || lines[0] != policyMagic {
		return Policy{}, launchPlan{}, errors.New("it does not start with " + policyMagic)
	}
	var p Policy
	var plan launchPlan
	for _, l := range lines[1:] {
		kind, arg, _ := strings.Cut(l, " ")
		switch kind {
		case "r":
			p.Read = append(p.Read, arg)
		case "w":
			p.Write = append(p.Write, arg)
		case "s":
			p.Shared = append(p.Shared, arg)
		case "t":
			p.RestrictTCP = true
		case "u":
			p.AnySocket = true
		case "p", "b":
			port, err := strconv.Atoi(arg)
			if err != nil || port < 0 || port > 65535 {
				return Policy{}, launchPlan{}, fmt.Errorf("%q is not a port", arg)
			}
			if kind == "b" {
				plan.bridge = port
			} else {
				p.Ports = append(p.Ports, port)
			}
		case "f":
			if _, err := decodeFilter(arg); err != nil {
				return Policy{}, launchPlan{}, err
			}
			plan.filter = arg
		case "i":
			plan.init = true
		case "m":
			plan.mounts = true
		case "x", "a":
			a, err := unescapeArg(arg)
			if err != nil {
				return Policy{}, launchPlan{}, err
			}
			if kind == "x" {
				plan.program = a
			} else {
				plan.argv = append(plan.argv, a)
			}
		default:
			return Policy{}, launchPlan{}, fmt.Errorf("unknown line %q", l)
		}
	}
	return p, plan, nil
}

// Launch is the launcher (mcptray sandbox-exec): args are what follows
// LauncherArg. It reads the policy, stays as the server's init
// (init_linux.go), and in the child it forks restricts itself and
// executes the program.
// It returns an exit code only when it could not: 126 when the sandbox
// could not be made, 127 when the program could not run. Nothing runs
// unrestricted: a failure to restrict never falls back to running as is.
func Launch(args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 1 && args[0] == probeArg {
		if err := probeIsolation(); err != nil {
			fmt.Fprintf(stderr, "mcptray %s: %v\n", LauncherArg, err)
			return 1
		}
		return 0
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mcptray %s: it takes what to run from its policy, not from its command line (it is mcptray's own launcher, not a command)\n", LauncherArg)
		return 2
	}
	raw, ok := os.LookupEnv(policyEnv)
	if !ok {
		fmt.Fprintf(stderr, "mcptray %s: no sandbox policy was given (it is mcptray's own launcher, not a command)\n", LauncherArg)
		return 2
	}
	p, plan, err := decode(raw)
	if err != nil {
		fmt.Fprintf(stderr, "mcptray %s: the sandbox policy is not valid: %v\n", LauncherArg, err)
		return 2
	}
	if plan.program == "" || len(plan.argv) == 0 {
		fmt.Fprintf(stderr, "mcptray %s: nothing to run (it is mcptray's own launcher, not a command)\n", LauncherArg)
		return 2
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, policyEnv+"=") {
			env = append(env, kv)
		}
	}
	if plan.init {
		code, err := runInit(p, raw, plan, env)
		if err != nil {
			fmt.Fprintf(stderr, "mcptray: could not put the server in its sandbox: %v\n", err)
		}
		return code
	}
	err = execLaunched(p, plan, plan.program, plan.argv, env)
	fmt.Fprintf(stderr, "mcptray: %v\n", err)
	if strings.Contains(err.Error(), "sandbox") {
		return 126
	}
	return 127
}
