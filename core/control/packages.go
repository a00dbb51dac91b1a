package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

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
func (c *Client) UpdatePackage(ctx context.Context, req service.PackageUpdate) (service.PackageView, error) {
	var r service.PackageView
	err := c.do(ctx, http.MethodPost, "packages/update", req, &r)
	return r, err
}
