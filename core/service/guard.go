package service

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/guard"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
)

// The flow guard's words (core/config, core/guard), given here for the
// front ends.
type (
	// GuardMode is how strict the gateway's flow guard is: off, ask or
	// block.
	GuardMode = config.GuardMode
	// LabelChange is the person's correction of one tool's labels.
	LabelChange = config.LabelChange
	// ToolLabels are one tool's labels (private, untrusted, egress) with
	// the reason for each, in words.
	ToolLabels = guard.ToolLabels
)

// The three labels of a tool (ToolLabels.Labels.Has).
const (
	LabelPrivate   = guard.Private
	LabelUntrusted = guard.Untrusted
	LabelEgress    = guard.Egress
)

// The guard's modes.
const (
	GuardOff   = config.GuardOff
	GuardAsk   = config.GuardAsk
	GuardBlock = config.GuardBlock
)

// GuardLabels are the labels of the connected servers' tools by qualified
// name, derived from what mcptray knows of each server and corrected as
// the person said (Gateway.Guard.Labels).
func (s Snapshot) GuardLabels() map[string]*ToolLabels {
	out := map[string]*ToolLabels{}
	for i := range s.Servers {
		sv := &s.Servers[i]
		if sv.BuiltIn() || sv.Suppressed != "" {
			continue
		}
		facts := guardFacts(sv)
		for _, t := range sv.Tools {
			if t.QualifiedName == "" {
				continue
			}
			tl := guard.Derive(facts, t)
			if c, ok := s.Gateway.Guard.Labels[t.QualifiedName]; ok {
				tl = tl.Correct(c)
			}
			out[t.QualifiedName] = &tl
		}
	}
	return out
}

// guardFacts are what mcptray knows of sv, for its tools' labels.
func guardFacts(sv *Server) guard.Server {
	f := guard.Server{Name: sv.Name}
	if sv.Transport != config.Stdio {
		f.Remote = true
		f.Host = sv.URL
		if u, err := url.Parse(sv.URL); err == nil && u.Host != "" {
			f.Host = u.Host
		}
		f.Host = sanitize.Line(f.Host)
		// A sign-in in the browser leaves no trace in the snapshot, so a
		// remote server is taken to know the person until corrected: the
		// guard fails closed.
		f.Account = "it may be signed in to your account at " + f.Host
		if len(sv.HeaderNames) > 0 || len(sv.SecretNames) > 0 {
			f.Account = "it sends your credentials to " + f.Host
		}
		return f
	}
	if keys := append(slices.Clone(sv.SecretNames), sv.PlainKeys...); len(keys) > 0 {
		f.Account = "it holds your key " + sanitize.Line(strings.Join(keys, ", "))
	}
	sb := sv.Sandbox
	if sb == nil {
		f.Unconfined = "mcptray does not know what it may reach"
		return f
	}
	f.Grants = make([]sandbox.Grant, len(sb.Grants))
	for i, g := range sb.Grants {
		f.Grants[i] = g.Grant
	}
	switch {
	case sb.Off || !sb.Protection.Files:
		f.Unconfined = "it runs without a sandbox, so it may read and reach anything you may"
	case !sb.Protection.Network:
		f.Unconfined = "this computer does not limit its network"
	}
	return f
}

// SetGuardMode sets how strict the gateway's flow guard is: off, ask (the
// default) or block.
func (s *Service) SetGuardMode(ctx context.Context, m GuardMode) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return partError(s.net.SetGuardMode(ctx, m))
}

// SetGuardLabels corrects a tool's labels (its qualified name,
// mcp__SERVER__TOOL): each label set in c is given or taken away
// whatever mcptray derived; with reset, the tool's earlier corrections go
// first.
func (s *Service) SetGuardLabels(ctx context.Context, tool string, c LabelChange, reset bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return partError(s.net.SetGuardLabels(ctx, tool, c, reset))
}
