// Package npmpin pins a server that runs an npm package by its content:
// what runs is the tree the person approved, byte for byte, until the
// person has seen what changed and said yes.
//
// A server whose command is npx (npx -y pkg, npx --package=pkg bin) runs
// whatever version npm serves when npx's cache next refreshes, and its
// dependencies float within their ranges at each fresh install. This is
// how a package such as postmark-mcp turned: fifteen clean versions, then
// one that added a line sending mail to its author, with the same tools'
// words.
//
// Instead, mcptray resolves the package and its whole tree with npm's own
// CLI (Resolve: npm install --package-lock-only --ignore-scripts, with the
// person's npm config, so a company's registry works), keeps the lockfile
// with each package's exact version and integrity hash, and installs that
// tree (Install: npm ci --ignore-scripts, which checks every tarball
// against its integrity) into a folder of mcptray's own that no server may
// write. The server then runs from there (Program: node and the package's
// bin), with no npx and no registry. A Pin names that tree by the hash of
// its lockfile's packages and their integrity (Lock.Hash): another tree is
// another pin, which the person approves as they would a changed command.
//
// npm never runs install scripts itself: it runs them outside any
// sandbox, which is how the Shai-Hulud worm spread. When a tree's
// packages declare some (Lock.Scripts), mcptray runs them after npm
// installed the tree without them, and before the tree is marked
// installed, as npm rebuild of those packages alone in a sandbox made as
// the server's own, that may write only the tree's node_modules and a
// temporary folder and reaches no network (NPM.Scripts, scripts.go); the
// facts and an update's review say which
// packages ran them and how they ended, or that there was no sandbox to
// run them in. A tree whose scripts left a link that leads out of it is
// refused, and the words name the link and those packages (links.go).
//
// Updates are found by resolving the same request again (Check): a new
// version of the package, or of any package in its tree, gives another
// hash. Review compares the two installed trees: the packages added,
// removed and changed, each changed file with a readable diff, and first,
// in words, each added line that names a new destination (a URL, a host,
// fetch, http.request, net.connect).
//
// CheckProvenance reads the registry's signed provenance statement of a
// version, offline, against the integrity the lockfile pins, and says
// where it was built or that it was published by hand (provenance.go says
// what it verifies and what needs Sigstore's trust root, online). Origin
// asks the registry the person's npm config names for it, once, when a
// tree is pinned and when an update is found (attest.go); the facts say
// it, and an update's review says first a version built by a CI followed
// by one that is not.
//
// A server that runs a container image (docker or podman run image:tag)
// is pinned in the same records by its image's digest (image.go,
// core/ocipin): a Pin with an Image, whose update is found, reviewed,
// tried and run as a tree's is.
//
// mcptray runs npm outside any sandbox, as the person's own npm, with
// scripts off (the scripts' npm rebuild alone runs in the sandbox); the
// trees it writes lie in its own data folder, where no server may write,
// and it follows no link there that a server or a script could have made.
package npmpin
