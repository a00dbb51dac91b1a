package tools

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// MaxNameLen is the longest qualified name agents accept: tool names must
// match ^[a-zA-Z0-9_-]{1,64}$.
const MaxNameLen = 64

const (
	namePrefix = "mcp__"
	nameSep    = "__"
	hashLen    = 8 // hex digits of SHA-256 kept in a shortened or disambiguated name
)

// NormalizeName replaces every character of s outside [a-zA-Z0-9_-] with
// '_', one '_' per rune (and per byte of invalid UTF-8), so "a.b" and "a b"
// both become "a_b" and "日本" becomes "__".
func NormalizeName(s string) string {
	if !needsNormalizing(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if nameRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func nameRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-'
}

func needsNormalizing(s string) bool {
	for i := 0; i < len(s); i++ {
		if !nameRune(rune(s[i])) {
			return true
		}
	}
	return false
}

// QualifiedName returns the name under which the gateway offers tool of
// server: "mcp__{server}__{tool}" built from the normalised parts. The result
// always matches ^[a-zA-Z0-9_-]{1,64}$; empty parts give names such as
// "mcp____tool".
//
// A name longer than MaxNameLen is shortened to its first 55 bytes, '_', and
// 8 hex digits of SHA-256 over the unnormalised server+"\x00"+tool, so two
// different pairs whose long names normalise alike still differ, and the same
// pair gets the same name every time.
//
// Different pairs can still share a short name ("a.b" and "a_b" on one
// server, or server "a" with tool "b__c" and server "a__b" with tool "c"):
// use AssignNames to name a whole set.
func QualifiedName(server, tool string) string {
	full := fullName(server, tool)
	if len(full) <= MaxNameLen {
		return full
	}
	return withSuffix(full, nameHash(server, tool, 0))
}

// fullName is the qualified name before any shortening. It is ASCII, so byte
// offsets into it are character offsets.
func fullName(server, tool string) string {
	return namePrefix + NormalizeName(server) + nameSep + NormalizeName(tool)
}

// withSuffix appends '_' and h to name, first cutting name so that the
// result fits in MaxNameLen.
func withSuffix(name, h string) string {
	if keep := MaxNameLen - 1 - len(h); len(name) > keep {
		name = name[:keep]
	}
	return name + "_" + h
}

// nameHash returns hashLen hex digits identifying the unnormalised pair.
// Attempt 0 is the hash QualifiedName uses; later attempts only come into
// play when that one is already taken.
func nameHash(server, tool string, attempt int) string {
	h := sha256.New()
	h.Write([]byte(server))
	h.Write([]byte{0})
	h.Write([]byte(tool))
	if attempt > 0 {
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(attempt)))
	}
	return hex.EncodeToString(h.Sum(nil))[:hashLen]
}

// Ref names one tool on one server, both as the server and the
// configuration spell them (unnormalised).
type Ref struct {
	Server string
	Tool   string
}

// AssignNames returns a qualified name for each ref, names[i] for refs[i],
// with no two different refs sharing a name even when they normalise to the
// same one. Identical refs name the same tool and get the same name.
//
// Refs are considered sorted by Server, then Tool, comparing the
// unnormalised strings byte by byte, so the names depend only on the set of
// refs and not on the order servers happened to answer in. In that order,
// the first ref to claim a QualifiedName keeps it; a later ref whose name is
// already claimed gets its full name (cut to fit) plus '_' and 8 hex digits
// of SHA-256 over its unnormalised server and tool, re-hashed with a counter
// in the unlikely case that name is taken too. Plain names are all handed out
// before any suffixed one, so a suffix never takes a name a tool would have
// had on its own.
//
// Adding a server can move a plain name from one tool to another that sorts
// before it; callers announce such changes with tools/list_changed.
func AssignNames(refs []Ref) []string {
	order := make([]int, len(refs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(
			strings.Compare(refs[a].Server, refs[b].Server),
			strings.Compare(refs[a].Tool, refs[b].Tool),
		)
	})

	names := make([]string, len(refs))
	owner := make(map[string]Ref, len(refs))
	var later []int
	for _, i := range order {
		r := refs[i]
		n := QualifiedName(r.Server, r.Tool)
		if o, taken := owner[n]; taken && o != r {
			later = append(later, i)
			continue
		}
		owner[n] = r
		names[i] = n
	}
	for _, i := range later {
		r := refs[i]
		full := fullName(r.Server, r.Tool)
		for attempt := 0; ; attempt++ {
			n := withSuffix(full, nameHash(r.Server, r.Tool, attempt))
			if o, taken := owner[n]; !taken || o == r {
				owner[n] = r
				names[i] = n
				break
			}
		}
	}
	return names
}
