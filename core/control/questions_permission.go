package control

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// KindPermission is the Kind of the gateway's questions: may an app's call
// of a tool go ahead?
const KindPermission = "permission"

// maxShownArguments bounds the arguments a permission question shows.
const maxShownArguments = 4000

// PermissionQuestion is the gateway's question about one call, every text
// in it sanitised.
type PermissionQuestion struct {
	// App is the name the calling app gave, or "" when it gave none.
	App string `json:"app,omitempty"`
	// Tool is the tool as apps see it (mcp__SERVER__TOOL); ServerTool is
	// the server's own name for it.
	Tool       string `json:"tool"`
	ServerTool string `json:"serverTool"`
	// Arguments are the call's arguments as indented JSON, cut short
	// (Truncated) when long.
	Arguments string `json:"arguments,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// ReadOnly is the server's claim that the tool only reads: for
	// information, it decides nothing.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// PermissionAnswer is the Answer to a permission question: allowed (once,
// or always: the tool is allowed from now on) or denied.
func PermissionAnswer(allow, always bool) mcp.ElicitationResult {
	if !allow {
		return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
	}
	return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"always": always}}}
}

// AskPermission asks the person, in the window, whether an app's call may go
// ahead. It is the gateway's AskFunc. With no window following the
// questions it opens the window; with none to open it returns
// gateway.ErrNoWindow. It waits until the person answers or ctx ends (the
// gateway bounds it with its timeout). "Allow always" keeps Allow for the
// tool in the person's config.
func (s *Endpoint) AskPermission(ctx context.Context, q gateway.Question) (bool, error) {
	pq := &PermissionQuestion{
		App:        sanitize.Line(q.App),
		Tool:       sanitize.Line(q.Tool),
		ServerTool: sanitize.Line(q.ServerTool),
		ReadOnly:   q.ReadOnly,
	}
	pq.Arguments, pq.Truncated = showArguments(q.Arguments)
	who := pq.App
	if who == "" {
		who = "An app"
	}
	h := s.questions()
	p, followed, _ := h.add(Question{
		Kind:       KindPermission,
		Server:     q.Server,
		Params:     mcp.ElicitationParams{Message: fmt.Sprintf("%s wants to use %s from %s", who, pq.ServerTool, sanitize.Line(q.Server))},
		Permission: pq,
	})
	defer h.remove(p.q.ID)
	if !followed {
		if s.OpenWindow == nil {
			return false, gateway.ErrNoWindow
		}
		if err := s.OpenWindow(q.Server); err != nil {
			s.logger().Warn("no window to ask about a tool call in", "tool", pq.Tool, "err", err)
			return false, gateway.ErrNoWindow
		}
	}
	select {
	case a := <-p.answer:
		res := a.res
		if res.Action != mcp.ElicitationResponseActionAccept {
			return false, nil
		}
		if c, ok := res.Content.(map[string]any); ok && c["always"] == true {
			s.allowAlways(service.DecidedBy(ctx, a.by), q.Tool)
		}
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// allowAlways keeps Allow for tool; the call goes ahead even when that
// fails, as the person allowed it.
func (s *Endpoint) allowAlways(ctx context.Context, tool string) {
	if s.API == nil {
		s.logger().Warn("this mcptray cannot keep a tool's permission", "tool", sanitize.Line(tool))
		return
	}
	if err := s.API.SetPermission(context.WithoutCancel(ctx), tool, config.Allow); err != nil {
		s.logger().Warn("keeping a tool's permission", "tool", sanitize.Line(tool), "err", err)
	}
}

// showArguments is a call's arguments as the window shows them: indented,
// sanitised, and cut short past maxShownArguments.
func showArguments(args json.RawMessage) (string, bool) {
	if len(args) == 0 || string(args) == "null" || string(args) == "{}" {
		return "", false
	}
	var v any
	text := string(args)
	if json.Unmarshal(args, &v) == nil {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(v) == nil {
			text = strings.TrimSpace(b.String())
		}
	}
	text = sanitize.String(text)
	if len(text) <= maxShownArguments {
		return text, false
	}
	cut := maxShownArguments
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut], true
}
