package egress

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// session is one run of one server: its credential, and what the person
// answered for it (Allow once, Deny) and is being asked.
type session struct {
	server string
	token  string

	mu       sync.Mutex
	verdicts map[string]verdict   // by destination key, "local " before a local one
	asking   map[string]*question // the same
}

// verdict is an answer kept for a session.
type verdict struct {
	allowed bool
	reason  string // why not, when not allowed
}

// sessions are the servers' current sessions, by server name.
type sessions struct {
	mu       sync.Mutex
	byServer map[string]*session
}

// Env is the environment for a server's process: its proxy URL, with a
// new credential, in every variable that programs read a proxy from (the
// package doc says which read which). Calling it again for the same server
// starts a new session, and the credential before stops working. It is nil
// until Start has given the proxy its port.
func (p *Proxy) Env(server string) map[string]string {
	port := p.Port()
	if port == 0 {
		return nil
	}
	s := &session{server: server, token: rand.Text(), verdicts: map[string]verdict{}, asking: map[string]*question{}}
	p.sessions.mu.Lock()
	p.sessions.byServer[server] = s
	p.sessions.mu.Unlock()
	u := (&url.URL{Scheme: "http", User: url.UserPassword(server, s.token), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}).String()
	return map[string]string{
		"HTTPS_PROXY": u, "https_proxy": u,
		"HTTP_PROXY": u, "http_proxy": u,
		"ALL_PROXY": u, "all_proxy": u,
		"NO_PROXY": "", "no_proxy": "",
		"NODE_USE_ENV_PROXY": "1",
		// A proxy in the person's .npmrc or pip.conf would win over
		// the variables above; these win over those files.
		"npm_config_proxy": u, "npm_config_https_proxy": u, "npm_config_noproxy": "",
		"PIP_PROXY": u,
	}
}

// Forget ends a server's session: its credential stops working, and its
// answers of this session are forgotten. Its refusals are kept.
func (p *Proxy) Forget(server string) {
	p.sessions.mu.Lock()
	delete(p.sessions.byServer, server)
	p.sessions.mu.Unlock()
}

// authenticate finds the session whose credential the request carries in
// Proxy-Authorization, or nil.
func (p *Proxy) authenticate(r *http.Request) *session {
	user, token, ok := basicAuth(r.Header.Get("Proxy-Authorization"))
	if !ok {
		return nil
	}
	p.sessions.mu.Lock()
	s := p.sessions.byServer[user]
	if s == nil {
		// Clients send the name as the URL wrote it, or decoded.
		if u, err := url.PathUnescape(user); err == nil {
			s = p.sessions.byServer[u]
		}
	}
	p.sessions.mu.Unlock()
	if s == nil || subtle.ConstantTimeCompare([]byte(token), []byte(s.token)) != 1 {
		return nil
	}
	return s
}

// basicAuth reads a Basic credential.
func basicAuth(h string) (user, password string, ok bool) {
	scheme, enc, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(raw), ":")
}
