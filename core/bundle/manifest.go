package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Manifest is what a bundle's manifest.json says, in the parts mcptray
// uses; Raw keeps all of it.
type Manifest struct {
	// Version is the manifest format's version ("0.3"), from
	// manifest_version or, in older bundles, dxt_version.
	Version string `json:"-"`

	Name            string `json:"name"`
	DisplayName     string `json:"display_name,omitempty"`
	ServerVersion   string `json:"version"`
	Description     string `json:"description"`
	LongDescription string `json:"long_description,omitempty"`
	Author          Author `json:"author"`
	Homepage        string `json:"homepage,omitempty"`
	License         string `json:"license,omitempty"`

	Server Server `json:"server"`

	Tools            []Tool   `json:"tools,omitempty"`
	ToolsGenerated   bool     `json:"tools_generated,omitempty"`
	Prompts          []Prompt `json:"prompts,omitempty"`
	PromptsGenerated bool     `json:"prompts_generated,omitempty"`

	Compatibility Compatibility `json:"compatibility"`

	// UserConfig are the settings it asks for, by key; UserConfigOrder
	// their keys in the manifest's order, the order to ask in.
	UserConfig      map[string]UserConfig `json:"user_config,omitempty"`
	UserConfigOrder []string              `json:"-"`

	Raw json.RawMessage `json:"-"`
}

// Author is who made it.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Server is how it runs.
type Server struct {
	// Type is node, python, uv (manifest 0.4) or binary.
	Type       string    `json:"type"`
	EntryPoint string    `json:"entry_point"`
	MCPConfig  MCPConfig `json:"mcp_config"`
}

// MCPConfig is the command that runs it, before substitution.
type MCPConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// PlatformOverrides replace command, args or env on one platform
	// (darwin, win32, linux).
	PlatformOverrides map[string]MCPConfig `json:"platform_overrides,omitempty"`
}

// Tool and Prompt are what it says it offers.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Prompt is a prompt it says it offers.
type Prompt struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Arguments   []string `json:"arguments,omitempty"`
	Text        string   `json:"text"`
}

// Compatibility is where it runs.
type Compatibility struct {
	// Platforms are darwin, win32 and linux; none means any.
	Platforms []string `json:"platforms,omitempty"`
	// Runtimes are version ranges of node and python (">=18.0.0").
	Runtimes map[string]string `json:"runtimes,omitempty"`
}

// UserConfig is one setting it asks the person for.
type UserConfig struct {
	// Type is string, number, boolean, directory or file.
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required,omitempty"`
	// Default is a string, number, boolean or list of strings; it may use
	// ${HOME} and the other folders' variables.
	Default   json.RawMessage `json:"default,omitempty"`
	Multiple  bool            `json:"multiple,omitempty"`
	Sensitive bool            `json:"sensitive,omitempty"`
	Min       *float64        `json:"min,omitempty"`
	Max       *float64        `json:"max,omitempty"`
}

// Title is the name to show for the bundle: its display name, else its
// name.
func (m *Manifest) Title() string {
	if m.DisplayName != "" {
		return m.DisplayName
	}
	return m.Name
}

// parseManifest checks raw against the schema of its manifest version and
// reads it.
func parseManifest(raw []byte) (Manifest, error) {
	version, err := validate(raw)
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return Manifest{}, refuse("has a manifest.json that cannot be read: " + err.Error())
	}
	m.Version, m.Raw = version, raw
	m.UserConfigOrder, err = objectKeys(raw, "user_config")
	if err != nil {
		return Manifest{}, refuse("has a manifest.json that cannot be read: " + err.Error())
	}
	return m, nil
}

// objectKeys lists the keys of the object under key in the JSON object
// raw, in their order.
func objectKeys(raw []byte, key string) ([]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	obj, ok := top[key]
	if !ok {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%q is not an object", key)
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// ReadManifest reads and checks the manifest of the bundle unpacked in
// dir (the version installed before another replaces it).
func ReadManifest(dir string) (Manifest, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return Manifest{}, err
	}
	return parseManifest(raw)
}
