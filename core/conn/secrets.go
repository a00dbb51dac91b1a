package conn

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
)

// SecretFunc returns the value of the secret called name that s's config
// refers to as ${secret:NAME}. It returns an error that wraps
// secret.ErrNotFound when there is none.
type SecretFunc func(ctx context.Context, s *config.Server, name string) (string, error)

// MissingSecretError says that a server's config refers to a secret that
// has not been set. Its message is the reason a person sees.
type MissingSecretError struct{ Name string }

func (e *MissingSecretError) Error() string { return "needs " + e.Name + missingSecretTail }

// missingSecretTail ends a MissingSecretError's message, so that the
// reason can be recognised after it has become a status's text.
const missingSecretTail = ", a secret that has not been entered"

// MissingSecret returns the name of the secret a status's text says is
// missing, and whether it says so.
func MissingSecret(why string) (string, bool) {
	name, ok := strings.CutPrefix(why, "needs ")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, missingSecretTail)
	if !ok || name == "" || strings.ContainsAny(name, " ,") {
		return "", false
	}
	return name, true
}

// withSecrets returns s with every ${secret:NAME} in its args, env and
// headers replaced by the secret's value, and every ${secret-file:NAME}
// in its args and env by the path of a file that holds it
// (secretFiles), or s itself when it refers to none. The copy is used for
// this connection only: the config, the approval key and every snapshot
// keep the references. The files are removed by remove, which the caller
// calls when the server has stopped.
func (m *Manager) withSecrets(ctx context.Context, s *config.Server) (_ *config.Server, remove func(), err error) {
	remove = func() {}
	if len(s.SecretNames()) == 0 {
		return s, remove, nil
	}
	var files *secretFiles
	defer func() {
		if err != nil {
			files.remove()
			remove = func() {}
		}
	}()
	values := map[string]string{}
	get := func(name string) (string, error) {
		if v, ok := values[name]; ok {
			return v, nil
		}
		if m.opts.Secrets == nil {
			return "", &MissingSecretError{Name: name}
		}
		v, err := m.opts.Secrets(ctx, s, name)
		switch {
		case errors.Is(err, secret.ErrNotFound):
			return "", &MissingSecretError{Name: name}
		case err != nil:
			// Not the value: only what went wrong reading it.
			return "", fmt.Errorf("its secret %s cannot be read: %w", name, err)
		}
		values[name] = v
		return v, nil
	}
	// Each one first, in a fixed order, so that the reason names the same
	// missing secret every time.
	for _, name := range s.SecretNames() {
		if _, err := get(name); err != nil {
			return nil, nil, err
		}
	}
	path := func(name string) (string, error) {
		if files == nil {
			var err error
			if files, err = m.opts.secretFilesFor(s); err != nil {
				return "", err
			}
		}
		return files.path(name, values[name])
	}
	c := *s
	c.Args = slices.Clone(s.Args)
	c.Env = maps.Clone(s.Env)
	c.Headers = maps.Clone(s.Headers)
	for i, a := range c.Args {
		if c.Args[i], err = config.ReplaceSecretRefs(a, get); err != nil {
			return nil, nil, err
		}
		if c.Args[i], err = config.ReplaceSecretFileRefs(c.Args[i], path); err != nil {
			return nil, nil, err
		}
	}
	for k, v := range c.Env {
		if c.Env[k], err = config.ReplaceSecretRefs(v, get); err != nil {
			return nil, nil, err
		}
		if c.Env[k], err = config.ReplaceSecretFileRefs(c.Env[k], path); err != nil {
			return nil, nil, err
		}
	}
	for k, v := range c.Headers {
		if c.Headers[k], err = config.ReplaceSecretRefs(v, get); err != nil {
			return nil, nil, err
		}
	}
	if c.URL, err = config.ReplaceSecretRefs(c.URL, get); err != nil {
		return nil, nil, err
	}
	return &c, files.remove, nil
}
