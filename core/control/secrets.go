package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

type secretsResponse struct {
	Secrets []service.SecretInfo `json:"secrets"`
}

// secretRoutes serves POST /v1/secrets/set, /v1/secrets/unset,
// /v1/secrets (the names a server refers to, and which are set) and
// /v1/secrets/move (a server's plain-text keys into the keychain).
func (s *Endpoint) secretRoutes(mux *http.ServeMux) {
	sb := s.Backend
	for path, fn := range map[string]func(context.Context, service.SecretRequest) error{
		"secrets/set": sb.SetSecret, "secrets/unset": sb.UnsetSecret,
	} {
		handleJSON(mux, path, func(ctx context.Context, req service.SecretRequest) (struct{}, error) {
			return struct{}{}, fn(ctx, req)
		})
	}
	handle(mux, "secrets", func(ctx context.Context, name string) (secretsResponse, error) {
		list, err := sb.Secrets(ctx, name)
		return secretsResponse{Secrets: list}, err
	})
	handle(mux, "secrets/move", sb.MoveSecrets)
}

// SetSecret keeps a server's secret in the running mcptray's keychain.
func (c *Client) SetSecret(ctx context.Context, req service.SecretRequest) error {
	return c.do(ctx, http.MethodPost, "secrets/set", req, nil)
}

// UnsetSecret removes a server's secret from the keychain.
func (c *Client) UnsetSecret(ctx context.Context, req service.SecretRequest) error {
	return c.do(ctx, http.MethodPost, "secrets/unset", req, nil)
}

// Secrets lists the secrets a server refers to, and which are set.
func (c *Client) Secrets(ctx context.Context, server string) ([]service.SecretInfo, error) {
	var r secretsResponse
	err := c.do(ctx, http.MethodPost, "secrets", nameRequest{server}, &r)
	return r.Secrets, err
}

// MoveSecrets keeps the keys a server's file holds in plain text in the
// keychain, and mcptray's config refers to them instead.
func (c *Client) MoveSecrets(ctx context.Context, server string) (service.MoveSecretsResult, error) {
	var r service.MoveSecretsResult
	err := c.do(ctx, http.MethodPost, "secrets/move", nameRequest{server}, &r)
	return r, err
}
