package service

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/core/config"
)

// SetPermission keeps what the gateway does when an app calls tool (its
// qualified name, mcp__SERVER__TOOL) in the person's config, as mcptray
// permissions does, and reads the config again at once so that the next
// Snapshot has it.
func (s *Service) SetPermission(_ context.Context, tool string, p config.Permission) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if !p.Valid() {
		return newError(Invalid, "%q is not allow, ask or block", p)
	}
	err := config.ModifyUserFile(s.opts.Paths.UserFile(), func(u *config.UserFile) error {
		r, err := u.GatewayRules()
		if err != nil {
			return err
		}
		if r.Permissions == nil {
			r.Permissions = map[string]config.Permission{}
		}
		r.Permissions[tool] = p
		return u.SetGatewayRules(r)
	})
	if err != nil {
		return wrapError(fmt.Errorf("keeping the permission of %s: %w", tool, err))
	}
	s.reload()
	return nil
}
