package gateway

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/service"
)

// Pins: a server's changed, new and renamed tools never reach the gateway,
// which offers a snapshot's tools, and the service holds them there
// (service's pins.go); its tool flagged for hidden instructions is asked
// about before each call (route.readOnly). Prompts the gateway lists
// itself, so it asks the service which it may offer.

// PromptPins is what the gateway needs to hold a server's changed prompts
// until the person accepts them. A Service that has it gets its prompts
// held; *service.Service does.
type PromptPins interface {
	OfferedPrompts(server string, list []mcp.Prompt) []mcp.Prompt
}

var _ PromptPins = (*service.Service)(nil)

// offeredPrompts are the prompts of server's list the gateway may offer.
func (g *Gateway) offeredPrompts(server string, list []mcp.Prompt) []mcp.Prompt {
	if pp, ok := g.svc.(PromptPins); ok {
		return pp.OfferedPrompts(server, list)
	}
	return list
}
