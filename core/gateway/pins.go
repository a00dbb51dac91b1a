package gateway

import (
	"github.com/mark3labs/mcp-go/mcp"
)

// Pins: a server's changed, new and renamed tools never reach the gateway,
// which offers a snapshot's tools, and the service's holding policy holds
// them there (core/pins' Policy); a tool flagged for hidden instructions
// is asked about before each call (route.readOnly). Prompts the gateway
// lists itself, so it asks its back end which it may offer
// (Servers.OfferablePrompts): a method every back end has, and whose
// silence withholds.

// offeredPrompts are the prompts of server's list the gateway may offer:
// those its back end says the person saw as they are now, and none when
// it cannot say.
func (g *Gateway) offeredPrompts(server string, list []mcp.Prompt) []mcp.Prompt {
	if len(list) == 0 {
		return nil
	}
	offered, err := g.svc.OfferablePrompts(server, list)
	if err != nil {
		g.log.Debug("gateway: a server's prompts are withheld: which of them are held cannot be told", "server", server, "err", err)
		return nil
	}
	return offered
}
