// Package secretkeep is the service's part that keeps servers' secrets in
// the keychain: where each ${secret:NAME} of a server is kept (Key), the
// values stored and read, and an index of what mcptray stored, so that a
// server deleted by hand does not leave its secrets behind (index.go). It
// decides nothing about who may set what: the service checks a request
// first, then hands the keeper what to keep. core/instance makes the
// keeper on the keychain beside the service and gives it in the service's
// Options.
//
// It never imports the service; core/deps_test.go pins what it may
// import.
package secretkeep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/secret"
)

// Options configure a Keeper.
type Options struct {
	// Store is the keychain (an in-memory store in tests).
	Store secret.Store
	// Dir is mcptray's folder, where the index is kept; UserFile is
	// mcptray's config file.
	Dir      string
	UserFile string
	Logger   *slog.Logger
}

// Keeper keeps servers' secrets. Its methods are safe for concurrent use.
type Keeper struct {
	opts Options
}

// New returns a keeper of servers' secrets in o.Store.
func New(o Options) *Keeper {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Keeper{opts: o}
}

// Key is where the secret called name of server s is kept: a stable id
// of the server (a hash of its scope and name, and of its file outside the
// user scope, where two folders may both have a "github") and the secret's
// name as the kind. Neither holds / or #, which the keychain's accounts
// reserve.
func Key(s *config.Server, name string) secret.Key {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", s.Scope, s.ConfigName)
	if s.Scope != config.User {
		fmt.Fprintf(h, "%s\x00", s.Origin.File)
	}
	return secret.Key{Server: "vars-" + hex.EncodeToString(h.Sum(nil))[:32], Kind: secret.Var(name)}
}

// Read is the connection manager's way to a server's secrets.
func (k *Keeper) Read(ctx context.Context, sv *config.Server, name string) (string, error) {
	v, err := k.opts.Store.Get(ctx, Key(sv, name))
	if err != nil {
		return "", err
	}
	return string(v), nil
}

// Put stores values (by name) as sv's secrets, which the service checked
// first. undo removes those it stored.
func (k *Keeper) Put(ctx context.Context, sv *config.Server, values map[string]string) (undo func(), err error) {
	var stored []secret.Key
	undo = func() {
		for _, key := range stored {
			if err := k.opts.Store.Delete(context.WithoutCancel(ctx), key); err != nil {
				k.opts.Logger.Warn("removing a secret again", "kind", key.Kind, "err", err)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		key := Key(sv, name)
		if err := k.opts.Store.Set(ctx, key, []byte(values[name])); err != nil {
			undo()
			return nil, fmt.Errorf("keeping %s in your keychain: %w", name, err)
		}
		stored = append(stored, key)
	}
	return undo, nil
}

// Remove removes sv's secret called name from the keychain.
func (k *Keeper) Remove(ctx context.Context, sv *config.Server, name string) error {
	if err := k.opts.Store.Delete(ctx, Key(sv, name)); err != nil {
		return fmt.Errorf("removing %s from your keychain: %w", name, err)
	}
	return nil
}

// Has says whether the keychain holds a value for sv's secret called
// name, never reading it out of the keeper.
func (k *Keeper) Has(ctx context.Context, sv *config.Server, name string) (bool, error) {
	_, err := k.opts.Store.Get(ctx, Key(sv, name))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, secret.ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("reading %s from your keychain: %w", name, err)
}

// Forget removes the secrets of the user-scope server called name, as it
// was in before, from the keychain.
func (k *Keeper) Forget(ctx context.Context, before *config.Set, name string) error {
	var errs []error
	for _, e := range append(slices.Clone(before.Servers), before.Suppressed...) {
		if e.Scope != config.User || e.ConfigName != name {
			continue
		}
		for _, n := range e.SecretNames() {
			if err := k.opts.Store.Delete(ctx, Key(&e.Server, n)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", n, err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("its secrets could not all be removed from your keychain (%s)", sanitize.Line(errors.Join(errs...).Error()))
	}
	return nil
}
