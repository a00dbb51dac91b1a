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
// pins holds nothing back itself: the service decides what the gateway
// offers from what Compare says.
package pins
