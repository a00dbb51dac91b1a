package control

import (
	"context"
	"net/http"
	"time"

	"github.com/mcptray/mcptray/core/service"
)

// namesRequest asks for the names in the record's calls since then.
type namesRequest struct {
	Since time.Time `json:"since"`
}

// Activity returns the rows of the running mcptray's activity record that
// f picks.
func (c *Client) Activity(ctx context.Context, f service.ActivityFilter) ([]service.ActivityEntry, error) {
	var rows []service.ActivityEntry
	err := c.do(ctx, http.MethodPost, "activity/rows", f, &rows)
	return rows, err
}

// ActivityNames returns the apps, servers and tools of the record's calls
// since then.
func (c *Client) ActivityNames(ctx context.Context, since time.Time) (service.ActivityNames, error) {
	var n service.ActivityNames
	err := c.do(ctx, http.MethodPost, "activity/names", namesRequest{Since: since}, &n)
	return n, err
}

// VerifyActivity has the running mcptray check its record's chain and
// seals.
func (c *Client) VerifyActivity(ctx context.Context) (service.ActivityVerification, error) {
	var res service.ActivityVerification
	err := c.do(ctx, http.MethodPost, "activity/verify", struct{}{}, &res)
	return res, err
}

// SearchCatalogue searches the MCP Registry's catalogue, which the running
// mcptray keeps.
func (c *Client) SearchCatalogue(ctx context.Context, query string) (service.CatalogueResult, error) {
	var res service.CatalogueResult
	err := c.do(ctx, http.MethodPost, "catalogue/search", catalogueRequest{Query: query}, &res)
	return res, err
}

// catalogueRequest is a search of the registry's catalogue.
type catalogueRequest struct {
	Query string `json:"query"`
}

// ActivitySettings returns the activity record's settings.
func (c *Client) ActivitySettings(ctx context.Context) (service.ActivitySettings, error) {
	var st service.ActivitySettings
	err := c.do(ctx, http.MethodGet, "activity/settings", nil, &st)
	return st, err
}

// SetActivitySettings keeps the activity record's settings in mcptray's
// config and applies them.
func (c *Client) SetActivitySettings(ctx context.Context, st service.ActivitySettings) error {
	return c.do(ctx, http.MethodPost, "activity/settings", st, nil)
}

// ActivityToday sums up today's calls in the running mcptray's activity
// record.
func (c *Client) ActivityToday(ctx context.Context) (service.ActivitySummary, error) {
	var sum service.ActivitySummary
	err := c.do(ctx, http.MethodGet, "activity/today", nil, &sum)
	return sum, err
}
