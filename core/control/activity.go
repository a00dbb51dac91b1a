package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

// activityRoutes serves GET and POST /v1/activity/settings, and GET
// /v1/activity/today.
func (s *Endpoint) activityRoutes(mux *http.ServeMux) {
	ab := s.Backend
	mux.HandleFunc("GET /v1/activity/today", func(w http.ResponseWriter, r *http.Request) {
		sum, err := ab.ActivityToday(r.Context())
		reply(w, sum, err)
	})
	mux.HandleFunc("GET /v1/activity/settings", func(w http.ResponseWriter, r *http.Request) {
		st, err := ab.ActivitySettings(r.Context())
		reply(w, st, err)
	})
	handleJSON(mux, "activity/settings", func(ctx context.Context, req service.ActivitySettings) (struct{}, error) {
		return struct{}{}, ab.SetActivitySettings(ctx, req)
	})
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
