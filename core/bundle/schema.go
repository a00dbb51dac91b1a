package bundle

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The manifest schemas are the bundle format's own, as the
// @anthropic-ai/mcpb package publishes them (schemas/LICENSE).
//
//go:embed schemas/*.schema.json
var schemaFiles embed.FS

// Versions are the manifest versions mcptray reads, oldest first.
var Versions = []string{"0.2", "0.3", "0.4"}

var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	out := map[string]*jsonschema.Schema{}
	for _, v := range Versions {
		name := "schemas/mcpb-manifest-v" + v + ".schema.json"
		data, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		url := "mcptray:///" + name
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		if out[v], err = c.Compile(url); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// validate checks a manifest against the schema of the version it says it
// follows, and returns that version.
func validate(raw []byte) (string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "", refuse("has a manifest.json that is not JSON: " + err.Error())
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return "", refuse("has a manifest.json that is not a JSON object")
	}
	version, _ := obj["manifest_version"].(string)
	if version == "" {
		version, _ = obj["dxt_version"].(string)
	}
	if version == "" {
		return "", refuse(`has a manifest.json without "manifest_version"; the bundle format's versions ` + strings.Join(Versions, ", ") + " say which they follow")
	}
	compiled, err := schemas()
	if err != nil {
		return "", fmt.Errorf("reading the bundle format's schemas: %w", err)
	}
	s, ok := compiled[version]
	if !ok {
		return "", refuse(fmt.Sprintf("follows version %s of the bundle format; mcptray reads versions %s; ask its author for a bundle made with a current mcpb",
			version, strings.Join(Versions, ", ")))
	}
	err = s.Validate(doc)
	if err == nil {
		return version, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return "", refuse("has a manifest.json that cannot be checked: " + err.Error())
	}
	return "", refuse("has a manifest.json that does not follow version "+version+" of the bundle format", schemaProblems(ve)...)
}

// schemaProblems says each place a manifest differs from its schema: where
// in the manifest, and what is wrong there.
func schemaProblems(ve *jsonschema.ValidationError) []string {
	var out []string
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		msg := u.Error.String()
		if strings.HasPrefix(msg, "validation failed") || strings.HasPrefix(msg, "anyOf failed") && len(ve.Causes) > 1 {
			continue
		}
		where := place(u.InstanceLocation)
		p := msg
		if where != "" {
			p = where + ": " + msg
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = append(out, ve.Error())
	}
	return out
}

// place writes a JSON pointer as a person reads a place in a manifest:
// /server/mcp_config/args/0 is server.mcp_config.args[0].
func place(ptr string) string {
	if ptr == "" || ptr == "/" {
		return ""
	}
	var b strings.Builder
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		if _, err := strconv.Atoi(part); err == nil {
			b.WriteString("[" + part + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if strings.ContainsAny(part, ". []") {
			j, _ := json.Marshal(part)
			b.Write(j)
		} else {
			b.WriteString(part)
		}
	}
	return b.String()
}
