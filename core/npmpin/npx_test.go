package npmpin

import (
	"slices"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		command string
		args    []string
		want    *Spec
	}{
		{"npx", []string{"-y", "@modelcontextprotocol/server-memory"}, &Spec{Package: "@modelcontextprotocol/server-memory"}},
		{"/usr/bin/npx", []string{"--yes", "postmark-mcp@1.0.15", "--key", "x"}, &Spec{Package: "postmark-mcp", Want: "1.0.15", Args: []string{"--key", "x"}}},
		{"npx", []string{"-y", "@scope/srv@^2", "stdio"}, &Spec{Package: "@scope/srv", Want: "^2", Args: []string{"stdio"}}},
		{"npx", []string{"--package=@scope/tools@1.0.0", "tool-a", "x"}, &Spec{Package: "@scope/tools", Want: "1.0.0", Bin: "tool-a", Args: []string{"x"}}},
		{"npx", []string{"-y", "-p", "srv", "srv-cli"}, &Spec{Package: "srv", Bin: "srv-cli", Args: []string{}}},
		{"npx", []string{"-y", "--", "srv", "--port", "1"}, &Spec{Package: "srv", Args: []string{"--port", "1"}}},
		// Not pinned: what npx would fetch is not a registry's package.
		{"npx", []string{"-y", "github:someone/srv"}, nil},
		{"npx", []string{"-y", "./local"}, nil},
		{"npx", []string{"-y", "https://example.com/x.tgz"}, nil},
		{"npx", []string{"--registry=https://other.example", "srv"}, nil},
		{"npx", []string{"-y"}, nil},
		{"node", []string{"index.js"}, nil},
	} {
		got, ok := Detect(tc.command, tc.args)
		if tc.want == nil {
			if ok {
				t.Errorf("%s %v: detected %+v, want nothing", tc.command, tc.args, got)
			}
			continue
		}
		if !ok || got.Package != tc.want.Package || got.Want != tc.want.Want || got.Bin != tc.want.Bin || !slices.Equal(got.Args, tc.want.Args) {
			t.Errorf("%s %v: got %+v (%v), want %+v", tc.command, tc.args, got, ok, *tc.want)
		}
	}
}
