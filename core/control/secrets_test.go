package control

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// TestSecretsOverTheSocket: the secrets' routes reach the service, and
// none answers with a value.
func TestSecretsOverTheSocket(t *testing.T) {
	t.Parallel()
	_, cl := serveWith(t, make(chan string, 1))
	ctx := context.Background()
	// A program that is not there: the test is about the secrets, not the
	// server.
	entry := json.RawMessage(`{"command":"mcptray-no-such-program","env":{"TOKEN":"${secret:TOKEN}"}}`)
	if _, err := cl.Add(ctx, service.AddRequest{Name: "s", Entry: entry, Secrets: map[string]string{"TOKEN": "v4lue"}}); err != nil {
		t.Fatal(err)
	}
	list, err := cl.Secrets(ctx, "s")
	if err != nil || len(list) != 1 || list[0] != (service.SecretInfo{Name: "TOKEN", Set: true}) {
		t.Fatalf("Secrets = %+v, %v", list, err)
	}
	if err := cl.UnsetSecret(ctx, service.SecretRequest{Server: "s", Name: "TOKEN"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := cl.Secrets(ctx, "s"); len(list) != 1 || list[0].Set {
		t.Errorf("after unset: %+v", list)
	}
	err = cl.SetSecret(ctx, service.SecretRequest{Server: "nobody", Name: "TOKEN", Value: "v4lue"})
	if service.CodeOf(err) != service.NotFound || strings.Contains(err.Error(), "v4lue") {
		t.Errorf("a secret for no server: %v", err)
	}
	if err := cl.SetSecret(ctx, service.SecretRequest{Server: "s", Name: "TOKEN", Value: "other"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := cl.Secrets(ctx, "s"); len(list) != 1 || !list[0].Set {
		t.Errorf("after set: %+v", list)
	}
}

// TestMoveSecretsOverTheSocket: moving a server's plain-text key reaches
// the service, and the answer names the secret, never its value.
func TestMoveSecretsOverTheSocket(t *testing.T) {
	t.Parallel()
	_, cl := serveWith(t, make(chan string, 1))
	ctx := context.Background()
	entry := json.RawMessage(`{"command":"mcptray-no-such-program","env":{"API_KEY":"pl4in"}}`)
	if _, err := cl.Add(ctx, service.AddRequest{Name: "p", Entry: entry}); err != nil {
		t.Fatal(err)
	}
	res, err := cl.MoveSecrets(ctx, "p")
	if err != nil || len(res.Secrets) != 1 || res.Secrets[0] != "API_KEY" {
		t.Fatalf("MoveSecrets = %+v, %v", res, err)
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), "pl4in") {
		t.Errorf("the answer holds the value: %s", b)
	}
	if list, _ := cl.Secrets(ctx, "p"); len(list) != 1 || !list[0].Set {
		t.Errorf("after the move: %+v", list)
	}
	if _, err := cl.MoveSecrets(ctx, "p"); service.CodeOf(err) != service.Invalid {
		t.Errorf("moving again: %v", err)
	}
}
