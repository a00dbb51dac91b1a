package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

type secretsResponse struct {
	Secrets []service.SecretInfo `json:"secrets"`
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
