package service

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// SetSecretAction means the server needs a secret that has not been
// entered: its config refers to ${secret:NAME} and the keychain holds no
// value for it. Fix.Secret names it; the front end asks for the value (never
// echoed) and calls SetSecret.
const SetSecretAction Action = "set-secret"

// maxSecret bounds a secret's value: API keys and tokens are short, and a
// longer value is a pasted file.
const maxSecret = 16 << 10

// SecretRequest sets one secret of one server.
type SecretRequest struct {
	// Server is the server's name in mcptray.
	Server string `json:"server"`
	// Name is the secret's name, as its config refers to it:
	// ${secret:NAME}.
	Name string `json:"name"`
	// Value is the secret. It is kept in the keychain and nowhere else.
	Value string `json:"value"`
}

// SecretInfo is one secret a server's config refers to. Its value is never
// here.
type SecretInfo struct {
	Name string `json:"name"`
	// Set says whether the keychain holds a value for it.
	Set bool `json:"set"`
}

// readSecret is the connection manager's way to a server's secrets.
func (s *Service) readSecret(ctx context.Context, sv *config.Server, name string) (string, error) {
	return s.secrets.Read(ctx, sv, name)
}

// rememberSecrets adds secrets just stored to the keeper's index, after
// the file that refers to them was written (secretkeep.Keeper.Remember).
func (s *Service) rememberSecrets(scope config.Scope, file, server string, names []string) {
	s.secrets.Remember(s.ctx, scope, file, server, names)
}

// forgetVanishedSecrets removes from the keychain the secrets of servers
// that are gone from set (secretkeep.Keeper.ForgetVanished).
func (s *Service) forgetVanishedSecrets(set *config.Set) {
	s.secrets.ForgetVanished(s.ctx, set, s.loader.Load)
}

// checkSecretValue refuses values a server could not be given. It never
// quotes the value.
func checkSecretValue(name, v string) error {
	switch {
	case v == "":
		return newError(Invalid, "the value for %s is empty", name)
	case len(v) > maxSecret:
		return newError(Invalid, "the value for %s is %d bytes long; a secret takes at most %d", name, len(v), maxSecret)
	case strings.ContainsAny(v, "\x00\r\n"):
		return newError(Invalid, "the value for %s holds a line break or a NUL, which no variable or header can carry", name)
	}
	return nil
}

// putSecrets stores values (by name) as sv's secrets, each of which sv
// must refer to. undo removes those it stored.
func (s *Service) putSecrets(ctx context.Context, sv *config.Server, values map[string]string) (undo func(), err error) {
	refs := sv.SecretNames()
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(refs, name) {
			return nil, newError(Invalid, "%s does not refer to a secret called %s (write ${secret:%s} where it goes)",
				sanitize.Line(sv.Name), sanitize.Line(name), sanitize.Line(name))
		}
		if err := checkSecretValue(name, values[name]); err != nil {
			return nil, err
		}
	}
	undo, err = s.secrets.Put(ctx, sv, values)
	return undo, wrapError(err)
}

// secretServer finds a configured server that may have secrets.
func (s *Service) secretServer(name string) (*config.Entry, error) {
	e, err := s.find(s.inUse(), name)
	if err != nil {
		return nil, err
	}
	if e.Transport == config.InProcess {
		return nil, newError(NotAllowed, "mcptray's own server has no secrets")
	}
	return e, nil
}

// SetSecret keeps a server's secret in the keychain and starts the server
// again with it. The server's config must refer to it as ${secret:NAME}.
func (s *Service) SetSecret(ctx context.Context, req SecretRequest) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	e, err := s.secretServer(req.Server)
	if err != nil {
		return err
	}
	if len(e.SecretNames()) == 0 {
		return newError(Invalid, "%s's config refers to no secret; add one by writing ${secret:NAME} in its env or headers",
			sanitize.Line(e.Name))
	}
	if !slices.Contains(e.SecretNames(), req.Name) {
		return newError(Invalid, "%s has no secret called %s; its secrets are %s",
			sanitize.Line(e.Name), sanitize.Line(req.Name), strings.Join(e.SecretNames(), ", "))
	}
	if _, err := s.putSecrets(ctx, &e.Server, map[string]string{req.Name: req.Value}); err != nil {
		return err
	}
	s.rememberSecrets(e.Scope, e.Origin.File, e.ConfigName, []string{req.Name})
	s.activitySecretsChanged()
	s.log.Info("secret set", "server", e.Name, "secret", req.Name)
	if err := s.conns.Retry(e.Name); err != nil {
		s.log.Debug("not retrying after a secret was set", "server", e.Name, "err", err)
	}
	return nil
}

// UnsetSecret removes a server's secret from the keychain. The server
// then fails, needing it, until it is set again.
func (s *Service) UnsetSecret(ctx context.Context, req SecretRequest) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	e, err := s.secretServer(req.Server)
	if err != nil {
		return err
	}
	if err := s.secrets.Remove(ctx, &e.Server, req.Name); err != nil {
		return wrapError(err)
	}
	s.log.Info("secret removed", "server", e.Name, "secret", req.Name)
	return nil
}

// Secrets lists the secrets a server's config refers to, and whether each
// is set. Values are never returned.
func (s *Service) Secrets(ctx context.Context, server string) ([]SecretInfo, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	e, err := s.secretServer(server)
	if err != nil {
		return nil, err
	}
	out := []SecretInfo{}
	for _, name := range e.SecretNames() {
		set, err := s.secrets.Has(ctx, &e.Server, name)
		if err != nil {
			return nil, wrapError(err)
		}
		out = append(out, SecretInfo{Name: name, Set: set})
	}
	return out, nil
}

// forgetSecrets removes the secrets of the user-scope server called name,
// as it was in before, from the keychain (secretkeep.Keeper.Forget).
func (s *Service) forgetSecrets(ctx context.Context, before *config.Set, name string) error {
	return s.secrets.Forget(ctx, before, name)
}

// commandArg writes a server's name as a shell argument: as it is when it
// is plain, else in single quotes.
func commandArg(name string) string {
	name = sanitize.Line(name)
	if name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_.@/:", r))
	}) {
		return name
	}
	return "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
}
