package netpolicy

import (
	"context"
	"strings"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// The flow guard's settings: how strict it is, and the person's
// corrections of tools' labels, kept in mcptray's config file.

// SetGuardMode sets how strict the gateway's flow guard is: off, ask (the
// default) or block.
func (p *Policy) SetGuardMode(ctx context.Context, m config.GuardMode) error {
	if m == "" || !m.Valid() {
		return invalid("the guard's mode is off, ask or block, not %q", sanitize.Line(string(m)))
	}
	if err := config.ModifyGatewayRules(p.opts.UserFile, func(r *config.GatewayRules) {
		r.Guard.Mode = m
		if m == config.GuardAsk {
			r.Guard.Mode = "" // the default, not written
		}
	}); err != nil {
		return err
	}
	p.record(ctx, "", activity.GuardSet, "the gateway", string(m))
	p.reload()
	return nil
}

// SetGuardLabels corrects a tool's labels (its qualified name,
// mcp__SERVER__TOOL): each label set in c is given or taken away
// whatever mcptray derived; with reset, the tool's earlier corrections go
// first.
func (p *Policy) SetGuardLabels(ctx context.Context, tool string, c config.LabelChange, reset bool) error {
	if !strings.HasPrefix(tool, "mcp__") {
		return invalid("a tool is named as apps see it, mcp__SERVER__TOOL")
	}
	if c.Empty() && !reset {
		return invalid("say which label to give or take away: private, untrusted or egress")
	}
	if err := config.ModifyGatewayRules(p.opts.UserFile, func(r *config.GatewayRules) {
		r.Guard.SetLabels(tool, c, reset)
	}); err != nil {
		return err
	}
	p.record(ctx, "", activity.GuardSet, tool, labelChangeWords(c, reset))
	p.reload()
	return nil
}

// labelChangeWords says a correction: "not egress, private".
func labelChangeWords(c config.LabelChange, reset bool) string {
	var out []string
	if reset {
		out = append(out, "labels as derived")
	}
	for _, x := range []struct {
		name string
		v    *bool
	}{{"private", c.Private}, {"untrusted", c.Untrusted}, {"egress", c.Egress}} {
		switch {
		case x.v == nil:
		case *x.v:
			out = append(out, x.name)
		default:
			out = append(out, "not "+x.name)
		}
	}
	return strings.Join(out, ", ")
}
