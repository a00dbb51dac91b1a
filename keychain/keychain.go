package keychain

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/mcptray/mcptray/core/secret"
	"github.com/zalando/go-keyring"
)

var _ secret.Store = (*Keychain)(nil)

// kinds are the kinds DeleteServer removes. The keychain cannot list a
// server's items, so a new secret.Kind must be added here (a test checks).
var kinds = []secret.Kind{secret.Tokens, secret.Client, secret.IdPTokens, secret.GatewayToken, secret.DPoPKey}

// lockStripes is how many locks guard the accounts: enough that unrelated
// servers rarely wait on each other.
const lockStripes = 16

// Keychain is a secret.Store on the operating system's keychain. Each
// secret is kept under the Keychain's service name and the account
// "<server>/<kind>", split over several items when it is long (see
// format.go). It is safe for concurrent use.
//
// Every call runs the keychain's work on a goroutine of its own and returns
// as soon as ctx is done: a locked keychain may hold a call until the person
// answers an unlock prompt. The abandoned work then goes on in the
// background, and may still complete; a Set that sees ctx done before it
// commits the new value stops without committing it.
type Keychain struct {
	service string
	// locks order the calls on one account within this process: a reader
	// never sees a value half-replaced by a writer beside it.
	locks [lockStripes]sync.RWMutex
}

// New returns the keychain's store for service ("mcptray" for mcptray
// itself; tests use names of their own).
func New(service string) *Keychain {
	return &Keychain{service: service}
}

// Get returns the secret under key, secret.ErrNotFound, a
// *secret.UnavailableError when there is no keychain to read, or ErrDamaged
// when what is stored is not a whole value.
func (k *Keychain) Get(ctx context.Context, key secret.Key) ([]byte, error) {
	account, err := accountOf(key)
	if err != nil {
		return nil, err
	}
	return run(ctx, func() ([]byte, error) {
		l := k.lock(account)
		l.RLock()
		defer l.RUnlock()
		v, err := k.get(ctx, account)
		return v, wrap("reading %s from the keychain", account, err)
	})
}

// Set stores value under key, replacing any earlier one and every piece of
// it. Values over a megabyte are refused.
func (k *Keychain) Set(ctx context.Context, key secret.Key, value []byte) error {
	account, err := accountOf(key)
	if err != nil {
		return err
	}
	if len(value) > maxValue {
		return fmt.Errorf("saving %s in the keychain: %d bytes is more than the %d it takes", account, len(value), maxValue)
	}
	_, err = run(ctx, func() (struct{}, error) {
		l := k.lock(account)
		l.Lock()
		defer l.Unlock()
		return struct{}{}, wrap("saving %s in the keychain", account, k.set(ctx, account, value))
	})
	return err
}

// Delete removes the secret under key and every piece of it. Deleting a
// missing one is not an error.
func (k *Keychain) Delete(ctx context.Context, key secret.Key) error {
	account, err := accountOf(key)
	if err != nil {
		return err
	}
	_, err = run(ctx, func() (struct{}, error) {
		l := k.lock(account)
		l.Lock()
		defer l.Unlock()
		return struct{}{}, wrap("removing %s from the keychain", account, k.delete(account))
	})
	return err
}

// DeleteServer removes every secret kept for server, of every kind: what is
// done when a server is removed from mcptray.
func (k *Keychain) DeleteServer(ctx context.Context, server string) error {
	var errs []error
	for _, kind := range kinds {
		err := k.Delete(ctx, secret.Key{Server: server, Kind: kind})
		if err != nil && (secret.IsUnavailable(err) || ctx.Err() != nil) {
			// The other kinds would fail the same way.
			if len(errs) == 0 {
				return err
			}
			return errors.Join(append(errs, err)...)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// accountOf names key's head item. "/" separates server and kind and "#"
// starts a chunk's suffix, so neither may appear in them.
func accountOf(key secret.Key) (string, error) {
	switch {
	case key.Server == "" || key.Kind == "":
		return "", errors.New("keychain: a key needs a server and a kind")
	case strings.ContainsAny(key.Server, "/#"):
		return "", errors.New("keychain: a server id may not contain / or #")
	case strings.ContainsAny(string(key.Kind), "/#"):
		return "", errors.New("keychain: a kind may not contain / or #")
	}
	return key.Server + "/" + string(key.Kind), nil
}

func (k *Keychain) lock(account string) *sync.RWMutex {
	h := fnv.New32a()
	h.Write([]byte(account))
	return &k.locks[h.Sum32()%lockStripes]
}

// run calls f on a goroutine of its own and returns its result, or ctx's
// error as soon as ctx is done; f then goes on in the background. f must
// not block on anything but the keychain.
func run[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		select {
		case r := <-done: // finished at the same moment: report what happened
			return r.v, r.err
		default:
			return zero, ctx.Err()
		}
	}
}

// wrap says which item an error is about (format has one %s, for the
// account). secret.ErrNotFound and *secret.UnavailableError pass unchanged:
// the first is an answer, not a failure, and the second is already in words
// for the person.
func wrap(format, account string, err error) error {
	if err == nil || errors.Is(err, secret.ErrNotFound) || secret.IsUnavailable(err) {
		return err
	}
	return fmt.Errorf(format+": %w", account, err)
}

// The item helpers call go-keyring and translate its errors.

func (k *Keychain) getItem(account string) (string, error) {
	s, err := keyring.Get(k.service, account)
	if vanished(err) {
		return "", secret.ErrNotFound
	}
	return s, backendErr(err)
}

func (k *Keychain) setItem(account, text string) error {
	return backendErr(keyring.Set(k.service, account, text))
}

// deleteItem removes an item; a missing one is not an error.
func (k *Keychain) deleteItem(account string) error {
	err := keyring.Delete(k.service, account)
	if vanished(err) {
		return nil
	}
	err = backendErr(err)
	if errors.Is(err, secret.ErrNotFound) {
		return nil
	}
	return err
}

// getRetries is how many more times get reads a value whose pieces do not
// add up: another process may have replaced it between two reads.
const getRetries = 2

func (k *Keychain) get(ctx context.Context, account string) ([]byte, error) {
	if err := checkBackend(); err != nil {
		return nil, err
	}
	var err error
	for range 1 + getRetries {
		var v []byte
		v, err = k.read(ctx, account)
		if !errors.Is(err, ErrDamaged) {
			return v, err
		}
	}
	return nil, err
}

// read reads a value once: its head, then its chunks.
func (k *Keychain) read(ctx context.Context, account string) ([]byte, error) {
	text, err := k.getItem(account)
	if err != nil {
		return nil, err
	}
	h, err := parseHead(text)
	if err != nil {
		return nil, err
	}
	chunks := make([]string, 0, h.chunks)
	for i := 1; i <= h.chunks; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := k.getItem(chunkAccount(account, h.slot, i))
		if errors.Is(err, secret.ErrNotFound) {
			break // join reports the missing piece
		}
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, c)
	}
	return h.join(chunks)
}

// set writes the new value's chunks into the slot the current value does
// not use, then the head, which commits it; then it removes what is left
// of earlier values. Until the head is written, readers (and a restart
// after a crash) see the old value whole.
func (k *Keychain) set(ctx context.Context, account string, value []byte) error {
	if err := checkBackend(); err != nil {
		return err
	}
	current, err := k.currentHead(account)
	if err != nil {
		return err
	}
	slot := otherSlot(current.slot)
	headText, chunks := split(slot, value)
	for i, c := range chunks {
		if err := ctx.Err(); err != nil {
			return errors.Join(err, k.sweep(account, slot, 1, i))
		}
		if err := k.setItem(chunkAccount(account, slot, i+1), c); err != nil {
			return err // the next Set or Delete removes what was written
		}
	}
	if err := ctx.Err(); err != nil {
		return errors.Join(err, k.sweep(account, slot, 1, len(chunks)))
	}
	if err := k.setItem(account, headText); err != nil {
		return err
	}
	// The value is saved. What follows only tidies up, so it goes on
	// whatever ctx says: the chunks of the value replaced, and any left by
	// a Set that stopped half-way.
	if len(chunks) == 0 {
		err = k.sweepAll(account, current)
	} else {
		old, through := otherSlot(slot), 0
		if current.slot == old {
			through = current.chunks
		}
		err = errors.Join(
			k.sweep(account, slot, len(chunks)+1, 0),
			k.sweep(account, old, 1, through))
	}
	if err != nil {
		return fmt.Errorf("saved, but the old value's pieces are still there: %w", err)
	}
	return nil
}

// delete removes the head first, so that no reader finds a head whose
// chunks are going, then the chunks of both slots.
func (k *Keychain) delete(account string) error {
	if err := checkBackend(); err != nil {
		return err
	}
	current, err := k.currentHead(account)
	if err != nil {
		return err
	}
	if err := k.deleteItem(account); err != nil {
		return err
	}
	return k.sweepAll(account, current)
}

// currentHead reads the manifest of the value stored under account: no
// slot when there is none, when it is held whole in the head, or when the
// head cannot be read as one.
func (k *Keychain) currentHead(account string) (head, error) {
	text, err := k.getItem(account)
	if errors.Is(err, secret.ErrNotFound) {
		return head{}, nil
	}
	if err != nil {
		return head{}, err
	}
	h, err := parseHead(text)
	if err != nil {
		return head{}, nil // damaged: both slots are swept
	}
	return h, nil
}

// sweepAll removes every chunk of account: those current's manifest names,
// and any others.
func (k *Keychain) sweepAll(account string, current head) error {
	through := func(slot byte) int {
		if slot == current.slot {
			return current.chunks
		}
		return 0
	}
	return errors.Join(
		k.sweep(account, 'a', 1, through('a')),
		k.sweep(account, 'b', 1, through('b')))
}

// sweep removes the chunks of account's slot from the from-th: all of
// them through the through-th (the count a manifest named, which may have
// gaps where a piece went missing) and beyond that as far as they run.
// It removes them from the last back, so that a sweep cut short leaves a
// run that starts at from, which the next sweep finds whole.
func (k *Keychain) sweep(account string, slot byte, from, through int) error {
	last := max(from-1, through)
	for i := last + 1; i <= maxChunks; i++ {
		_, err := k.getItem(chunkAccount(account, slot, i))
		if errors.Is(err, secret.ErrNotFound) {
			break
		}
		if err != nil {
			return err
		}
		last = i
	}
	for i := last; i >= from; i-- {
		if err := k.deleteItem(chunkAccount(account, slot, i)); err != nil {
			return err
		}
	}
	return nil
}
