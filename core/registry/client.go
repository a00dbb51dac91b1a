package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultURL is the official MCP Registry.
const DefaultURL = "https://registry.modelcontextprotocol.io"

// EnvURL names the environment variable that points mcptray at another
// registry (a company's own, or a test's).
const EnvURL = "MCPTRAY_REGISTRY_URL"

// Limits on what the registry may send: a page of a hundred entries is a
// few hundred KiB; anything much larger is not a registry answering.
const (
	maxPageBytes  = 8 << 20
	maxEntryBytes = 1 << 20
	// requestTimeout bounds one request, on top of the caller's ctx.
	requestTimeout = 30 * time.Second
)

// BaseURL picks the registry's address: setting (from mcptray's settings)
// when it is given, else the environment variable EnvURL, else DefaultURL.
func BaseURL(setting string, lookup func(string) (string, bool)) string {
	if s := strings.TrimSpace(setting); s != "" {
		return strings.TrimRight(s, "/")
	}
	if lookup != nil {
		if v, ok := lookup(EnvURL); ok && strings.TrimSpace(v) != "" {
			return strings.TrimRight(strings.TrimSpace(v), "/")
		}
	}
	return DefaultURL
}

// Client reads a registry's v0.1 API. It is safe for concurrent use.
type Client struct {
	base string
	hc   *http.Client
	log  *slog.Logger
}

// NewClient returns a client of the registry at base (see BaseURL). hc may
// be nil for http.DefaultClient; logger may be nil for none.
func NewClient(base string, hc *http.Client, logger *slog.Logger) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("the registry address %q is not an http or https URL", base)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Client{base: strings.TrimRight(base, "/"), hc: hc, log: logger}, nil
}

// Base returns the registry's address.
func (c *Client) Base() string { return c.base }

// ListOptions narrow a listing.
type ListOptions struct {
	// Search matches server names.
	Search string
	// Cursor continues a listing where a Page's NextCursor left it.
	Cursor string
	// Limit is how many entries a page holds; zero lets the registry choose.
	Limit int
	// UpdatedSince, when not zero, lists only entries changed since then.
	UpdatedSince time.Time
}

// Page is one page of a listing.
type Page struct {
	Servers []Response `json:"servers"`
	// NextCursor continues the listing; "" on the last page.
	NextCursor string
}

type pageBody struct {
	Servers  []Response `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

// List returns one page of the latest version of each server.
func (c *Client) List(ctx context.Context, opts ListOptions) (Page, error) {
	q := url.Values{"version": {"latest"}}
	if opts.Search != "" {
		q.Set("search", opts.Search)
	}
	if opts.Cursor != "" {
		q.Set("cursor", opts.Cursor)
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if !opts.UpdatedSince.IsZero() {
		q.Set("updated_since", opts.UpdatedSince.UTC().Format(time.RFC3339))
	}
	var body pageBody
	if err := c.get(ctx, "/v0.1/servers?"+q.Encode(), maxPageBytes, &body); err != nil {
		return Page{}, err
	}
	return Page{Servers: body.Servers, NextCursor: body.Metadata.NextCursor}, nil
}

// Latest returns the latest version of the server called name.
func (c *Client) Latest(ctx context.Context, name string) (Response, error) {
	if name == "" {
		return Response{}, errors.New("no server name was given")
	}
	var r Response
	err := c.get(ctx, "/v0.1/servers/"+url.PathEscape(name)+"/versions/latest", maxEntryBytes, &r)
	if err != nil {
		return Response{}, err
	}
	if r.Server.Name == "" {
		return Response{}, fmt.Errorf("the registry's answer for %s has no server in it", name)
	}
	return r, nil
}

// NotFoundError says that the registry has no such server.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("the registry has no server called %q; mcptray search finds names", e.Name)
}

// UnreachableError says that the registry could not be asked at all: no
// network, a wrong address, a registry that is down.
type UnreachableError struct {
	Base string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the registry at %s (%v); check your internet connection", e.Base, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

func (c *Client) get(ctx context.Context, path string, limit int64, v any) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return fmt.Errorf("asking the registry: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	c.log.Debug("asking the registry", "url", req.URL.Redacted())
	resp, err := c.hc.Do(req)
	if err != nil {
		return &UnreachableError{Base: c.base, Err: plainNetError(err)}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound && strings.Contains(path, "/versions/"):
		name, _ := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(path, "/v0.1/servers/"), "/versions/latest"))
		return &NotFoundError{Name: name}
	case resp.StatusCode >= 500:
		return &UnreachableError{Base: c.base, Err: fmt.Errorf("it answered %s", resp.Status)}
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the registry at %s refused the request: %s", c.base, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return &UnreachableError{Base: c.base, Err: plainNetError(err)}
	}
	if int64(len(data)) > limit {
		return fmt.Errorf("the registry at %s sent more than %d MiB for one answer, more than a registry sends; is the address right?", c.base, limit>>20)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("the registry at %s answered with something that is not the registry's JSON; is the address right?", c.base)
	}
	return nil
}

// plainNetError drops the Go request details from a network error, keeping
// what went wrong.
func plainNetError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
