package service

import (
	"path/filepath"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
)

// refusalsOf are the refusals e's server claims in its error output,
// checked against its policy p (sandbox.Vet): each said as its claim, and
// with a button only when the claim is true and the place is one a click
// may give.
func (s *Service) refusalsOf(e *config.Entry, stderr, home string, p sandbox.Policy) []Refusal {
	keep := s.keepPlaces()
	var out []Refusal
	for _, r := range sandbox.Refusals(stderr) {
		r, ok := sandbox.Vet(r, home, p, keep)
		if !ok {
			continue
		}
		v := Refusal{Refusal: r, Claim: r.Claim(e.Name, home)}
		if r.Kept == "" {
			v.Change = SandboxChange{Server: e.Name, Allow: true}
			if r.Write {
				v.Change.Write = r.Setting(home)
			} else {
				v.Change.Read = r.Setting(home)
			}
			v.Allow, v.Label = r.Allow(home), r.Words(home)
		}
		out = append(out, v)
	}
	return out
}

// keepPlaces are mcptray's own folders, which a refusal's button never
// gives: its config, data and logs, and the servers' folders.
func (s *Service) keepPlaces() sandbox.Keep {
	p := s.opts.Paths
	keep := sandbox.Keep{Servers: s.sandboxOpts().ServersDir}
	for _, d := range []string{p.Dir(), p.DataDir, p.LogDir} {
		if filepath.IsAbs(d) {
			keep.Own = append(keep.Own, d)
		}
	}
	if p.RuntimeDir != "" {
		keep.Own = append(keep.Own, p.ControlDir())
	}
	return keep
}
