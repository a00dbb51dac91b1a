package registry

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Choice is one way to run or reach a server: one of its packages, or one
// of its remotes. An entry may offer several (an npm package and a Docker
// image, a streamable-http and an SSE address); the person chooses, or
// mcptray takes the first one that can run here.
type Choice struct {
	// Number is its place in the entry's list of ways, from 1: packages
	// first, then remotes, as the registry lists them. install --use N
	// takes the Nth.
	Number int `json:"number"`
	// Remote says it is reached over the network.
	Remote bool `json:"remote"`
	// Runtime is the program that runs a package (npx, uvx, docker, dnx);
	// "" for a remote, or a package mcptray cannot run.
	Runtime string `json:"runtime,omitempty"`
	// Bundle says it is an MCP Bundle (an mcpb package): it is not
	// planned as a command but downloaded and installed as a bundle
	// (service.BundleRequest's Registry), whose manifest says what runs.
	Bundle bool `json:"bundle,omitempty"`
	// Label says what it is in a few plain words.
	Label string `json:"label"`
	// Unusable says why mcptray cannot use it, or "".
	Unusable string `json:"unusable,omitempty"`
}

// Choices lists every way d offers, usable or not: its packages, then its
// remotes.
func Choices(d *ServerDetail) []Choice {
	var out []Choice
	for i := range d.Packages {
		p := &d.Packages[i]
		if p.RegistryType == BundleType {
			out = append(out, Choice{Number: len(out) + 1, Bundle: true, Label: "MCP Bundle " + p.Identifier, Unusable: bundleProblem(p)})
			continue
		}
		c := Choice{Number: len(out) + 1, Unusable: runnable(p)}
		label := fmt.Sprintf("%s package %s", cmp.Or(p.RegistryType, "unknown"), p.Identifier)
		if c.Unusable == "" {
			c.Runtime = runtimes[p.RegistryType]
			label += ", run with " + c.Runtime
		}
		c.Label = label
		out = append(out, c)
	}
	for i := range d.Remotes {
		r := &d.Remotes[i]
		c := Choice{Number: len(out) + 1, Remote: true}
		switch r.Type {
		case "streamable-http", "http", "":
			c.Label = "remote at " + r.URL
		case "sse":
			c.Label = "remote at " + r.URL + " (SSE)"
		default:
			c.Label = "remote at " + r.URL + " (" + r.Type + ")"
			c.Unusable = fmt.Sprintf("its remote is reached over %q, which mcptray does not speak (it speaks streamable-http and sse)", r.Type)
		}
		out = append(out, c)
	}
	return out
}

// Want is what the person asked for: a way of running (Prefer), a
// runtime, or one way by its Number; zero values ask for nothing.
type Want struct {
	Prefer  Prefer
	Runtime string
	Number  int
}

// Candidates returns the usable ways of d that w allows, in d's order, or
// a plain-words error saying why there are none. More than one means the
// person may choose (Default takes one).
func Candidates(d *ServerDetail, w Want) ([]Choice, error) {
	all := Choices(d)
	if len(all) == 0 {
		return nil, fmt.Errorf("the registry entry for %s says neither how to run it nor where to reach it (no packages or remotes)", d.Name)
	}
	if w.Runtime != "" && !slices.Contains(slices.Collect(maps.Values(runtimes)), w.Runtime) {
		return nil, fmt.Errorf("%q is not a runtime mcptray runs packages with (npx, uvx, docker or dnx)", w.Runtime)
	}
	if w.Number != 0 {
		if w.Number < 1 || w.Number > len(all) {
			return nil, fmt.Errorf("%s offers %d ways to run it; %d is not one of them (%s)", d.Name, len(all), w.Number, numbered(all))
		}
		c := all[w.Number-1]
		switch {
		case c.Unusable != "":
			return nil, fmt.Errorf("mcptray cannot use way %d of %s (%s): %s", c.Number, d.Name, c.Label, c.Unusable)
		case w.Prefer == PreferLocal && c.Remote, w.Prefer == PreferRemote && !c.Remote, w.Runtime != "" && c.Runtime != w.Runtime:
			return nil, fmt.Errorf("way %d of %s is the %s, which is not what the other options ask for", c.Number, d.Name, c.Label)
		}
		return []Choice{c}, nil
	}
	var out []Choice
	var why []string
	for _, c := range all {
		switch {
		case c.Unusable != "":
			why = append(why, c.Unusable)
		case w.Prefer == PreferLocal && c.Remote, w.Prefer == PreferRemote && !c.Remote:
		case w.Runtime != "" && c.Runtime != w.Runtime:
		default:
			out = append(out, c)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	switch {
	case w.Runtime != "":
		return nil, fmt.Errorf("%s has no package that runs with %s; it offers %s", d.Name, w.Runtime, numbered(all))
	case w.Prefer == PreferRemote:
		return nil, fmt.Errorf("%s has no remote version; it runs on this computer", d.Name)
	case w.Prefer == PreferLocal && len(why) == 0:
		return nil, fmt.Errorf("%s cannot run on this computer: it has no package to run", d.Name)
	case w.Prefer == PreferLocal:
		return nil, fmt.Errorf("%s cannot run on this computer: %s", d.Name, why[0])
	}
	return nil, fmt.Errorf("mcptray cannot install %s: %s", d.Name, strings.Join(why, "; "))
}

// numbered lists choices as "1: …, 2: …".
func numbered(list []Choice) string {
	parts := make([]string, len(list))
	for i, c := range list {
		parts[i] = fmt.Sprintf("%d: %s", c.Number, c.Label)
	}
	return strings.Join(parts, "; ")
}

// Default picks among candidates the first whose runtime is installed here
// (a remote needs none; a bundle's is known once it is downloaded), or
// else the first.
func Default(candidates []Choice, installed func(runtime string) bool) Choice {
	for _, c := range candidates {
		if c.Remote || c.Bundle || installed == nil || installed(c.Runtime) {
			return c
		}
	}
	return candidates[0]
}

// PlanFor is MakePlan for the way c of d (one of Candidates): only its
// Number counts, so a Choice that went through JSON plans the same.
func PlanFor(d *ServerDetail, c Choice, values map[string]string) (*Plan, error) {
	b, err := newBuilder(d, values)
	if err != nil {
		return nil, err
	}
	all := Choices(d)
	if c.Number < 1 || c.Number > len(all) {
		return nil, fmt.Errorf("%s has no way %d", d.Name, c.Number)
	}
	i := c.Number - 1
	switch {
	case all[i].Unusable != "":
		return nil, errors.New(all[i].Unusable)
	case all[i].Bundle:
		return nil, fmt.Errorf("way %d of %s is an MCP Bundle: it is installed from its file, whose manifest says what runs, not planned", c.Number, d.Name)
	case i < len(d.Packages):
		b.local(&d.Packages[i])
	default:
		b.remote(&d.Remotes[i-len(d.Packages)])
	}
	return b.finish()
}

// FieldsFor is Fields for the way c of d.
func FieldsFor(d *ServerDetail, c Choice) ([]Field, error) {
	p, err := PlanFor(d, c, nil)
	var me *MissingError
	if err != nil && !errors.As(err, &me) {
		return nil, err
	}
	return p.Fields, nil
}
