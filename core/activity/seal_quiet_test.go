package activity

import (
	"testing"
)

// These attacks leave every link of the chain as it was, and every seal the
// keychain remembers: only the keyed row check and the seals' own numbering
// and MACs show them. An attacker without the keys can make each of them.

// verifyProblems verifies the record at path with keys and returns its
// problems' words.
func verifyProblems(t *testing.T, path string, keys Keys) (VerifyResult, []string) {
	t.Helper()
	res, err := open(t, Options{Path: path, ReadOnly: true, Keys: keys}).Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, p := range res.Problems {
		words = append(words, p.Words)
	}
	return res, words
}

// TestRowEditedUnderItsHashFailsVerify: a row's content changed and its
// hash left alone keeps every link and every seal; the row's keyed hash
// is all that shows it.
func TestRowEditedUnderItsHashFailsVerify(t *testing.T) {
	for _, id := range []int{3, 20} { // a row in the middle, the newest sealed
		keys := testKeys(t)
		path := sealedRecord(t, keys, 20)
		tamper(t, path, `UPDATE activity SET outcome = 'refused', tool = 'delete' WHERE id = ?`, id)
		res, words := verifyProblems(t, path, keys)
		if res.Problem == nil || res.Problem.Kind != Changed || res.Problem.ID != int64(id) {
			t.Errorf("row %d edited under its hash: verify says %q (%+v)", id, words, res)
		}
	}
}
