package trust

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/tools"
)

// A look at an unapproved server's tools shows the person what they would
// approve. The keeper keeps what the look saw until the approval, for
// exactly what the server ran: approving it then pins that, so that its
// tools at its first real start are compared with what the person saw,
// and what differs is held.

// looked is a look kept until the approval: what was seen, for exactly
// what the server ran.
type looked struct {
	signature     string
	tools         []pins.Def
	prompts       []pins.Def
	promptsListed bool
}

// Looked keeps what a look at the server called name saw when it ran what
// signature says: its tools, and its prompts (promptsListed false: it
// listed none, as a server without prompts does). It returns the tools
// whose definitions read as orders to the AI, by name; others says
// whether another server has a tool of that name.
func (k *Keeper) Looked(name, signature string, list []tools.Tool, prompts []mcp.Prompt, promptsListed bool, others func(string) bool) map[string][]pins.Flag {
	var flags map[string][]pins.Flag
	kept := &looked{signature: signature, promptsListed: promptsListed}
	for _, t := range list {
		d := pins.FromTool(t)
		kept.tools = append(kept.tools, d)
		if f := pins.Scan(d, others); len(f) > 0 {
			if flags == nil {
				flags = map[string][]pins.Flag{}
			}
			flags[t.Name] = f
		}
	}
	for _, pr := range prompts {
		kept.prompts = append(kept.prompts, pins.FromPrompt(pr))
	}
	k.mu.Lock()
	if k.looked == nil {
		k.looked = map[string]*looked{}
	}
	k.looked[name] = kept
	k.mu.Unlock()
	return flags
}

// PinLook pins what the person saw in a look at e's server, if they
// looked at exactly what it runs and it has no pins yet: its first real
// start is then compared with the look, and what differs is held. The look
// is forgotten either way.
func (k *Keeper) PinLook(e *config.Entry) {
	k.mu.Lock()
	l := k.looked[e.Name]
	delete(k.looked, e.Name)
	k.mu.Unlock()
	if l == nil || l.signature != e.Signature {
		return
	}
	if err := k.policy.PinLooked(e.Name, l.tools, l.prompts, l.promptsListed); err != nil {
		k.opts.Logger.Warn("pinning the tools looked at", "server", e.Name, "err", err)
	}
}
