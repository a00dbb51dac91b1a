package service

import (
	"context"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service/signin"
)

// SignInIdP signs the person in to their identity provider (the
// "identityProvider" of mcptray's config) in the browser. Every server
// set up for Cross-App Access then signs in with no browser of its own;
// those waiting for a sign-in are tried again at once.
func (s *Service) SignInIdP(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	set := s.inUse()
	if signin.IdentityProvider(set) == nil {
		return newError(Invalid, `no identity provider is set up: add "identityProvider" with its "issuer" and "clientId" to %s`, s.opts.Paths.UserFile())
	}
	s.auth.SetIdentityProvider(signin.IdentityProvider(set))
	if err := s.auth.SignInIdP(ctx); err != nil {
		s.signins.NoteKeychain(err)
		return wrapError(err)
	}
	s.recordTrustBy(ctx, activity.SignedIn, signin.IdPTarget(set), "identity provider")
	// Servers set up for Cross-App Access that wait for a sign-in need
	// no browser now: sign them in.
	snap, _ := s.Snapshot(ctx)
	for _, e := range s.current().Servers {
		sv, _ := snap.Find(e.Name)
		if e.OAuth != nil && e.OAuth.XAA && sv.State == conn.NeedsAuth {
			if err := s.SignIn(ctx, e.Name, SignInOptions{}); err != nil {
				s.log.Warn("signing in with the identity provider", "server", sanitize.Line(e.Name), "err", err)
			}
		}
	}
	s.notices.Publish(struct{}{})
	return nil
}

// SignOutIdP forgets the sign-in at the identity provider.
func (s *Service) SignOutIdP(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if signin.IdentityProvider(s.current()) == nil {
		return newError(Invalid, "no identity provider is set up")
	}
	if err := s.auth.SignOutIdP(ctx); err != nil {
		s.signins.NoteKeychain(err)
		return wrapError(err)
	}
	s.recordTrustBy(ctx, activity.SignedOut, signin.IdPTarget(s.current()), "identity provider")
	return nil
}
