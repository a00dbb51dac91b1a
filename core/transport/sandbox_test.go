package transport

import (
	"github.com/mcptray/mcptray/core/sandbox"
)

// sandboxedVar, set for the "parent" child, has it start its own child in
// a sandbox.
const sandboxedVar = "MCPTRAY_TEST_SANDBOXED"

// testSandbox runs a child through this test binary as the launcher, able
// to read everything and write nothing but /dev/null; in a user and PID
// namespace of its own when namespaces.
func testSandbox(exe string, namespaces bool) *Sandbox {
	return &Sandbox{Launcher: exe, Policy: func(string, []string) (sandbox.Policy, error) {
		return sandbox.Policy{Read: []string{"/"}, Write: []string{"/dev/null"}, Namespaces: namespaces}, nil
	}}
}
