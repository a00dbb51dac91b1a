package registry

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
)

// GivenPaths are the values in given that args hold: what a local server
// installed from the registry is given of the folders and files its
// command names (sandbox.ArgGrants of them). A value no argument holds
// gives nothing.
func GivenPaths(args, given []string) []string {
	var out []string
	for _, v := range given {
		if v != "" && slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, v) }) {
			out = append(out, v)
		}
	}
	return out
}

// Reach says, in plain sentences, what the local server p installs may
// reach of the person's files in its sandbox (home is the home folder,
// name the server's name in mcptray): the folders and files the values
// the person gave name, and for each folder or file of the home that the
// publisher's command or a default names, that it is not given, followed
// by give's words for what gives it (give gets the flag of mcptray
// sandbox allow: "--write ~/.ssh"; nil says nothing more). A remote
// server's plan says nothing.
func (p *Plan) Reach(home string, give func(allow string) string) []string {
	if p.Remote || home == "" || !filepath.IsAbs(home) {
		return nil
	}
	home = filepath.Clean(home)
	short := func(d string) string { return sandbox.Tilde(home, d) }
	gr, gw := sandbox.ArgGrants(home, GivenPaths(p.Args, p.Given))
	var may []string
	for _, d := range gw {
		may = append(may, "read and change "+short(d))
	}
	for _, d := range gr {
		may = append(may, "read "+short(d))
	}
	var out []string
	if len(may) == 0 {
		out = append(out, "In its sandbox it may use its own data folder, and nothing else in your home.")
	} else {
		out = append(out, "In its sandbox it may "+strings.Join(may, ", ")+" (as you gave), its own data folder, and nothing else in your home.")
	}
	covered := func(d string, write bool) bool {
		for _, g := range gw {
			if within(g, d) {
				return true
			}
		}
		if !write {
			for _, g := range gr {
				if within(g, d) {
					return true
				}
			}
		}
		return false
	}
	ar, aw := sandbox.ArgGrants(home, expandHome(home, p.Args))
	say := func(d string, write bool) {
		if !within(home, d) || d == home || covered(d, write) {
			return
		}
		who := "The publisher's command names " + short(d)
		for _, k := range sortedKeys(p.Defaults) {
			r, w := sandbox.ArgGrants(home, expandHome(home, []string{p.Defaults[k]}))
			if slices.Contains(r, d) || slices.Contains(w, d) {
				who = "The default value of " + k + ", which you left as it is, names " + short(d)
				break
			}
		}
		flag := "--read "
		if write {
			flag = "--write "
		}
		line := who + ": it is not given to the server."
		if give != nil {
			line += " " + give(flag+sandbox.QuoteArg(short(d)))
		}
		out = append(out, line)
	}
	for _, d := range aw {
		say(d, true)
	}
	for _, d := range ar {
		say(d, false)
	}
	return out
}

// expandHome expands the home's variables in args as mcptray's config
// does (${HOME}, ${userHome}); ~ the sandbox's rule expands itself.
func expandHome(home string, args []string) []string {
	vars := config.Vars{Home: home, Lookup: func(k string) (string, bool) {
		if k == "HOME" {
			return home, true
		}
		return "", false
	}}
	out := make([]string, len(args))
	for i, a := range args {
		if e, err := vars.Expand(a); err == nil {
			a = e
		}
		out[i] = a
	}
	return out
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
