// Package secrettest is an in-memory secret.Store for tests, so that no
// test writes to a keychain under the product's own name.
package secrettest

import (
	"context"
	"sync"

	"github.com/mcptray/mcptray/core/secret"
)

// Store keeps secrets in memory.
type Store struct {
	mu sync.Mutex
	m  map[secret.Key][]byte
}

var _ secret.Store = (*Store)(nil)

// New returns an empty Store.
func New() *Store { return &Store{m: map[secret.Key][]byte{}} }

// Get returns the secret under key, or secret.ErrNotFound.
func (s *Store) Get(_ context.Context, key secret.Key) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, secret.ErrNotFound
	}
	return append([]byte(nil), v...), nil
}

// Set stores value under key.
func (s *Store) Set(_ context.Context, key secret.Key, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), value...)
	return nil
}

// Delete removes the secret under key.
func (s *Store) Delete(_ context.Context, key secret.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Len returns how many secrets are kept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
