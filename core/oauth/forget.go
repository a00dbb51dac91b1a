package oauth

import "github.com/mcptray/mcptray/core/config"

// Forget drops what this Manager remembers of a server's sign-in, so that
// its next request reads the keychain again: another process has signed in
// or out.
func (m *Manager) Forget(s *config.Server) { m.source(s).forget() }
