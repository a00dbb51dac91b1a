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

// packageRoutes serve POST /v1/packages/list, /v1/packages/check and
// /v1/packages/update.
func (s *Endpoint) packageRoutes(mux *http.ServeMux) {
	b := s.Backend
	handleJSON(mux, "packages/list", func(ctx context.Context, _ struct{}) ([]service.PackageView, error) {
		return b.Packages(ctx)
	})
	handleJSON(mux, "packages/check", func(ctx context.Context, _ struct{}) ([]service.PackageView, error) {
		return b.CheckPackages(ctx)
	})
	handleJSON(mux, "packages/update", func(ctx context.Context, req packageUpdate) (service.PackageView, error) {
		return b.UpdatePackage(ctx, req.Name, req.Back)
	})
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
