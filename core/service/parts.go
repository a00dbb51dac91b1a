package service

import (
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/core/service/datafolders"
	"github.com/mcptray/mcptray/core/service/secretkeep"
	"github.com/mcptray/mcptray/core/service/signin"
	"github.com/mcptray/mcptray/core/service/trust"
)

// The service's parts are made by core/instance beside what they serve
// and given in Options; New attaches the service to each (what a part
// needs of it: the config in use, a reload, notices, the record). A part
// not given, as in tests that make a service directly, the service makes
// here as core/instance would. A part serves one service: one given that
// serves another already is refused, and New fails.

// attachSecrets takes the keeper of servers' secrets given, or makes one
// on Store.
func (s *Service) attachSecrets() {
	s.secrets = s.opts.Secrets
	if s.secrets == nil {
		s.secrets = secretkeep.New(secretkeep.Options{Store: s.opts.Store, Dir: s.opts.Paths.Dir(), UserFile: s.opts.Paths.UserFile(), Logger: s.log})
	}
}

// attachSignIns takes the sign-in desk given, or makes one on Store, and
// gives it the service's notices.
func (s *Service) attachSignIns() error {
	s.signins = s.opts.SignIns
	if s.signins == nil {
		s.signins = signin.New(signin.Options{
			Store: s.opts.Store, Dir: s.opts.Paths.Dir(), Logger: s.log,
			Browser: s.opts.Browser, ClientMetadataURL: s.opts.ClientMetadataURL,
		})
	}
	if err := s.signins.Attach(func() { s.notices.Publish(struct{}{}) }); err != nil {
		return fmt.Errorf("service: %w", err)
	}
	return nil
}

// attachDataFolders takes the data folders given, or makes them, and
// gives them where the folders are now, the connection manager's word
// that a server stopped and the config in use.
func (s *Service) attachDataFolders() error {
	s.data = s.opts.DataFolders
	if s.data == nil {
		s.data = datafolders.New(datafolders.Options{Logger: s.log})
	}
	err := s.data.Attach(datafolders.Service{
		Dir:     func() string { return s.sandboxOpts().ServersDir },
		Stopped: s.conns.Stopped,
		InUse:   s.inUseWhile,
		// In mcptray's own folder, beside the servers' and out of their
		// reach.
		OwnersFile: s.opts.Paths.DataFolderOwnersFile(),
	})
	if err != nil {
		return fmt.Errorf("service: %w", err)
	}
	return nil
}

// attachTrust takes the trust keeper given, or makes one on the approvals
// file, and gives it the record. The config loader reads the keeper's
// approvals file, so that a decision and the load after it share its lock.
func (s *Service) attachTrust() error {
	s.trust = s.opts.Trust
	if s.trust == nil {
		s.trust = trust.New(trust.Options{Dir: s.opts.Paths.Dir(), Approvals: s.loader.Approvals, Now: s.opts.Now, Logger: s.log})
	}
	if s.trust.Approvals() == nil {
		return errors.New("service: the trust part was given without the approvals file it records in")
	}
	if err := s.trust.Attach(s.recordTrustBy); err != nil {
		return fmt.Errorf("service: %w", err)
	}
	s.loader.Approvals = s.trust.Approvals()
	return nil
}
