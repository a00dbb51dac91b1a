package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/core/secret"
)

// loadJSON reads the secret under key into a new T. A missing one is nil;
// so is one that cannot be read, which is as good as none: the person
// signs in again, and nothing half-read is ever used.
func loadJSON[T any](ctx context.Context, store secret.Store, key secret.Key) (*T, error) {
	if store == nil {
		return nil, errNoStore
	}
	b, err := store.Get(ctx, key)
	if errors.Is(err, secret.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, nil
	}
	return &v, nil
}

// storeJSON keeps v under key; what names it in the error a person sees.
func storeJSON(ctx context.Context, store secret.Store, key secret.Key, v any, what string) error {
	if store == nil {
		return errNoStore
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := store.Set(ctx, key, b); err != nil {
		return fmt.Errorf("keeping %s in the keychain: %w", what, err)
	}
	return nil
}
