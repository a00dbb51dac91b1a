// Package pins keeps what a person has seen of each server's tools and
// prompts, so that a change is noticed, explained in words and held until
// the person accepts it.
//
// A pin is one tool's (or prompt's) definition as first seen: its name,
// title, description, input and output schemas, annotations and _meta
// (def.go). Pins are kept per server in one file in mcptray's own folder,
// never in a config file, written atomically (store.go), with the changes
// held when the server last ran and the person's decisions to keep one
// held (each for the definition it was kept with). Compare tells a
// server's current list apart from its pins: unchanged, changed, new,
// removed, and renamed (the same definition under a new name); a change of
// annotations that claims less than before (destructive, now read-only) is
// marked as weakened (compare.go). Words says in plain words what changed:
// the description's added and removed words (sergi/go-diff, on words) and
// the schemas' fields (words.go, schema.go). Scan reads a definition for
// what a model would take as orders rather than documentation: tags and
// phrases, other servers' tool names, instructions to read files, send
// data or pass secrets, and hidden characters (scan.go); Read also says
// which of its words could name another server's tool, so that it is read
// again when such a tool comes or goes.
//
// Policy is the holding policy built on them (policy.go): the one place
// that decides what apps are offered of a server's tools and prompts. The
// service tells it every list a server gives, tools and prompts on the
// same path (hold.go), and it holds what changed until the person accepts
// it or keeps it held (decide.go); the service's Snapshot and the gateway
// only read what it made of them, and what it was not told of or cannot
// tell they withhold. It imports nothing of the service or of any front
// end (core/deps_test.go).
package pins
