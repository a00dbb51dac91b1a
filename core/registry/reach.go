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
// reach of the person's files in its sandbox (home is the home folder):
// the folders and files the values the person gave name, and for each
// folder or file the publisher's command or a default names and its
// sandbox will not let it reach (sandbox.WithheldArgs, as the installed
// server's words say it), that it is not given, followed by give's words
// for what gives it (give gets the flag of mcptray sandbox allow:
// "--read ~/.ssh"; nil says nothing more). A remote server's plan says
// nothing.
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
	// What the command names and the server is not given, as the
	// installed server's sandbox will say it (sandbox.WithheldArgs), with
	// who chose it: a default the person left, or the publisher.
	in := sandbox.Input{Program: p.Command, Args: expandHome(home, p.Args), Home: home,
		DataDir:          filepath.Join(home, ".local", "share", "mcptray", "servers", "new"),
		Settings:         sandbox.Settings{Read: gr, Write: gw, ArgsGrantNothing: true},
		ArgsGrantNothing: true}
	policy, _ := sandbox.Default(in) // the home and the data folder are set: it does not fail
	for _, w := range sandbox.WithheldArgs(in, policy) {
		who := "The publisher's command names " + w.What
		for _, k := range sortedKeys(p.Defaults) {
			r, wr := sandbox.ArgGrants(home, expandHome(home, []string{p.Defaults[k]}))
			if slices.ContainsFunc(slices.Concat(r, wr), func(d string) bool { return short(d) == w.What }) {
				who = "The default value of " + k + ", which you left as it is, names " + w.What
				break
			}
		}
		line := who + ": it is not given to the server."
		if give != nil {
			line += " " + give(w.Allow)
		}
		out = append(out, line)
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
