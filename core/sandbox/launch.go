package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// LauncherArg is the hidden command that makes mcptray the launcher:
// mcptray sandbox-exec -- PROGRAM ARGV0 ARGS…, with the policy in the
// environment variable policyEnv. No help lists it.
const LauncherArg = "sandbox-exec"

// policyEnv carries the policy to the launcher, which takes it out of the
// server's environment before executing it. An environment variable rather
// than an inherited file: nothing is left open in the server, and the
// launcher reads it without a system call.
const policyEnv = "MCPTRAY_SANDBOX_POLICY"

func encode(p Policy) (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encoding its sandbox: %w", err)
	}
	return string(b), nil
}

// Launch is the launcher (mcptray sandbox-exec): args are what follows
// LauncherArg. It reads the policy, restricts itself and executes the
// program, keeping its process id, process group and parent-death signal.
// It returns an exit code only when it could not: 126 when the sandbox
// could not be made, 127 when the program could not run. Nothing runs
// unrestricted: a failure to restrict never falls back to running as is.
func Launch(args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintf(stderr, "mcptray %s: nothing to run (it is mcptray's own launcher, not a command)\n", LauncherArg)
		return 2
	}
	raw, ok := os.LookupEnv(policyEnv)
	if !ok {
		fmt.Fprintf(stderr, "mcptray %s: no sandbox policy was given (it is mcptray's own launcher, not a command)\n", LauncherArg)
		return 2
	}
	var p Policy
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		fmt.Fprintf(stderr, "mcptray %s: the sandbox policy is not valid: %v\n", LauncherArg, err)
		return 2
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, policyEnv+"=") {
			env = append(env, kv)
		}
	}
	err := execLaunched(p, args[0], args[1:], env)
	fmt.Fprintf(stderr, "mcptray: %v\n", err)
	if strings.Contains(err.Error(), "sandbox") {
		return 126
	}
	return 127
}
