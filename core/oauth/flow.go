package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/oauth2"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// SignIn signs the person in to a remote server and keeps the tokens in the
// store. ch is the server's last 401/403 challenge, where discovery starts
// (its resource_metadata and scope); nil means mcptray asks the server
// itself. A 403 insufficient_scope challenge asks for the larger scope
// (step-up).
//
// For the authorization code grant it opens the browser and waits, at most
// Options.SignInTimeout, for the person; cancel ctx to give up.
func (m *Manager) SignIn(ctx context.Context, s *config.Server, ch *transport.AuthError) error {
	if m.opts.Store == nil {
		return errNoStore
	}
	if !s.Transport.Remote() || s.URL == "" {
		return fmt.Errorf("%s is not a remote server; only remote servers sign in", s.Name)
	}
	st := m.opts.Settings(s)
	if ch == nil {
		ch = m.probe(ctx, s)
	}
	d, err := m.discover(ctx, httpURL(s.URL), ch, st)
	if err != nil {
		return err
	}
	switch st.Grant {
	case ClientCredentials:
		return m.signInClientCredentials(ctx, s, d, st, ch)
	case CrossAppAccess:
		return m.signInXAA(ctx, s, d, st, ch)
	case JWTBearer:
		return m.signInJWTBearer(ctx, s, d, st, ch)
	}
	return m.signInBrowser(ctx, s, d, st, ch)
}

// signInBrowser runs the authorization code grant with PKCE S256 through
// the browser and the loopback listener.
func (m *Manager) signInBrowser(ctx context.Context, s *config.Server, d *discovery, st Settings, ch *transport.AuthError) error {
	if !d.defaults && !d.meta.supportsS256() {
		return &SignInError{Reason: "the authorization server does not offer PKCE with S256, which the MCP spec requires; mcptray will not sign in without it"}
	}
	if err := d.meta.checkEndpoints(true); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	if err := checkOpenable(d.meta.AuthorizationEndpoint); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	scopes := chooseScopes(st.Scopes, ch, d, m.grantedScopes(ctx, s))

	lb, err := m.listen(ctx, s, st)
	if err != nil {
		return err
	}
	defer lb.close()
	client, err := m.resolveClient(ctx, s, d, st, lb.redirectURI)
	if err != nil {
		return err
	}

	verifier := oauth2.GenerateVerifier()
	conf := &oauth2.Config{
		ClientID: client.ClientID, ClientSecret: client.secret(),
		Endpoint: oauth2.Endpoint{
			AuthURL: d.meta.AuthorizationEndpoint, TokenURL: d.meta.TokenEndpoint, AuthStyle: client.authStyle(),
		},
		RedirectURL: lb.redirectURI,
		Scopes:      scopes,
	}
	lb.state = rand.Text()
	lb.issuer = d.meta.Issuer
	lb.issRequired = d.meta.AuthorizationResponseISSSupported
	authURL := conf.AuthCodeURL(lb.state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if err := checkOpenable(authURL); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	lb.serve()

	wctx, cancel := context.WithTimeout(ctx, m.opts.SignInTimeout)
	defer cancel()
	m.log.Info("opening the browser to sign in", "server", s.Name, "authorization_server", redact(d.meta.Issuer))
	if err := m.opts.Browser(wctx, authURL); err != nil {
		return err
	}
	code, err := lb.wait(wctx)
	if err != nil {
		return err
	}
	m.chooseDPoP(ctx, s, d, ch, client)
	key, err := m.clientDPoPKey(ctx, s, client)
	if err != nil {
		return err
	}
	tok, err := conf.Exchange(m.tokenContext(ctx, nil, key), code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		return tokenError("getting the sign-in token", err)
	}
	client.TokenURL, client.Resource, client.Issuer = d.meta.TokenEndpoint, d.resource, d.meta.Issuer
	client.RevocationURL = d.meta.revocationURL()
	if err := m.saveClient(ctx, s, client); err != nil {
		return err
	}
	granted := fromOAuth2(tok, nil, d.meta.TokenEndpoint, d.resource)
	if granted.Scope == "" {
		granted.Scope = strings.Join(scopes, " ")
	}
	if err := m.saveTokens(ctx, s, granted); err != nil {
		return err
	}
	m.log.Info("signed in", "server", s.Name)
	return nil
}

// listen opens the loopback listener: on the config's callbackPort, else on
// the port this server's registered client was registered with (so the
// registration stays good), else on one the system picks.
func (m *Manager) listen(ctx context.Context, s *config.Server, st Settings) (*loopback, error) {
	if st.CallbackPort != 0 {
		return listenLoopback(st.CallbackPort)
	}
	if old, _ := m.loadClient(ctx, s); old != nil && old.Source == sourceRegistered {
		if u, err := url.Parse(old.RedirectURI); err == nil {
			if p, err := strconv.Atoi(u.Port()); err == nil && p > 0 {
				if lb, err := listenLoopback(p); err == nil {
					return lb, nil
				}
			}
		}
	}
	return listenLoopback(0)
}

// initializeBody is the probe's MCP initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcptray","version":"0"}}}`

// probe asks the server, without a token, for its challenge: where
// discovery starts when no connection has seen one yet. A server that
// answers without a challenge gives nil, and discovery starts from the
// well-known URLs.
func (m *Manager) probe(ctx context.Context, s *config.Server) *transport.AuthError {
	hc := transport.NewHTTPClient(transport.HTTPOptions{RequestTimeout: RequestTimeout})
	defer hc.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	var req *http.Request
	var err error
	if s.Transport == config.HTTP {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader(initializeBody))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, httpURL(s.URL), nil)
	}
	if err != nil {
		return nil
	}
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	var ae *transport.AuthError
	if errors.As(err, &ae) {
		return ae
	}
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		if id := resp.Header.Get(sessionHeader); id != "" && s.Transport == config.HTTP {
			m.closeSession(ctx, hc, s, id)
		}
	}
	return nil
}

// sessionHeader carries a streamable HTTP server's session id.
const sessionHeader = "Mcp-Session-Id"

// closeSession ends the session the probe's initialize opened (a server
// that answered without asking for a sign-in may open one), so that it
// does not linger on the server until it times out.
func (m *Manager) closeSession(ctx context.Context, hc *http.Client, s *config.Server, id string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.URL, nil)
	if err != nil {
		return
	}
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set(sessionHeader, id)
	resp, err := hc.Do(req)
	if err != nil {
		m.log.Debug("closing the probe's session", "server", s.Name, "err", err)
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
}

// httpURL turns a ws(s) URL into the http(s) one its handshake goes to.
func httpURL(u string) string {
	switch {
	case strings.HasPrefix(u, "ws://"):
		return "http://" + strings.TrimPrefix(u, "ws://")
	case strings.HasPrefix(u, "wss://"):
		return "https://" + strings.TrimPrefix(u, "wss://")
	}
	return u
}
