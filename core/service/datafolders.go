package service

import (
	"slices"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service/datafolders"
)

// A sandboxed server's private data folder goes with the server, a
// renamed one keeps it, and no server starts in a folder made for another
// (core/service/datafolders, s.data): use tells the part what changed in
// each config put to use.

// keepDataFolders gives each server of set about to start a data folder
// of its own owner's, before any starts (datafolders' Keep), and returns
// set without the servers that must not start, each among the Suppressed
// with why, and the servers whose folders go once they stopped (gone).
func (s *Service) keepDataFolders(before, set *config.Set) (kept *config.Set, gone []string) {
	gone, renamed := datafolders.Changes(before, set)
	refused := s.data.Keep(before, set, renamed)
	if len(refused) == 0 {
		return set, gone
	}
	out := *set
	out.Servers, out.Suppressed = nil, slices.Clone(set.Suppressed)
	for _, e := range set.Servers {
		if why, ok := refused[e.Name]; ok {
			e.Suppressed = why
			out.Suppressed = append(out.Suppressed, e)
			continue
		}
		out.Servers = append(out.Servers, e)
	}
	return &out, gone
}

// inUseWhile calls fn with the config in use, while no other is put to
// use (the data folders' removals).
func (s *Service) inUseWhile(fn func(*config.Set)) {
	s.useMu.Lock()
	defer s.useMu.Unlock()
	fn(s.current())
}
