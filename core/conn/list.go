package conn

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/tools"
)

// rawIDs numbers the requests mcptray sends past mcp-go's client. They are
// strings, so they can never collide with the client's numeric ids.
var rawIDs atomic.Int64

// listTools lists the server's tools, following pages, from the raw
// tools/list results: mcp-go's decoded Tool drops schema keys such as a
// top-level anyOf, and the schema must reach agents byte for byte.
func (c *serverConn) listTools(sess *session) ([]tools.Tool, error) {
	var out []tools.Tool
	cursor := ""
	for page := 0; ; page++ {
		if page == 1000 {
			return nil, fmt.Errorf("more than 1000 pages of tools")
		}
		var cursorParams map[string]any
		if cursor != "" {
			cursorParams = map[string]any{"cursor": cursor}
		}
		params, header := sess.rawParams(string(mcp.MethodToolsList), cursorParams)
		ctx, cancel := context.WithTimeout(c.ctx, c.m.opts.RequestTimeout)
		resp, err := sess.client.GetTransport().SendRequest(ctx, mcptransport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(fmt.Sprintf("mcptray-%d", rawIDs.Add(1))),
			Method:  string(mcp.MethodToolsList),
			Params:  params,
			Header:  header,
		})
		cancel()
		if err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, resp.Error.AsError()
		}
		var result struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &result); err != nil {
			return nil, fmt.Errorf("reading tools/list: %w", err)
		}
		for _, raw := range result.Tools {
			if err := sess.headerToolOK(raw); err != nil {
				c.log.Warn("skipping a tool whose header annotations are invalid", "err", err)
				continue
			}
			t, err := tools.Parse(c.entry.Name, raw)
			if err != nil {
				c.log.Warn("skipping a tool", "err", err)
				continue
			}
			out = append(out, t)
		}
		if result.NextCursor == "" || result.NextCursor == cursor {
			return out, nil
		}
		cursor = result.NextCursor
	}
}

// onNotification re-lists the tools when the server says they changed.
// When it says its prompts changed, it counts that (ServerInfo's
// PromptsChanged) and tells everyone: the gateway lists prompts itself.
func (c *serverConn) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationToolsListChanged):
		c.mu.Lock()
		sess := c.sess
		c.mu.Unlock()
		if sess != nil {
			go c.relist(sess)
		}
	case string(mcp.MethodNotificationPromptsListChanged):
		c.mu.Lock()
		if c.sess == nil {
			c.mu.Unlock()
			return
		}
		c.promptsChanged++
		st := c.status
		c.mu.Unlock()
		c.m.events.Publish(Event{Server: c.entry.Name, Status: st})
	}
}

// relist lists sess's tools again and shows the list, unless the session
// has ended or a re-list that started later has been shown already. Two
// notifications in a row start two re-lists whose answers may arrive in
// either order; the one started last saw the newest tools, so it wins.
func (c *serverConn) relist(sess *session) {
	c.mu.Lock()
	c.listsStarted++
	n := c.listsStarted
	c.mu.Unlock()
	list, err := c.listTools(sess)
	if err != nil {
		c.log.Warn("re-listing tools", "err", err)
		return
	}
	c.mu.Lock()
	// A new session listed its own tools; a newer list is newer.
	if c.sess != sess || n < c.listShown {
		c.mu.Unlock()
		return
	}
	c.listShown = n
	c.tools = list
	st := c.status
	c.mu.Unlock()
	c.m.events.Publish(Event{Server: c.entry.Name, Status: st})
}
