package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// sum8 is the 8-hex-digit suffix the design calls for, computed here
// independently of names.go.
func sum8(server, tool string) string {
	s := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(s[:])[:8]
}

func TestNormalizeName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"create_issue", "create_issue"},
		{"A-z_09", "A-z_09"},
		{"a.b", "a_b"},
		{"list files", "list_files"},
		{"a/b:c@d", "a_b_c_d"},
		{"é", "_"},
		{"日本", "__"},
		{"🙂x", "_x"},
		{"a\xffb", "a_b"},
		{"a\u202Eb", "a_b"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := NormalizeName(tt.in); got != tt.want {
				t.Errorf("NormalizeName(%+q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestQualifiedName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70)
	exactly64 := strings.Repeat("t", MaxNameLen-len("mcp__s__"))
	tests := []struct {
		name, server, tool, want string
	}{
		{"plain", "github", "create_issue", "mcp__github__create_issue"},
		{"normalised", "my server", "list.files", "mcp__my_server__list_files"},
		{"unicode", "日本", "検索", "mcp__" + "__" + "__" + "__"},
		{"empty both", "", "", "mcp____"},
		{"empty server", "", "t", "mcp____t"},
		{"empty tool", "s", "", "mcp__s__"},
		{"exactly 64 kept", "s", exactly64, "mcp__s__" + exactly64},
		{"65 shortened", "s", exactly64 + "y", ("mcp__s__" + exactly64)[:55] + "_" + sum8("s", exactly64+"y")},
		{"long tool", "s", long, ("mcp__s__" + long)[:55] + "_" + sum8("s", long)},
		{"long server", long, "t", ("mcp__" + long)[:55] + "_" + sum8(long, "t")},
		{"hash of unnormalised parts", "s", long + ".", ("mcp__s__" + long)[:55] + "_" + sum8("s", long+".")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := QualifiedName(tt.server, tt.tool)
			if got != tt.want {
				t.Errorf("QualifiedName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
			}
			if !validName.MatchString(got) {
				t.Errorf("QualifiedName(%q, %q) = %q, does not match %s", tt.server, tt.tool, got, validName)
			}
		})
	}
}

func TestQualifiedNameLongCollision(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 70)
	a := QualifiedName("s", long+".x")
	b := QualifiedName("s", long+"_x")
	if a == b {
		t.Errorf("pairs normalising to the same long name share %q", a)
	}
	if a != QualifiedName("s", long+".x") {
		t.Error("QualifiedName is not deterministic")
	}
}

func TestAssignNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 70)
	suffixed := func(server, tool string) string {
		return withSuffix(fullName(server, tool), sum8(server, tool))
	}
	tests := []struct {
		name string
		refs []Ref
		want []string
	}{
		{"none", nil, []string{}},
		{
			"no collision",
			[]Ref{{"github", "create_issue"}, {"slack", "post"}},
			[]string{"mcp__github__create_issue", "mcp__slack__post"},
		},
		{
			"collision after normalising: first in byte order keeps the plain name",
			[]Ref{{"s", "a_b"}, {"s", "a.b"}},
			[]string{"mcp__s__a_b_" + sum8("s", "a_b"), "mcp__s__a_b"},
		},
		{
			"three-way collision",
			[]Ref{{"s", "a b"}, {"s", "a.b"}, {"s", "a_b"}},
			[]string{"mcp__s__a_b", "mcp__s__a_b_" + sum8("s", "a.b"), "mcp__s__a_b_" + sum8("s", "a_b")},
		},
		{
			"separator inside a part",
			[]Ref{{"a__b", "c"}, {"a", "b__c"}},
			[]string{"mcp__a__b__c_" + sum8("a__b", "c"), "mcp__a__b__c"},
		},
		{
			"identical refs share a name",
			[]Ref{{"s", "t"}, {"s", "t"}},
			[]string{"mcp__s__t", "mcp__s__t"},
		},
		{
			"identical losers share a name",
			[]Ref{{"s", "a_b"}, {"s", "a.b"}, {"s", "a_b"}},
			[]string{suffixed("s", "a_b"), "mcp__s__a_b", suffixed("s", "a_b")},
		},
		{
			"unicode tools on one server",
			[]Ref{{"s", "日本"}, {"s", "中国"}},
			[]string{"mcp__s_____" + sum8("s", "日本"), "mcp__s____"},
		},
		{
			"long names normalising alike",
			[]Ref{{"s", long + ".x"}, {"s", long + "_x"}},
			[]string{QualifiedName("s", long+".x"), QualifiedName("s", long+"_x")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := AssignNames(tt.refs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("AssignNames(%q) =\n%q\nwant\n%q", tt.refs, got, tt.want)
			}
			checkAssigned(t, tt.refs, got)
		})
	}
}

// A tool may be named exactly like another's suffixed name: the plain name
// wins and the suffixed one moves on to the next hash.
func TestAssignNamesPlainNameBeatsSuffix(t *testing.T) {
	t.Parallel()
	squatter := "a_b_" + sum8("s", "a_b")
	refs := []Ref{{"s", "a.b"}, {"s", "a_b"}, {"s", squatter}}
	got := AssignNames(refs)
	if got[2] != "mcp__s__"+squatter {
		t.Errorf("tool %q got %q, want its plain name", squatter, got[2])
	}
	if want := withSuffix(fullName("s", "a_b"), nameHash("s", "a_b", 1)); got[1] != want {
		t.Errorf("tool a_b got %q, want %q", got[1], want)
	}
	checkAssigned(t, refs, got)
}

func TestAssignNamesIgnoresInputOrder(t *testing.T) {
	t.Parallel()
	refs := []Ref{
		{"s", "a.b"}, {"s", "a_b"}, {"s", "a b"}, {"t", "x"}, {"a", "b__c"}, {"a__b", "c"},
		{"", ""}, {"s", strings.Repeat("q", 80)}, {"s", strings.Repeat("q", 80) + "!"},
	}
	want := make(map[Ref]string)
	for i, n := range AssignNames(refs) {
		want[refs[i]] = n
	}
	shuffled := slices.Clone(refs)
	slices.Reverse(shuffled)
	shuffled[0], shuffled[3] = shuffled[3], shuffled[0]
	for i, n := range AssignNames(shuffled) {
		if want[shuffled[i]] != n {
			t.Errorf("%q named %q in one order and %q in another", shuffled[i], want[shuffled[i]], n)
		}
	}
}

// checkAssigned fails t unless every name is valid and no two different refs
// share one.
func checkAssigned(t *testing.T, refs []Ref, names []string) {
	t.Helper()
	if len(names) != len(refs) {
		t.Fatalf("got %d names for %d refs", len(names), len(refs))
	}
	owner := make(map[string]Ref)
	for i, n := range names {
		if !validName.MatchString(n) {
			t.Errorf("%q named %q, which does not match %s", refs[i], n, validName)
		}
		if o, ok := owner[n]; ok && o != refs[i] {
			t.Errorf("%q and %q share the name %q", o, refs[i], n)
		}
		owner[n] = refs[i]
	}
}

func FuzzAssignNames(f *testing.F) {
	f.Add("s", "a.b", "s", "a_b", "s", "a b")
	f.Add("a", "b__c", "a__b", "c", "", "")
	f.Add("日本", strings.Repeat("x", 70)+".", "日本", strings.Repeat("x", 70)+"_", "\xff", "\x00")
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2, s3, t3 string) {
		refs := []Ref{{s1, t1}, {s2, t2}, {s3, t3}}
		for _, r := range refs {
			if n := QualifiedName(r.Server, r.Tool); !validName.MatchString(n) {
				t.Fatalf("QualifiedName(%q, %q) = %q, does not match %s", r.Server, r.Tool, n, validName)
			}
		}
		checkAssigned(t, refs, AssignNames(refs))
	})
}
