package npmpin

import (
	"crypto/sha512"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/npmpin/npmtest"
)

// gundamV2 is gundam-visor 1.0.2 as its thief would publish it: by hand,
// from a laptop, with a stolen token.
func gundamV2() map[string]string {
	return map[string]string{
		"package.json": `{"name":"gundam-visor","version":"1.0.2","main":"index.js"}`,
		"index.js":     "module.exports = \"the visor\";\n",
	}
}

// TestOriginAsked: a registry that serves attestations (npm's path, in
// front of a real verdaccio) is asked for the pinned version's when it is
// pinned and when an update is found. Version 1.0.1, published by its CI
// with provenance, says where it was built; 1.0.2, published by hand,
// says nothing, and the update's review says that change first. An
// attestation of another tarball, replayed or forged for 1.0.2, is not
// accepted, and said so.
func TestOriginAsked(t *testing.T) {
	r := npmtest.Start(t)
	reg := r.Attest(t)
	r.PublishTarball(t, recordedTarball)
	reg.Set("gundam-visor@1.0.1", recorded(t))
	n := &NPM{Env: reg.Env, Cache: filepath.Join(t.TempDir(), "cache")}
	root := filepath.Join(t.TempDir(), "packages")
	ctx := t.Context()
	spec, _ := Detect("npx", []string{"-y", "gundam-visor"})

	v1, err := n.ResolveInstall(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if top, _ := v1.Lock.Top(); top.Integrity != pinnedGundam(t).Integrity {
		t.Fatalf("the registry served another tarball of 1.0.1: %s", top.Integrity)
	}
	o1 := n.Origin(ctx, v1)
	if !o1.CI() || o1.Provenance.Repository != "https://github.com/ramonpetgrave64/gundam-visor" {
		t.Fatalf("1.0.1's origin: %+v", o1)
	}
	v1.Origin = &o1
	f := n.Facts(ctx, v1)
	if w := f.Words(time.Now()); !strings.Contains(w, "gundam-visor version 1.0.1, published just now, 1 package in all; built from github.com/ramonpetgrave64/gundam-visor (refs/tags/v1.0.1, commit 599500821344) by its CI — claimed, not verified against Sigstore") {
		t.Errorf("1.0.1's facts: %q", w)
	}

	r.Publish(t, gundamV2())
	v2, err := n.Resolve(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Install(ctx, v2); err != nil {
		t.Fatal(err)
	}
	o2 := n.Origin(ctx, v2)
	if o2.CI() || o2.Refused != "" || o2.Unchecked != "" {
		t.Fatalf("1.0.2, published by hand: %+v", o2)
	}
	if w := o2.Words(); w != "published by hand: nothing says where it was built" {
		t.Errorf("1.0.2's origin: %q", w)
	}
	v2.Origin = &o2
	rv, err := Compare(v1, v2)
	if err != nil {
		t.Fatal(err)
	}
	words := rv.Words()
	first := words[strings.Index(words, "\n")+1:]
	if !strings.HasPrefix(first, "\nWhere it was built changed (read this first): version 1.0.1 was built from github.com/ramonpetgrave64/gundam-visor") ||
		!strings.Contains(first, "version 1.0.2 was published by hand") || !strings.Contains(first, "stolen npm token") {
		t.Errorf("the review does not put the lost provenance first:\n%s", words)
	}
	t.Logf("review:\n%s", words)

	// The genuine attestation of 1.0.1, replayed for 1.0.2.
	reg.Set("gundam-visor@1.0.2", recorded(t))
	replayed := n.Origin(ctx, v2)
	if replayed.CI() || !strings.Contains(replayed.Refused, `it is the provenance of "pkg:npm/gundam-visor@1.0.1"`) {
		t.Errorf("1.0.1's attestation served for 1.0.2: %+v", replayed)
	}
	// One made for 1.0.2, signed, whose subject is another tarball.
	top2, _ := v2.Lock.Top()
	other := top2
	sum := sha512.Sum512([]byte("the tarball the CI built"))
	other.Integrity = "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	reg.Set("gundam-visor@1.0.2", selfSigned(t, other, "https://github.com/ramonpetgrave64/gundam-visor", "599500821344b070902a7a5666064bfdaba715df", "https://github.com/ramonpetgrave64/gundam-visor"))
	forged := n.Origin(ctx, v2)
	if forged.CI() || !strings.Contains(forged.Refused, "another tarball") {
		t.Errorf("a forged attestation of another tarball: %+v", forged)
	}
	if w := forged.Words(); !strings.HasPrefix(w, "its provenance was not accepted: ") {
		t.Errorf("its words: %q", w)
	}
	v2.Origin = &forged
	if rv, err = Compare(v1, v2); err != nil {
		t.Fatal(err)
	}
	if w := rv.Words(); !strings.Contains(w, "(read this first): version 1.0.1 was built") || !strings.Contains(w, "served with provenance that does not hold") {
		t.Errorf("the review of a forged attestation:\n%s", w)
	}
	if asked := reg.Asked(); len(asked) != 4 || asked[0] != "gundam-visor@1.0.1" || asked[1] != "gundam-visor@1.0.2" {
		t.Errorf("the registry was asked for %v", asked)
	}
}

// TestOriginUnreachable: a registry that cannot be reached leaves the
// origin unchecked, in words, and nothing fails.
func TestOriginUnreachable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte("registry=http://127.0.0.1:1/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := &NPM{Env: append(os.Environ(), "HOME="+home), Cache: filepath.Join(t.TempDir(), "cache")}
	p := Pin{Spec: Spec{Package: "gundam-visor"}, Lock: Lock{Root: "gundam-visor", Packages: []Package{pinnedGundam(t)}}, Dir: t.TempDir()}
	o := n.Origin(t.Context(), p)
	if o.CI() || !strings.HasPrefix(o.Words(), "its provenance could not be checked: asking the registry") {
		t.Errorf("an unreachable registry: %+v, %q", o, o.Words())
	}
}

// TestOriginChangeWords: only a version built by a CI followed by one
// published by hand, or whose attestation does not hold, is put first; a
// registry that did not answer for the new one is said, not taken for a
// theft.
func TestOriginChangeWords(t *testing.T) {
	t.Parallel()
	ci := &Origin{Provenance: Provenance{Repository: "https://github.com/x/y", Commit: "abcdef1234567890"}}
	for _, c := range []struct {
		to   *Origin
		lost bool
		want string
	}{
		{&Origin{}, true, "Where it was built changed (read this first): version 1.0.0 was built from github.com/x/y (commit abcdef123456) by its CI — claimed, not verified against Sigstore; version 1.0.1 was published by hand: nothing says where it was built. A package that its CI published and that is now published by hand is how a stolen npm token shows."},
		{&Origin{Refused: "it is the provenance of another tarball than the one pinned"}, true, "version 1.0.1: its provenance was not accepted: it is the provenance of another tarball than the one pinned. A package that its CI published and that is now served with provenance that does not hold"},
		{&Origin{Unchecked: "the registry answered 503 Service Unavailable"}, false, "Version 1.0.1: its provenance could not be checked: the registry answered 503 Service Unavailable."},
		{ci, false, "Version 1.0.1 was built from github.com/x/y"},
	} {
		r := Review{Package: "x", FromVersion: "1.0.0", ToVersion: "1.0.1", FromOrigin: ci, ToOrigin: c.to}
		if r.OriginLost() != c.lost || !strings.Contains(r.OriginWords(), c.want) {
			t.Errorf("to %+v: lost %v, %q", c.to, r.OriginLost(), r.OriginWords())
		}
	}
}
