package conn

import (
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/tools"
)

// ServerInfo is one server as front ends show it: a plain value.
type ServerInfo struct {
	Name      string           `json:"name"`
	Scope     config.Scope     `json:"scope"`
	Transport config.Transport `json:"transport"`
	Origin    config.Origin    `json:"origin"`
	Status    Status           `json:"status"`
	// Tools are the server's tools while it is connected, with their
	// qualified names.
	Tools []tools.Tool `json:"tools,omitempty"`
	// Stderr is the tail of a stdio server's error output.
	Stderr string `json:"stderr,omitempty"`
	// Failures counts failed attempts in a row.
	Failures int `json:"failures,omitempty"`
	// PromptsChanged counts the server's notices that its prompts changed
	// (notifications/prompts/list_changed): whoever lists them lists them
	// again when it grows.
	PromptsChanged uint64 `json:"promptsChanged,omitempty"`

	// NameHidden says the name as written holds hidden characters, shown
	// as '?' in Name; a front end should say so next to it.
	NameHidden bool `json:"nameHidden,omitempty"`
}

// Report is every server's state at one moment.
type Report struct {
	Servers []ServerInfo `json:"servers"`
}

// Find returns the server called name.
func (s Report) Find(name string) (ServerInfo, bool) {
	for _, i := range s.Servers {
		if i.Name == name {
			return i, true
		}
	}
	return ServerInfo{}, false
}

// Event says that a server's state or tools changed. Events are hints: a
// front end that falls behind misses some, and rebuilds from Report.
type Event struct {
	Server string
	Status Status
	// Removed says the server left the config and was stopped; Status is
	// then the zero value.
	Removed bool
}
