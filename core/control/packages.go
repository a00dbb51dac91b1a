package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

type packageUpdate struct {
	Name string `json:"name"`
	Back bool   `json:"back,omitempty"`
}

// Packages says what each pinned server runs, and the updates found.
func (c *Client) Packages(ctx context.Context) ([]service.PackageView, error) {
	var r []service.PackageView
	err := c.do(ctx, http.MethodPost, "packages/list", struct{}{}, &r)
	return r, err
}

// CheckPackages asks the registries what is new, in the running mcptray.
func (c *Client) CheckPackages(ctx context.Context) ([]service.PackageView, error) {
	var r []service.PackageView
	err := c.do(ctx, http.MethodPost, "packages/check", struct{}{}, &r)
	return r, err
}

// UpdatePackage runs a server's reviewed update, or goes back.
func (c *Client) UpdatePackage(ctx context.Context, name string, back bool) (service.PackageView, error) {
	var r service.PackageView
	err := c.do(ctx, http.MethodPost, "packages/update", packageUpdate{Name: name, Back: back}, &r)
	return r, err
}
