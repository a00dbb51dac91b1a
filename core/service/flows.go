package service

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/service/netpolicy"
)

// Flow is what a call carries when the app session it runs for had read
// the person's data and content someone else wrote (core/guard): while it
// runs, the network policy asks about its server's connections to hosts
// not on its list with the chain in words (netpolicy.Flow).
type Flow = netpolicy.Flow

// flowState tells the network policy of the calls running with a Flow.
type flowState struct{ policy *netpolicy.Policy }

// start counts f as running on server until the returned func is called.
func (fs *flowState) start(server string, f *Flow) (end func()) {
	return fs.policy.StartFlow(server, f)
}

// flowDone wraps done to end a call's Flow first.
func flowDone(end func(), done func(*mcp.CallToolResult, error)) func(*mcp.CallToolResult, error) {
	return func(res *mcp.CallToolResult, err error) {
		end()
		done(res, err)
	}
}
