package service

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// MoveSecretsResult is what MoveSecrets did.
type MoveSecretsResult struct {
	// File is mcptray's config file, which now refers to the keys.
	File string `json:"file"`
	// Server is the server's name in mcptray.
	Server string `json:"server"`
	// Secrets are the names the keys are kept under in the keychain.
	Secrets []string `json:"secrets"`
	// Left is the other app's file that still holds the keys in plain
	// text (mcptray does not edit it), or "".
	Left string `json:"left,omitempty"`
}

// MoveSecrets keeps the keys a server's file holds in plain text (its
// PlainKeys) in the keychain instead. mcptray's own config then refers to
// them as ${secret:NAME}: a server of the user scope is rewritten there
// (and the file's backup no longer holds them); a server imported from
// another app's file is copied there under its name, with the references,
// and takes over from the imported one, whose file is left as it is.
func (s *Service) MoveSecrets(ctx context.Context, name string) (MoveSecretsResult, error) {
	if err := s.checkOpen(); err != nil {
		return MoveSecretsResult{}, err
	}
	e, err := s.secretServer(name)
	if err != nil {
		return MoveSecretsResult{}, err
	}
	if len(e.PlainKeys) == 0 {
		return MoveSecretsResult{}, newError(Invalid, "%s's file holds no key in plain text", sanitize.Line(e.Name))
	}
	if e.Scope != config.User && e.Scope != config.Imported {
		return MoveSecretsResult{}, newError(NotAllowed, "%s comes from %s (%s scope); mcptray moves keys only from its own config and from your apps' configs",
			sanitize.Line(e.Name), e.Origin, e.Scope)
	}
	file := s.opts.Paths.UserFile()
	src := config.Source{Scope: config.User, App: "mcptray", File: file}
	vars := config.Vars{Lookup: s.opts.Lookup, Home: s.opts.Paths.Home}
	res := MoveSecretsResult{File: file, Server: e.Name}
	var moved []config.MovedKey
	undo := func() {}
	err = config.ModifyUserFile(file, func(u *config.UserFile) error {
		raw, had := u.MCPServers[e.ConfigName]
		switch {
		case e.Scope == config.User && !had:
			return newError(NotFound, "%s is no longer in %s", sanitize.Line(e.ConfigName), file)
		case e.Scope == config.Imported && had:
			return newError(Invalid, "your mcptray config already has a server called %q that runs something else; rename one of them first", e.ConfigName)
		case e.Scope == config.Imported:
			var err error
			if raw, err = config.EntryAt(e.Origin.File, e.Origin.Line, e.Origin.Column); err != nil {
				return newError(Invalid, "%v", err)
			}
			if raw, err = withCwd(raw, e.Cwd); err != nil {
				return err
			}
		}
		entry, keys, err := config.MovePlainKeys(raw)
		if err != nil {
			return newError(Invalid, "%s %v", sanitize.Line(e.Name), err)
		}
		if len(keys) == 0 {
			return newError(Invalid, "%s's entry holds no key in plain text any more", sanitize.Line(e.Name))
		}
		sv, err := config.ParseServer(e.ConfigName, entry, src, vars)
		if err != nil {
			return newError(Invalid, "%s cannot be kept in mcptray's config: %v", sanitize.Line(e.Name), err)
		}
		if config.Signature(&sv) != e.Signature {
			return newError(Invalid, "%s would run something else from mcptray's config (%s); add it with mcptray add instead",
				sanitize.Line(e.Name), sanitize.Line(config.Signature(&sv)))
		}
		values := map[string]string{}
		for _, k := range keys {
			values[k.Secret] = k.Value
		}
		if undo, err = s.putSecrets(ctx, &sv, values); err != nil {
			return err
		}
		u.MCPServers[e.ConfigName] = entry
		moved = keys
		return nil
	})
	if err != nil {
		undo()
		return MoveSecretsResult{}, wrapError(err)
	}
	var values []string
	for _, k := range moved {
		res.Secrets = append(res.Secrets, k.Secret)
		values = append(values, k.Value)
	}
	s.rememberSecrets(config.User, file, e.ConfigName, res.Secrets)
	if err := config.ScrubBackup(file, values); err != nil {
		s.log.Warn("the backup of the config may still hold a moved key", "err", err)
	}
	if e.Scope == config.Imported {
		res.Left = e.Origin.File
	}
	s.log.Info("keys moved into the keychain", "server", e.Name, "secrets", res.Secrets)
	s.reload()
	return res, nil
}

// withCwd adds "cwd" to an entry that has none when its server ran in
// folder (an imported project's entry), so that its copy runs there too.
func withCwd(raw json.RawMessage, folder string) (json.RawMessage, error) {
	if folder == "" {
		return raw, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, newError(Invalid, "the entry is not a JSON object")
	}
	if _, ok := obj["cwd"]; ok {
		return raw, nil
	}
	if _, ok := obj["command"]; !ok {
		return raw, nil
	}
	obj["cwd"], _ = json.Marshal(folder)
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding the entry: %w", err)
	}
	return out, nil
}
