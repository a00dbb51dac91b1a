package service

import (
	"context"

	"github.com/mcptray/mcptray/core/config"
)

// pinAdded pins the npm package (or the image) of the server sv that is
// being added, before it is written and starts, and says its facts
// (version, where it was built, its install scripts; an image's digest)
// for the install dialog to show: what the person's yes runs. nil when it
// runs no npm package nor image, packages are
// not pinned, or a server of that name is configured already (whose pin
// this is not). A failure is logged and left to its first start, which
// pins it again and says why it could not.
func (s *Service) pinAdded(ctx context.Context, sv *config.Server) *PackageView {
	if s.opts.Packages == nil || sv.Transport != config.Stdio || sv.Bundle != nil {
		return nil
	}
	spec, ok := detectPin(sv.Command, sv.Args)
	if !ok {
		return nil
	}
	if _, taken := s.current().Find(sv.Name); taken {
		return nil
	}
	if err := s.pin(ctx, sv, config.ApprovalKey(sv), spec, nil); err != nil {
		s.log.Warn("pinning an added server's package", "server", sv.Name, "err", err)
		return nil
	}
	rec, ok, err := s.packageStore().Get(sv.Name)
	if err != nil || !ok {
		return nil
	}
	return s.packageView(ctx, sv, rec.Current)
}
