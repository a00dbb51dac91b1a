package sandbox

import (
	"path/filepath"
	"slices"
)

// Withheld is a folder or file that a server's command line names and
// that the server is not given, because the person did not write its
// command (Input.ArgsGrantNothing: an MCP Bundle's manifest, a registry
// publisher's package), with what gives it to read: the least that may
// make it work (a server that then writes there is refused, and its
// refusals offer the folder to change).
type Withheld struct {
	// What is the folder, with ~ for the home: the one named, or a named
	// file's project or folder, as the command-line rule gives them.
	What string `json:"what"`
	// Allow is the flag of mcptray sandbox allow that gives it
	// ("--read ~/notes"); Label the button's words ("Let it read
	// ~/notes").
	Allow string `json:"allow"`
	Label string `json:"label"`
}

// WithheldArgs are what in's command line names and p, in's policy
// (Default), does not let it reach at all: nothing unless in.ArgsGrantNothing. What the
// policy gives anyway (a folder the person typed when installing it, one
// allowed since, the server's own files, the system's folders) is not
// among them.
func WithheldArgs(in Input, p Policy) []Withheld {
	if !in.ArgsGrantNothing || in.Home == "" {
		return nil
	}
	home := filepath.Clean(in.Home)
	named := &builder{home: home}
	for _, a := range in.Args {
		named.arg(a)
	}
	given := func(d string, lists ...[]string) bool {
		for _, list := range lists {
			for _, g := range list {
				if g == d || within(g, d) {
					return true
				}
			}
		}
		return false
	}
	var out []Withheld
	// A folder it may read is not said, though the rule would have given
	// it to change: a system folder (/usr/share), or one the person
	// chose to give it to read only.
	for _, d := range slices.Concat(named.w, named.r) {
		if !given(d, p.Read, p.Write) {
			short := Tilde(home, d)
			out = append(out, Withheld{What: short, Allow: "--read " + quoteArg(short), Label: "Let it read " + short})
		}
	}
	return out
}
