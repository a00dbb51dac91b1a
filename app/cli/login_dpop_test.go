package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/test/authserver"
)

// TestLoginDPoP: the authorization server offers DPoP, as most identity
// providers do. mcptray binds the tokens only for a server that says it
// takes them; a server that says so and refuses them all the same costs
// one more sign-in, not a loop of them, and is then signed in to with
// Bearer tokens, which refresh.
func TestLoginDPoP(t *testing.T) {
	t.Parallel()
	authserver.RequireSessionBus(t)
	for _, tc := range []struct {
		name     string
		resource authserver.Resource
		signIns  int      // sign-ins in the browser
		proofs   int      // token requests with a DPoP proof, before the refresh
		refused  []string // schemes the server refused
		dpop     bool     // requests went with DPoP-bound tokens
	}{
		{"Bearer-only server", authserver.BearerOnly, 1, 0, nil, false},
		{"server that takes only DPoP", authserver.DPoPRequired, 1, 1, nil, true},
		{"server that says DPoP and takes Bearer", authserver.DPoPClaimed, 2, 1, []string{"DPoP"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, srv := signInHome(t)
			srv.SetDPoP(true, tc.resource)
			t.Cleanup(func() { h.run("logout", "remote") })

			code, out, errOut := h.run("call", "remote", "echo", `{"text":"hi"}`)
			if code != 0 || !strings.Contains(out, "hi") {
				t.Fatalf("call: exit %d\nstdout: %s\nstderr: %s\nserver saw %+v", code, out, errOut, srv.Stats())
			}
			checkPlain(t, errOut, srv)
			st := srv.Stats()
			if st.Authorizations != tc.signIns || st.DPoPProofs != tc.proofs || !slices.Equal(st.Refused, tc.refused) || (st.DPoPAccepted > 0) != tc.dpop {
				t.Errorf("sign-ins %d, proofs %d, refused %q, DPoP requests %d; want %d, %d, %q, DPoP %v",
					st.Authorizations, st.DPoPProofs, st.Refused, st.DPoPAccepted, tc.signIns, tc.proofs, tc.refused, tc.dpop)
			}

			// The token refused later (expired on the server's side): a
			// refresh does, in the same scheme, with no sign-in.
			srv.ExpireAccessTokens()
			if out := h.must("call", "remote", "echo", `{"text":"still me"}`); !strings.Contains(out, "still me") {
				t.Errorf("call after the token was refused: %q", out)
			}
			scheme, proofs := "Bearer", st.DPoPProofs
			if tc.dpop {
				scheme, proofs = "DPoP", proofs+1
			}
			after := srv.Stats()
			if after.Authorizations != st.Authorizations || after.Refreshes != st.Refreshes+1 || after.Reuses != 0 ||
				after.DPoPProofs != proofs || !slices.Equal(after.Refused, append(st.Refused, scheme)) {
				t.Errorf("after the expired token: %+v, was %+v; want the %s token refused once, one refresh, no sign-in", after, st, scheme)
			}
		})
	}
}
