// Package registry reads the official MCP Registry's catalogue of servers
// (its v0.1 read API), keeps a copy in the person's cache folder so that
// search works offline, and turns a chosen entry into a plan: the config
// entry mcptray would write, the inputs it needs from the person and which
// of them are secrets. An entry whose package is an MCP Bundle is not
// planned: FetchBundle (bundle.go) downloads its file over https and
// checks it against the digest the entry lists, for the service to open
// as it opens any bundle file.
//
// It only reads, and keeps what it read (the catalogue's copy, a bundle's
// file until it is installed or a day unused; it removes nothing else).
// It must never send the person's secrets anywhere (the registry is asked
// for public entries and nothing else: no value a person typed is ever
// part of a request), and it must never run anything: a plan
// is data that the person sees and the service writes; starting the server
// is core/conn's business, after the person has seen what will run.
package registry
