package service

import (
	"context"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
)

// The activity record (core/activity) is opened by the running mcptray
// (core/instance) beside the service, which it is given to as it is made
// (Options.Record), and the gateway. The service records the person's
// trust decisions in it (approvals, sign-ins and sign-outs, permission
// changes), keeps its settings those of mcptray's config file, and tells
// it which values to mask (ActivitySecrets).

// activitySecretsChanged tells the record that the secrets it masks may
// have changed.
func (s *Service) activitySecretsChanged() {
	s.activity.Load().SecretsChanged()
}

// decidedByKey keys who makes the trust decisions asked for under a
// context (DecidedBy).
type decidedByKey struct{}

// DecidedBy returns ctx saying which of the person's tools asks for what
// is done under it, in words for the activity record: "the window
// (mcptray, pid 4242)", "the command line", "the tray". The control
// endpoint says it for the window and the command line from their
// connection; the tray, and the command line running the service in its
// own process, say it themselves.
func DecidedBy(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, decidedByKey{}, who)
}

// decidedBy is who DecidedBy put in ctx, or "".
func decidedBy(ctx context.Context) string {
	who, _ := ctx.Value(decidedByKey{}).(string)
	return who
}

// recordTrustBy records a trust decision made by who ctx names
// (DecidedBy), when there is a record.
func (s *Service) recordTrustBy(ctx context.Context, action activity.TrustAction, target, detail string) {
	if l := s.activity.Load(); l != nil {
		l.RecordTrust(activity.Trust{Time: s.opts.Now(), Action: action, Target: target, Detail: detail, By: decidedBy(ctx)})
	}
}

// followActivitySettings gives the record the settings mcptray's config
// file holds now.
func (s *Service) followActivitySettings() {
	l := s.activity.Load()
	if l == nil {
		return
	}
	set := s.current()
	if set == nil {
		return
	}
	// The set in use holds them, read with the rest of the config: a
	// second read of the file would be a second path from disk.
	if st := set.Activity; l.Settings() != toActivity(st) {
		l.SetSettings(toActivity(st))
	}
}

func toActivity(st config.ActivitySettings) activity.Settings {
	return activity.Settings{KeepArguments: st.KeepArguments, Days: st.Days, MaxMB: st.MaxMB}
}

// ActivitySettings are the activity record's settings, as mcptray's config
// file holds them (zero fields: the defaults).
func (s *Service) ActivitySettings(ctx context.Context) (config.ActivitySettings, error) {
	if set := s.current(); set != nil {
		return set.Activity, nil // read with the rest of the config
	}
	u, err := config.ReadUserFile(s.opts.Paths.UserFile())
	if err != nil {
		return config.ActivitySettings{}, wrapError(err)
	}
	st, err := u.ActivitySettings()
	if err != nil {
		return st, newError(Invalid, "%s: %v", s.opts.Paths.UserFile(), err)
	}
	return st, nil
}

// SetActivitySettings keeps the activity record's settings in mcptray's
// config file, and applies them.
func (s *Service) SetActivitySettings(ctx context.Context, st config.ActivitySettings) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := st.Check(); err != nil {
		return newError(Invalid, "%v", err)
	}
	if err := config.ModifyActivitySettings(s.opts.Paths.UserFile(), func(a *config.ActivitySettings) { *a = st }); err != nil {
		return wrapError(err)
	}
	s.reload() // the record follows the set (use)
	return nil
}

// ActivityKeys is where the activity record keeps the keys it is chained
// and sealed with: the keychain the service keeps sign-ins in.
func (s *Service) ActivityKeys() activity.Keys { return s.opts.Store }

// ActivitySecrets returns the values of the secrets mcptray keeps, for the
// activity record to mask wherever they appear: every configured server's
// environment (its env file's too) and header values, its OAuth client
// secret and ${secret:NAME} values from the keychain, the identity
// provider's client secret, and the gateway's token. They never leave the
// process.
func (s *Service) ActivitySecrets(ctx context.Context) []string {
	var out []string
	set := s.current()
	opts := s.sandboxOpts()
	for _, e := range slices.Concat(set.Servers, set.Suppressed) {
		for _, v := range e.Env {
			out = append(out, v)
		}
		for _, v := range e.Headers {
			out = append(out, v)
			if _, tok, ok := strings.Cut(v, " "); ok { // "Bearer TOKEN"
				out = append(out, tok)
			}
		}
		if e.EnvFile != "" {
			// As its start reads it: not through a link, nor from a pipe,
			// that the server may have put there.
			if vars, err := opts.EnvFileVars(&e.Server); err == nil {
				for _, v := range vars {
					out = append(out, v)
				}
			}
		}
		if e.OAuth != nil && e.OAuth.ClientSecret != "" {
			out = append(out, e.OAuth.ClientSecret)
		}
		for _, name := range e.SecretNames() {
			if v, err := s.readSecret(ctx, &e.Server, name); err == nil && v != "" {
				out = append(out, v)
			}
		}
	}
	if p := set.IdentityProvider; p != nil && p.ClientSecret != "" {
		out = append(out, p.ClientSecret)
	}
	if v, err := s.opts.Store.Get(ctx, gatewayTokenKey); err == nil && len(v) > 0 {
		out = append(out, string(v))
	}
	return out
}

// permissionWord is a permission as the record says it.
func permissionWord(p config.Permission) string {
	if p == "" {
		return "default"
	}
	return string(p)
}

// ActivitySummary is what the apps did over a span, as the activity
// record sums it up: calls by app, how many the person was asked about,
// were refused, failed, and the flow guard held.
type ActivitySummary = activity.Summary

// ActivityToday sums up today's calls in the activity record, for the
// tray's line and the window's.
func (s *Service) ActivityToday(ctx context.Context) (ActivitySummary, error) {
	if err := s.checkOpen(); err != nil {
		return ActivitySummary{}, err
	}
	l := s.activity.Load()
	if l == nil {
		return ActivitySummary{}, newError(Other, "this mcptray keeps no activity record: it could not open it (mcptray logs says why)")
	}
	sum, err := l.Summary(ctx, activity.StartOfDay(s.opts.Now()))
	if err != nil {
		return ActivitySummary{}, wrapError(err)
	}
	return sum, nil
}
