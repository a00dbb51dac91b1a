package service

import "github.com/mcptray/mcptray/core/config"

// A sandboxed server's private data folder goes with the server, and a
// renamed one keeps it (core/service/datafolders, s.data): use tells the
// part what changed in each config put to use.

// inUseWhile calls fn with the config in use, while no other is put to
// use (the data folders' removals).
func (s *Service) inUseWhile(fn func(*config.Set)) {
	s.useMu.Lock()
	defer s.useMu.Unlock()
	fn(s.current())
}
