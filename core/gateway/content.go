package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// Content is what the gateway needs to pass servers' resources and prompts
// through. A Service that has these methods gets them passed; *service.Service
// does.
type Content interface {
	Resources(ctx context.Context, server string) ([]mcp.Resource, error)
	ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error)
	Prompts(ctx context.Context, server string) ([]mcp.Prompt, error)
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error)
}

var _ Content = (*service.Service)(nil)

// listWait bounds listing one server's resources or prompts.
const listWait = 10 * time.Second

// listed is what one connection of one server offers besides tools. It is
// read once a connection, and its prompts again whenever the server says
// they changed (Server.PromptsChanged grows).
type listed struct {
	key        string // the server's name, signature and connection time
	resources  []mcp.Resource
	prompts    []mcp.Prompt
	promptsGen uint64   // the server's PromptsChanged when prompts were listed
	views      []string // the ui:// URIs its tools name (mcpapps.go)
}

// syncContent gives the gateway the resources and prompts of the offered
// servers, listing those of new connections. Called with g.mu held.
func (g *Gateway) syncContent(ctx context.Context, snap service.Snapshot) {
	content, ok := g.svc.(Content)
	if !ok {
		return
	}
	next := map[string]*listed{}
	var order []*listed
	var servers []string
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if !offered(sv) {
			continue
		}
		key := sv.Name + "\x00" + sv.Signature + "\x00" + sv.Since.String()
		l := g.listed[sv.Name]
		fresh := l == nil || l.key != key
		if fresh {
			l = &listed{key: key}
			lctx, cancel := context.WithTimeout(ctx, listWait)
			// A server without resources or prompts answers with an
			// error: that is an empty list.
			var err error
			if l.resources, err = content.Resources(lctx, sv.Name); err != nil {
				g.log.Debug("gateway: no resources", "server", sv.Name, "err", err)
			}
			cancel()
		}
		if fresh || l.promptsGen != sv.PromptsChanged {
			// Read before listing: a notice that comes meanwhile
			// lists them again.
			l.promptsGen = sv.PromptsChanged
			lctx, cancel := context.WithTimeout(ctx, listWait)
			var err error
			if l.prompts, err = content.Prompts(lctx, sv.Name); err != nil {
				g.log.Debug("gateway: no prompts", "server", sv.Name, "err", err)
			}
			cancel()
		}
		l.views = views(sv.Tools)
		next[sv.Name] = l
		order = append(order, l)
		servers = append(servers, sv.Name)
	}
	g.listed = next

	// Resources keep their URIs, which tool results and apps refer to,
	// but views (ui://), and the URIs two servers share but for the first
	// server's, which are shown in their server's form (mcpapps.go).
	first := map[string]int{} // a URI's first server, by index in order
	for i, l := range order {
		for _, r := range l.resources {
			if _, ok := first[r.URI]; !ok {
				first[r.URI] = i
			}
		}
	}
	var resources []server.ServerResource
	contentOf, promptOf := map[string]string{}, map[string]string{} // whose each is (sets.go)
	apps := false
	for i, l := range order {
		seen := map[string]bool{}
		add := func(r mcp.Resource) {
			own := r.URI
			if own == "" || seen[own] {
				return
			}
			seen[own] = true
			if alwaysOwn(own) || first[own] != i {
				r.URI = serverURI(servers[i], own)
			}
			apps = apps || r.MIMEType == conn.AppsMIMEType
			r.Name = sanitize.Line(r.Name)
			r.Title = sanitize.Line(servers[i] + ": " + firstOf(r.Title, r.Name))
			r.Description = tools.TruncateDescription(r.Description)
			resources = append(resources, server.ServerResource{Resource: r, Handler: g.read(servers[i], own, r.URI)})
			contentOf[r.URI] = servers[i]
		}
		for _, r := range l.resources {
			add(r)
		}
		// The views its tools name, which the extension lets a server
		// leave out of its list: apps read them all the same.
		for _, uri := range l.views {
			apps = true
			add(mcp.Resource{URI: uri, Name: uri, MIMEType: conn.AppsMIMEType})
		}
	}
	g.offersApps.Store(apps)
	// Prompts are named like tools: mcp__SERVER__PROMPT; those changed
	// since the person saw them are held (pins.go).
	offered := make([][]mcp.Prompt, len(order))
	var refs []tools.Ref
	for i, l := range order {
		offered[i] = g.offeredPrompts(servers[i], l.prompts)
		for _, p := range offered[i] {
			refs = append(refs, tools.Ref{Server: servers[i], Tool: p.Name})
		}
	}
	names := tools.AssignNames(refs)
	var prompts []server.ServerPrompt
	n := 0
	for i := range order {
		for _, p := range offered[i] {
			own := p.Name
			p.Name = names[n]
			n++
			p.Title = sanitize.Line(servers[i] + ": " + firstOf(p.Title, own))
			p.Description = tools.TruncateDescription(p.Description)
			p.Arguments = cleanArguments(p.Arguments)
			prompts = append(prompts, server.ServerPrompt{Prompt: p, Handler: g.prompt(servers[i], own)})
			promptOf[p.Name] = servers[i]
		}
	}

	g.keepContent(contentOf, promptOf) // before they are offered: a list never shows one unknown
	if enc := encode(resources, func(r server.ServerResource) any { return r.Resource }); !bytes.Equal(enc, g.lastResources) || g.lastResources == nil {
		g.lastResources = enc
		g.mcp.SetResources(resources...) // sends resources/list_changed
	}
	if enc := encode(prompts, func(p server.ServerPrompt) any { return p.Prompt }); !bytes.Equal(enc, g.lastPrompts) || g.lastPrompts == nil {
		g.lastPrompts = enc
		g.mcp.SetPrompts(prompts...) // sends prompts/list_changed
	}
}

// cleanArguments are a prompt's arguments with the characters that hide
// text removed from their names, titles and descriptions, as a new slice
// (the server's list is shared).
func cleanArguments(args []mcp.PromptArgument) []mcp.PromptArgument {
	if len(args) == 0 {
		return args
	}
	out := make([]mcp.PromptArgument, len(args))
	for i, a := range args {
		a.Name, a.Title, a.Description = sanitize.Line(a.Name), sanitize.Line(a.Title), tools.TruncateDescription(a.Description)
		out[i] = a
	}
	return out
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// encode is a list as JSON, to tell whether it changed; its handlers are
// named by what is encoded (a resource's server is in its title).
func encode[T any](list []T, f func(T) any) []byte {
	out := make([]any, len(list))
	for i, x := range list {
		out[i] = f(x)
	}
	b, _ := json.Marshal(out)
	return b
}

// read forwards resources/read of a resource apps know as shown to the
// server that has it, as own.
func (g *Gateway) read(srv, own, shown string) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		if why := g.outsideSetServer(ctx, srv, "resource "+shown); why != "" {
			return nil, errors.New(why)
		}
		res, err := g.svc.(Content).ReadResource(ctx, srv, own)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s", g.explain(ctx, srv, "the resource "+sanitize.Line(own), err))
		}
		return shownContents(res.Contents, own, shown), nil
	}
}

// prompt forwards prompts/get to the server that has the prompt, by its
// own name for it.
func (g *Gateway) prompt(srv, name string) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if why := g.outsideSetServer(ctx, srv, "prompt "+req.Params.Name); why != "" {
			return nil, errors.New(why)
		}
		res, err := g.svc.(Content).GetPrompt(ctx, srv, name, req.Params.Arguments)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s", g.explain(ctx, srv, "the prompt "+sanitize.Line(name), err))
		}
		return res, nil
	}
}
