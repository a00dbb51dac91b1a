package activity

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/secret"
)

// exportKey writes out the record's verification key, as mcptray
// activity key does.
func exportKey(t *testing.T, path string, keys Keys) []byte {
	t.Helper()
	key, err := open(t, Options{Path: path, ReadOnly: true, Keys: keys}).ExportKey(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestVerifyKeyKeptElsewhere: the verification key, written out and then
// removed from the keychain, proves the record; the writer goes on
// sealing without it, and Verify without it says where it is.
func TestVerifyKeyKeptElsewhere(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 10)
	key := exportKey(t, path, keys)
	if !strings.HasPrefix(string(key), keyHeader+"\n") {
		t.Fatalf("the exported key: %q", key)
	}
	if err := open(t, Options{Path: path, ReadOnly: true, Keys: keys}).ForgetKey(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), keychainWait)
	defer cancel()
	if _, err := keys.Get(ctx, itemsFor(path).verify); !errors.Is(err, secret.ErrNotFound) {
		t.Fatalf("the verification key is still in the keychain: %v", err)
	}
	l := open(t, Options{Path: path, Keys: keys})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	res, words := verifyProblems(t, path, keys)
	if len(words) > 0 || res.Sealed || !strings.Contains(res.NotSealed, "--key FILE") {
		t.Errorf("verify without the key: %q, %+v", words, res)
	}
	res, err := open(t, Options{Path: path, ReadOnly: true, Keys: keys, VerifyKey: key}).Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != nil || !res.Sealed || !res.KeyGiven || res.SealedThrough != 11 {
		t.Errorf("verify with the key: %+v", res)
	}
	if got := strings.Join(res.Lines(), "\n"); !strings.Contains(got, "checked with the verification key you kept") {
		t.Errorf("verify with the key says %q", got)
	}
	// The key does not vouch for another record, nor a damaged one.
	other := sealedRecord(t, keys, 3)
	res, err = open(t, Options{Path: other, ReadOnly: true, Keys: keys, VerifyKey: key}).Verify(t.Context())
	if err != nil || res.Problem == nil || !slices.ContainsFunc(res.Problems, func(p Problem) bool { return p.Kind == Replaced }) {
		t.Errorf("another record verified with this one's key: %+v, %v", res, err)
	}
	if _, err := open(t, Options{Path: path, ReadOnly: true, Keys: keys, VerifyKey: key[:len(key)-5]}).Verify(t.Context()); err == nil {
		t.Error("a cut key was taken")
	}
}

// TestVerifyKeySeesThroughARemadeKeychain: someone who can read and write
// the keychain (any program of the person's session) changes a row,
// recomputes the chain, removes the seals and the record's keychain items,
// and lets mcptray seal the result anew. Verify with the keychain is
// fooled, as doc.go says it can be; with the key kept elsewhere, it is not.
func TestVerifyKeySeesThroughARemadeKeychain(t *testing.T) {
	keys := testKeys(t)
	path := sealedRecord(t, keys, 10)
	key := exportKey(t, path, keys)

	tamper(t, path, `UPDATE activity SET outcome = 'refused', tool = 'nothing_to_see' WHERE id = 4`)
	recompute(t, path, false)
	tamper(t, path, `DELETE FROM meta WHERE key = 'record'`)
	if err := os.Remove(sealsPath(path)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), keychainWait)
	defer cancel()
	it := itemsFor(path)
	for _, k := range []secret.Key{it.verify, it.state} {
		if err := keys.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	l := open(t, Options{Path: path, Keys: keys})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	if res, words := verifyProblems(t, path, keys); len(words) > 0 || !res.Sealed {
		t.Logf("the keychain's verify was not fooled after all: %q", words)
	}
	res, err := open(t, Options{Path: path, ReadOnly: true, Keys: keys, VerifyKey: key}).Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem == nil {
		t.Fatalf("verify with the key kept elsewhere passed a remade record: %+v", res)
	}
	var words []string
	for _, p := range res.Problems {
		words = append(words, p.Words)
	}
	if !slices.ContainsFunc(res.Problems, func(p Problem) bool { return p.Kind == Replaced }) ||
		!slices.ContainsFunc(res.Problems, func(p Problem) bool { return p.Kind == SealsAltered }) {
		t.Errorf("verify with the key says %q", words)
	}
}
