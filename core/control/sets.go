package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

// Sets lists the sets and who gets which.
func (c *Client) Sets(ctx context.Context) (service.SetsView, error) {
	var r service.SetsView
	err := c.do(ctx, http.MethodGet, "sets", nil, &r)
	return r, err
}

// PutSet makes a set or changes one.
func (c *Client) PutSet(ctx context.Context, req service.SetRequest) (service.SetsView, error) {
	var r service.SetsView
	err := c.do(ctx, http.MethodPost, "sets/put", req, &r)
	return r, err
}

// RemoveSet takes a set away.
func (c *Client) RemoveSet(ctx context.Context, name string) (service.SetsView, error) {
	var r service.SetsView
	err := c.do(ctx, http.MethodPost, "sets/remove", nameRequest{name}, &r)
	return r, err
}

// GiveApp gives an app everything, the tray's set or a set.
func (c *Client) GiveApp(ctx context.Context, req service.GiveRequest) (service.SetsView, error) {
	var r service.SetsView
	err := c.do(ctx, http.MethodPost, "sets/give", req, &r)
	return r, err
}

// SetTraySet makes a set the tray's.
func (c *Client) SetTraySet(ctx context.Context, name string) (service.SetsView, error) {
	var r service.SetsView
	err := c.do(ctx, http.MethodPost, "sets/tray", nameRequest{name}, &r)
	return r, err
}
