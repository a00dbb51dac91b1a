package conn

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/transport"
)

// maxPages bounds how many pages of a list are read from one server.
const maxPages = 100

// request runs fn with server's live session, bounded by ctx and the
// tool-call timeout; when the server has forgotten the session, the
// connection is made anew and fn tried once more.
func (m *Manager) request(ctx context.Context, server, what string, fn func(ctx context.Context, s *session) error) error {
	c, err := m.conn(server)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.ToolCallTimeout)
	defer cancel()
	sess, err := c.live()
	if err != nil {
		return err
	}
	err = fn(ctx, sess)
	if transport.IsSessionExpired(err) {
		if sess, err = c.reconnect(ctx); err != nil {
			return fmt.Errorf("%s restarted and reconnecting failed: %w", server, err)
		}
		err = fn(ctx, sess)
	}
	if err != nil {
		c.noticeFailure(sess, err)
		return fmt.Errorf("%s on %s: %w", what, server, readable(c.explain(ctx, sess, err)))
	}
	return nil
}

// Resources lists server's resources, every page of them.
func (m *Manager) Resources(ctx context.Context, server string) ([]mcp.Resource, error) {
	var out []mcp.Resource
	err := m.request(ctx, server, "listing resources", func(ctx context.Context, s *session) error {
		out = nil
		req := mcp.ListResourcesRequest{}
		for range maxPages {
			res, err := s.client.ListResources(ctx, req)
			if err != nil {
				return err
			}
			out = append(out, res.Resources...)
			if res.NextCursor == "" {
				return nil
			}
			req.Params.Cursor = res.NextCursor
		}
		return nil
	})
	return out, err
}

// ReadResource reads one of server's resources.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	var out *mcp.ReadResourceResult
	err := m.request(ctx, server, "reading a resource", func(ctx context.Context, s *session) error {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		var err error
		out, err = s.client.ReadResource(ctx, req)
		return err
	})
	return out, err
}

// Prompts lists server's prompts, every page of them.
func (m *Manager) Prompts(ctx context.Context, server string) ([]mcp.Prompt, error) {
	var out []mcp.Prompt
	err := m.request(ctx, server, "listing prompts", func(ctx context.Context, s *session) error {
		out = nil
		req := mcp.ListPromptsRequest{}
		for range maxPages {
			res, err := s.client.ListPrompts(ctx, req)
			if err != nil {
				return err
			}
			out = append(out, res.Prompts...)
			if res.NextCursor == "" {
				return nil
			}
			req.Params.Cursor = res.NextCursor
		}
		return nil
	})
	return out, err
}

// GetPrompt gets one of server's prompts with its arguments.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var out *mcp.GetPromptResult
	err := m.request(ctx, server, "getting a prompt", func(ctx context.Context, s *session) error {
		req := mcp.GetPromptRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		var err error
		out, err = s.client.GetPrompt(ctx, req)
		return err
	})
	return out, err
}
