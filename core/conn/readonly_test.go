package conn

import (
	"slices"
	"testing"

	"github.com/mcptray/mcptray/core/sandbox"
)

// TestReadOnlyAround: a look's policy may write nothing in the project
// folder, nor in a folder that holds it (an argument naming a parent), and
// still reads them; other folders stay writable.
func TestReadOnlyAround(t *testing.T) {
	p := sandbox.Policy{
		Read:  []string{"/usr"},
		Write: []string{"/dev/null", "/home/me/code/app", "/home/me/code", "/home/me/code/app/sub", "/home/me/code/apple", "/home/me/.npm"},
	}
	got := readOnlyAround(p, "/home/me/code/app/")
	if want := []string{"/dev/null", "/home/me/code/apple", "/home/me/.npm"}; !slices.Equal(got.Write, want) {
		t.Errorf("write %v, want %v", got.Write, want)
	}
	for _, r := range []string{"/usr", "/home/me/code/app", "/home/me/code", "/home/me/code/app/sub"} {
		if !slices.Contains(got.Read, r) {
			t.Errorf("read %v lacks %s", got.Read, r)
		}
	}
	if same := readOnlyAround(p, ""); !slices.Equal(same.Write, p.Write) {
		t.Errorf("no project folder changed the policy: %v", same.Write)
	}
}
