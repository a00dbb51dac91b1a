// Package signin is the service's part that keeps what sign-ins need
// beside the sign-in manager (core/oauth), which it makes: the settings
// given for one sign-in laid over a server's config, the last challenge of
// a server reached by URL, whether the keychain can keep sign-ins, the
// identity provider as sign-in takes it, and the word every mcptray of the
// person's hears when a sign-in changed (tell.go).
//
// core/instance makes a Desk on the keychain beside the service and gives
// it in the service's Options; the service attaches its notices (Attach),
// signs in and out through it, and reconnects servers when it is told; the desk never
// imports the service nor the engine that runs servers (core/conn), and
// core/deps_test.go pins what it may import.
package signin

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// Options configure a Desk.
type Options struct {
	// Store keeps sign-ins: the OS keychain in the product, an in-memory
	// store in tests.
	Store secret.Store
	// Dir is mcptray's folder; the sign-ins' locks, and the file that
	// tells of a sign-in, are in its locks folder.
	Dir    string
	Logger *slog.Logger
	// Browser opens sign-in pages; nil means the system browser.
	Browser oauth.Browser
	// ClientMetadataURL is the https URL of a Client ID Metadata Document
	// to use as the client id where servers support it.
	ClientMetadataURL string
	// Changed is called when what a Snapshot says of sign-ins changed
	// (the keychain's state); nil calls no one. The service gives its
	// notices through Attach.
	Changed func()
}

// Keychain says whether the keychain can keep sign-ins, and when not why
// and what fixes it (the service's Snapshot says it).
type Keychain struct {
	Available bool
	Problem   string
	Fix       string
}

// Desk keeps what sign-ins need. Its methods are safe for concurrent use.
type Desk struct {
	opts     Options
	auth     *oauth.Manager
	attached atomic.Bool // Attach was called

	mu sync.Mutex
	// challenges are the last sign-in challenges of servers reached by
	// URL (configured servers' are in the connection manager), by URL.
	challenges map[string]*transport.AuthError
	// overrides are sign-in settings given for one sign-in, by server key.
	overrides map[string]oauth.Settings
	keychain  Keychain
}

// New returns a desk with its sign-in manager.
func New(o Options) *Desk {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Desk{opts: o, challenges: map[string]*transport.AuthError{}, overrides: map[string]oauth.Settings{}}
	d.auth = oauth.New(oauth.Options{
		Store:             o.Store,
		Logger:            o.Logger,
		Browser:           o.Browser,
		LockDir:           d.lockDir(),
		ClientMetadataURL: o.ClientMetadataURL,
		Settings:          d.settings,
	})
	return d
}

// Auth is the one sign-in manager: servers' tokens, sign-in and sign-out.
func (d *Desk) Auth() *oauth.Manager { return d.auth }

func (d *Desk) lockDir() string { return filepath.Join(d.opts.Dir, "locks") }

// SetChallenge keeps ch, the 401 or 403 that asked for a sign-in to the
// server at url (nil: none).
func (d *Desk) SetChallenge(url string, ch *transport.AuthError) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.challenges[url] = ch
}

// Challenge is the last challenge kept for the server at url, or nil.
func (d *Desk) Challenge(url string) *transport.AuthError {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.challenges[url]
}

// SetOverride lays settings given for one sign-in over sv's config (nil
// removes them).
func (d *Desk) SetOverride(sv *config.Server, st *oauth.Settings) {
	key := oauth.ServerKey(sv)
	d.mu.Lock()
	defer d.mu.Unlock()
	if st == nil {
		delete(d.overrides, key)
		return
	}
	d.overrides[key] = *st
}

// settings is the sign-in manager's view of a server's sign-in settings.
func (d *Desk) settings(sv *config.Server) oauth.Settings {
	base := oauth.SettingsFrom(sv)
	d.mu.Lock()
	over, ok := d.overrides[oauth.ServerKey(sv)]
	d.mu.Unlock()
	if !ok {
		return base
	}
	return mergeSettings(base, over)
}

// mergeSettings lays settings given for one sign-in over the config's.
func mergeSettings(base, over oauth.Settings) oauth.Settings {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&base.ClientID, over.ClientID)
	set(&base.ClientSecret, over.ClientSecret)
	set(&base.AuthServerMetadataURL, over.AuthServerMetadataURL)
	set(&base.PrivateKeyPEM, over.PrivateKeyPEM)
	set(&base.SigningAlg, over.SigningAlg)
	set(&base.IdPTokenURL, over.IdPTokenURL)
	set(&base.IdPClientID, over.IdPClientID)
	set(&base.IdPIDToken, over.IdPIDToken)
	set(&base.Assertion, over.Assertion)
	if over.Grant != "" {
		base.Grant = over.Grant
	}
	if len(over.Scopes) > 0 {
		base.Scopes = over.Scopes
	}
	if over.CallbackPort != 0 {
		base.CallbackPort = over.CallbackPort
	}
	return base
}

// CheckKeychain finds out whether sign-ins can be kept.
func (d *Desk) CheckKeychain(ctx context.Context) {
	_, err := d.opts.Store.Get(ctx, secret.Key{Server: "mcptray-probe", Kind: secret.Tokens})
	if err == nil || errors.Is(err, secret.ErrNotFound) {
		d.setKeychain(Keychain{Available: true})
		return
	}
	d.NoteKeychain(err)
}

// NoteKeychain records a keychain that cannot be used, when err says so.
func (d *Desk) NoteKeychain(err error) {
	var ue *secret.UnavailableError
	if !errors.As(err, &ue) {
		return
	}
	d.setKeychain(Keychain{Problem: ue.Reason, Fix: ue.Fix})
}

func (d *Desk) setKeychain(k Keychain) {
	d.mu.Lock()
	changed := d.keychain != k
	d.keychain = k
	d.mu.Unlock()
	if changed && d.opts.Changed != nil {
		d.opts.Changed()
	}
}

// Keychain says whether the keychain can keep sign-ins, as far as known.
func (d *Desk) Keychain() Keychain {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.keychain
}

// URLServer is a remote server given by its URL rather than configured.
func URLServer(target string) (*config.Server, bool) {
	if !strings.Contains(target, "://") {
		return nil, false // a server's name, as on every call
	}
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil, false
	}
	t := config.HTTP
	if u.Scheme == "ws" || u.Scheme == "wss" {
		t = config.WebSocket
	}
	return &config.Server{Name: u.Host, ConfigName: u.Host, Scope: config.Dynamic, Transport: t, URL: target,
		Origin: config.Origin{App: "the command line"}}, true
}

// IdPTarget names the identity provider in the activity record: its
// issuer.
func IdPTarget(set *config.Set) string {
	if p := set.IdentityProvider; p != nil {
		return p.Issuer
	}
	return "identity provider"
}

// IdentityProvider is set's identity provider as sign-in takes it.
func IdentityProvider(set *config.Set) *oauth.IdentityProvider {
	p := set.IdentityProvider
	if p == nil {
		return nil
	}
	return &oauth.IdentityProvider{
		Issuer: p.Issuer, ClientID: p.ClientID, ClientSecret: p.ClientSecret,
		Scopes: p.Scopes, CallbackPort: p.CallbackPort,
	}
}
