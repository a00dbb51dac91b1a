package registry

import "time"

// The statuses the registry gives an entry in its _meta.
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// Response is one entry as the registry serves it: the server's details
// and the registry's metadata about them.
type Response struct {
	Server ServerDetail `json:"server"`
	Meta   Meta         `json:"_meta"`
}

// Meta is a Response's _meta.
type Meta struct {
	Official *Official `json:"io.modelcontextprotocol.registry/official,omitempty"`
}

// Official is the registry's own metadata about an entry.
type Official struct {
	Status        string    `json:"status,omitempty"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	PublishedAt   time.Time `json:"publishedAt,omitzero"`
	UpdatedAt     time.Time `json:"updatedAt,omitzero"`
	IsLatest      bool      `json:"isLatest,omitempty"`
}

// Status returns the entry's status; an entry without one is active.
func (r *Response) Status() string {
	if r.Meta.Official == nil || r.Meta.Official.Status == "" {
		return StatusActive
	}
	return r.Meta.Official.Status
}

// Offered reports whether the entry may be offered to the person:
// deprecated and deleted servers are not.
func (r *Response) Offered() bool { return r.Status() == StatusActive }

// ServerDetail is what the registry says of one version of a server.
type ServerDetail struct {
	// Name is the server's registry name, "io.github.user/weather".
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Version     string      `json:"version,omitempty"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Remote    `json:"remotes,omitempty"`
}

// Repository is where a server's source is.
type Repository struct {
	URL    string `json:"url,omitempty"`
	Source string `json:"source,omitempty"`
}

// Package is one way to run a server on this computer: a package in a
// package registry and the runtime that starts it.
type Package struct {
	// RegistryType is npm, pypi, oci, nuget, mcpb…
	RegistryType    string `json:"registryType"`
	RegistryBaseURL string `json:"registryBaseUrl,omitempty"`
	Identifier      string `json:"identifier"`
	Version         string `json:"version,omitempty"`
	// FileSHA256 is the SHA-256 of an MCP Bundle's file, in hex (an
	// mcpb package's Identifier is the file's https address).
	FileSHA256 string `json:"fileSha256,omitempty"`
	// RuntimeHint is the program that runs it: npx, uvx, docker, dnx.
	RuntimeHint          string           `json:"runtimeHint,omitempty"`
	Transport            PackageTransport `json:"transport"`
	RuntimeArguments     []Argument       `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument       `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValueInput  `json:"environmentVariables,omitempty"`
}

// PackageTransport is how a package's server talks: stdio, or a local web
// server at URL.
type PackageTransport struct {
	Type    string          `json:"type"`
	URL     string          `json:"url,omitempty"`
	Headers []KeyValueInput `json:"headers,omitempty"`
}

// Input is a value the person may, or must, give.
type Input struct {
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	// Format is string, number, boolean or filepath.
	Format string `json:"format,omitempty"`
	// Value is a fixed value; {name} in it is replaced from Variables.
	Value       string           `json:"value,omitempty"`
	IsSecret    bool             `json:"isSecret,omitempty"`
	Default     string           `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
	Choices     []string         `json:"choices,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// Argument is a command-line argument of a package or its runtime.
type Argument struct {
	Input
	// Type is positional or named.
	Type string `json:"type"`
	// Name is a named argument's flag, dashes included.
	Name string `json:"name,omitempty"`
	// ValueHint names a positional argument.
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}

// KeyValueInput is an environment variable or a header.
type KeyValueInput struct {
	Input
	Name string `json:"name"`
}

// Remote is a server reached over the network.
type Remote struct {
	// Type is streamable-http or sse.
	Type      string           `json:"type"`
	URL       string           `json:"url"`
	Headers   []KeyValueInput  `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
}
