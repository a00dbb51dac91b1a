package gateway

import (
	"fmt"
	"strings"
)

// Client is an app as the gateway knows it from the clientInfo it sends in
// initialize, with the most tools it can use.
type Client struct {
	// ClientName is clientInfo.name as the app sends it.
	ClientName string
	// App is the app's name as mcptray's config names it (config.Source's
	// App: "Claude Desktop", "Cursor"…), or its plain name when mcptray
	// does not read its config.
	App string
	// ToolLimit is how many tools the app can use in practice; 0 means no
	// known limit.
	ToolLimit int
}

// Clients are the apps the gateway recognises: the one table of clientInfo
// names and tool limits. Cursor warns above 40 tools and works badly with
// more; OpenAI's clients and VS Code's chat refuse more than 128.
var Clients = []Client{
	{ClientName: "claude-ai", App: "Claude Desktop"},
	{ClientName: "claude-code", App: "Claude Code"},
	{ClientName: "cursor-vscode", App: "Cursor", ToolLimit: 40},
	{ClientName: "Visual Studio Code", App: "VS Code", ToolLimit: 128},
	{ClientName: "Visual Studio Code - Insiders", App: "VS Code", ToolLimit: 128},
	{ClientName: "codex-mcp-client", App: "Codex", ToolLimit: 128},
}

// ClientOf returns the app that sends clientName in initialize (compared
// without regard to case), or false when the gateway does not know it.
func ClientOf(clientName string) (Client, bool) {
	for _, c := range Clients {
		if strings.EqualFold(c.ClientName, clientName) {
			return c, true
		}
	}
	return Client{}, false
}

// nearLimit is the share of an app's limit from which the gateway warns.
const nearLimit = 0.8

// fewerTools is what a person can do about too many tools.
const fewerTools = "fewer tools: hide servers or tools you don't need (in a server's detail in mcptray, or mcptray hide SERVER), or turn on search mode (in Apps, or mcptray gateway search on)"

// ToolWarning says, in plain words, when an app sees as many tools as it
// can use, or nearly; "" when the count is well within its limit.
func (c Client) ToolWarning(tools int) string {
	switch {
	case c.ToolLimit == 0 || float64(tools) < nearLimit*float64(c.ToolLimit):
		return ""
	case tools > c.ToolLimit:
		return fmt.Sprintf("%s sees %d tools, more than the %d it can use: it may leave some out or refuse them all. Give it %s.", c.App, tools, c.ToolLimit, fewerTools)
	default:
		return fmt.Sprintf("%s sees %d tools, close to the %d it can use. If you add more, give it %s.", c.App, tools, c.ToolLimit, fewerTools)
	}
}
