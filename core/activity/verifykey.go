package activity

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/core/secret"
)

// The verification key, kept somewhere else. The keychain's verification
// item (seal.go) is what proves every seal; any program of the person's
// session can read it, and with it make a record and its seals anew. As
// journald's verification key, it can be written out (ExportKey) and kept
// off this computer, then given to Verify (Options.VerifyKey): the seals
// are then checked with it rather than with the keychain's. Once it is
// kept elsewhere, the keychain's copy can go (ForgetKey): the writer
// needs only the sealing state, whose keys cannot remake an earlier seal,
// so that whoever reads the keychain from then on cannot remake the
// record as it was sealed until then.

// keyHeader begins an exported verification key.
const keyHeader = "mcptray activity verification key v1"

// ExportKey is the record's verification key, as a few lines of text to
// keep somewhere else than this computer: the record's id and its seed.
func (l *Log) ExportKey(ctx context.Context) ([]byte, error) {
	if l.opts.Keys == nil {
		return nil, errors.New("the activity record is not sealed: there is no keychain to keep its keys")
	}
	var v verifier
	var st sealState
	switch err := l.readKeys(ctx, &v, &st); {
	case errors.Is(err, secret.ErrNotFound):
		return nil, errors.New("your keychain holds no verification key for this record: it was never sealed here, or its key was exported and forgotten")
	case err != nil:
		return nil, fmt.Errorf("reading the verification key from the keychain: %w", err)
	}
	return []byte(fmt.Sprintf("%s\nrecord %s\nseed %s\n", keyHeader, v.Record, hex.EncodeToString(v.Seed))), nil
}

// parseKey reads an exported verification key.
func parseKey(b []byte) (verifier, error) {
	bad := errors.New("this is not an activity record's verification key (mcptray activity key writes one)")
	lines := strings.Split(strings.TrimSpace(string(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")))), "\n")
	if len(lines) != 3 || strings.TrimSpace(lines[0]) != keyHeader {
		return verifier{}, bad
	}
	record, ok1 := strings.CutPrefix(strings.TrimSpace(lines[1]), "record ")
	seedHex, ok2 := strings.CutPrefix(strings.TrimSpace(lines[2]), "seed ")
	seed, err := hex.DecodeString(seedHex)
	if !ok1 || !ok2 || record == "" || err != nil || len(seed) != 32 {
		return verifier{}, bad
	}
	return verifier{Record: record, Seed: seed}, nil
}

// ForgetKey removes the verification key from the keychain, once it is
// kept elsewhere (ExportKey): Verify then needs it given (VerifyKey). The
// sealing state stays, and the writer goes on sealing with it.
func (l *Log) ForgetKey(ctx context.Context) error {
	if l.opts.Keys == nil {
		return errors.New("the activity record is not sealed: there is no keychain to keep its keys")
	}
	var st sealState
	if err := getJSON(ctx, l.opts.Keys, l.items.state, &st); err != nil {
		// Without the state, the next writer would make new keys: a new
		// record, and Verify would say the file was replaced.
		return fmt.Errorf("the keychain has no sealing state for this record, so its verification key stays: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, keychainWait)
	defer cancel()
	if err := l.opts.Keys.Delete(ctx, l.items.verify); err != nil {
		return fmt.Errorf("removing the verification key from the keychain: %w", err)
	}
	return nil
}
