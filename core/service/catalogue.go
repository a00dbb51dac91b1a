package service

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/mcptray/mcptray/core/registry"
)

// The MCP Registry's catalogue reaches the window through the running
// mcptray, as the record does: the running mcptray asks the registry and
// keeps the copy in the person's cache folder, the same copy the command
// line's search reads.

// CatalogueResult is what a search of the MCP Registry's catalogue found.
type CatalogueResult struct {
	// Servers are the matching servers that may be offered, by name.
	Servers []registry.Response `json:"servers"`
	// Checked is when the registry last answered.
	Checked time.Time `json:"checked,omitzero"`
	// Note says, when it is so, that the registry could not be reached
	// and the servers come from the copy kept on this computer.
	Note string `json:"note,omitempty"`
	// Unreachable, when not "", is the address of the registry that could
	// not be reached, with no copy of its catalogue kept here: Servers is
	// empty, and trying again later may help.
	Unreachable string `json:"unreachable,omitempty"`
}

// SearchCatalogue returns the servers of the MCP Registry's catalogue
// whose name, title or description hold every word of query (all of them
// for ""): the registry named in mcptray's config or MCPTRAY_REGISTRY_URL,
// refreshed when the copy kept here is old.
func (s *Service) SearchCatalogue(ctx context.Context, query string) (CatalogueResult, error) {
	if err := s.checkOpen(); err != nil {
		return CatalogueResult{}, err
	}
	// Opened for each search, as each command opens it: a change of the
	// config's registry takes effect at once.
	c, err := registry.Open(registry.OpenOptions{UserFile: s.opts.Paths.UserFile(), GOOS: runtime.GOOS,
		Lookup: s.opts.Lookup, Logger: s.log, Now: s.opts.Now})
	if err != nil {
		return CatalogueResult{}, newError(Invalid, "%v", err)
	}
	res, err := c.Search(ctx, query)
	var ue *registry.UnreachableError
	if errors.As(err, &ue) {
		return CatalogueResult{Unreachable: ue.Base}, nil
	}
	if err != nil {
		return CatalogueResult{}, wrapError(err)
	}
	return CatalogueResult{Servers: res.Servers, Checked: res.Checked, Note: res.Note}, nil
}
