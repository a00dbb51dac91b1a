package authserver

import "net/http"

// SetRevokeStatus makes the revocation endpoint fail with this HTTP status
// without revoking anything; 0 undoes it.
func (s *Servers) SetRevokeStatus(status int) {
	s.mu.Lock()
	s.revokeStatus = status
	s.mu.Unlock()
}

// revoke is the RFC 7009 revocation endpoint. A refresh token revokes its
// whole family, access tokens included; an access token only itself. An
// unknown token is answered 200 too, as §2.2 asks.
func (s *Servers) revoke(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	id, ok := s.client(r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revokeStatus != 0 {
		writeJSON(w, s.revokeStatus, map[string]any{"error": "temporarily_unavailable"})
		return
	}
	token := r.Form.Get("token")
	if rt := s.refresh[token]; rt != nil && rt.clientID == id {
		s.families[rt.family] = true
		s.revoked++
	} else if at := s.access[token]; at != nil {
		delete(s.access, token)
		s.revoked++
	}
	w.WriteHeader(http.StatusOK)
}
