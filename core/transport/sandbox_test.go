package transport

import (
	"github.com/mcptray/mcptray/core/sandbox"
)

// sandboxedVar, set for the "parent" child, has it start its own child in
// a sandbox.
const sandboxedVar = "MCPTRAY_TEST_SANDBOXED"

// testSandbox runs a child through this test binary as the launcher, able
// to read everything and write nothing but /dev/null.
func testSandbox(exe string) *Sandbox {
	return &Sandbox{Launcher: exe, Policy: func(string, []string) (sandbox.Policy, error) {
		return sandbox.Policy{Read: []string{"/"}, Write: []string{"/dev/null"}}, nil
	}}
}
