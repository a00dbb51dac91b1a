package service

import (
	"context"
	"errors"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service/signin"
	"github.com/mcptray/mcptray/core/transport"
)

// SignInOptions are settings for one sign-in beyond what the server's
// config says: a pre-registered client, client credentials, cross-app
// access. They may hold secrets; they are used for this sign-in and kept
// only in the keychain.
type SignInOptions struct {
	Settings *oauth.Settings `json:"settings,omitempty"`
}

// SignIn signs the person in to a remote server: a configured one by name,
// or any by URL. A saved sign-in that the server refused is refreshed
// first; only when that does not do does the browser open (or the client
// credentials or cross-app access grant run). A server that asked for
// more permissions (403 insufficient_scope) gets a sign-in for them.
// Cancel ctx to give up waiting for the browser.
func (s *Service) SignIn(ctx context.Context, target string, opts SignInOptions) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	sv, name, err := s.remoteTarget(target)
	if err != nil {
		return err
	}
	if opts.Settings != nil {
		s.signins.SetOverride(sv, opts.Settings)
		defer s.signins.SetOverride(sv, nil)
	}
	ch := s.challenge(name, sv)
	if ch == nil || ch.ErrorCode != "insufficient_scope" {
		// A refresh may do, without sending the person anywhere.
		if opts.Settings == nil && s.auth.RefreshNow(ctx, sv) == nil {
			s.recordTrustBy(ctx, activity.SignedIn, target, "refreshed")
			s.signedIn(sv, name)
			return nil
		}
	}
	if err := s.auth.SignIn(ctx, sv, ch); err != nil {
		s.signins.NoteKeychain(err)
		return wrapError(err)
	}
	s.recordTrustBy(ctx, activity.SignedIn, target, "")
	s.signedIn(sv, name)
	return nil
}

// SignOut forgets a remote server's sign-in.
func (s *Service) SignOut(ctx context.Context, target string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	sv, name, err := s.remoteTarget(target)
	if err != nil {
		return err
	}
	err = s.auth.SignOut(ctx, sv)
	if errors.Is(err, oauth.ErrNotRevoked) {
		// Forgotten here all the same; the server just was not told.
		s.log.Warn("signed out, but the server was not told", "server", sanitize.Line(sv.Name), "err", err)
		err = nil
	}
	if err != nil {
		s.signins.NoteKeychain(err)
		return wrapError(err)
	}
	s.recordTrustBy(ctx, activity.SignedOut, target, "")
	s.signedIn(sv, name)
	return nil
}

// signedIn tells every mcptray (this one included) that sv's sign-in
// changed, and reconnects it here.
func (s *Service) signedIn(sv *config.Server, name string) {
	s.signins.Tell(sv)
	if name != "" {
		before, _ := s.conns.Report().Find(name)
		_ = s.conns.Retry(name)
		// Let the server leave its old state before the caller looks,
		// so that a command that signed in does not read the old one.
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		events := s.conns.Subscribe(ctx)
		for {
			now, ok := s.conns.Report().Find(name)
			if !ok || now.Status != before.Status {
				break
			}
			if _, ok := <-events; !ok {
				break
			}
		}
	}
	s.notices.Publish(struct{}{})
}

// watchSignIns reconnects servers whose sign-in another process changed,
// within moments rather than after conn.NeedsAuthTTL.
func (s *Service) watchSignIns() {
	run, err := s.signins.Watch(s.ctx, s.signInElsewhere)
	if err != nil {
		s.log.Warn("sign-ins in other windows will show after a while", "err", err)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		run()
	}()
}

// signInElsewhere reconnects the configured servers whose sign-in has key
// (every server waiting for a sign-in when key is unknown).
func (s *Service) signInElsewhere(key string) {
	set := s.current()
	live := s.conns.Report()
	for i := range set.Servers {
		sv := &set.Servers[i].Server
		if !sv.Transport.Remote() {
			continue
		}
		info, _ := live.Find(sv.Name)
		if oauth.ServerKey(sv) == key || (key == "" && info.Status.State == conn.NeedsAuth) {
			s.auth.Forget(sv)
			_ = s.conns.Retry(sv.Name)
		}
	}
}

// remoteTarget finds the remote server a sign-in names: a configured one
// (name is its name), or one given by URL (name is "").
func (s *Service) remoteTarget(target string) (*config.Server, string, error) {
	if sv, ok := signin.URLServer(target); ok {
		return sv, "", nil
	}
	if target == builtinName {
		return nil, "", newError(NotAllowed, "%s is built into mcptray; only remote servers sign in", target)
	}
	e, err := s.find(s.inUse(), target)
	if err != nil {
		return nil, "", err
	}
	if !e.Transport.Remote() {
		return nil, "", newError(NotAllowed, "%s runs on this computer; only remote servers sign in", sanitize.Line(e.Name))
	}
	sv := e.Server
	return &sv, e.Name, nil
}

// challenge is the 401 or 403 that last asked for a sign-in to the server,
// or nil.
func (s *Service) challenge(name string, sv *config.Server) *transport.AuthError {
	if name != "" {
		if ch, ok := s.conns.AuthChallenge(name); ok {
			return ch
		}
		return nil
	}
	return s.signins.Challenge(sv.URL)
}
