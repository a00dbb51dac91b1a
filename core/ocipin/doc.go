// Package ocipin pins a server that runs a container image (docker or
// podman run image:tag) by the image's digest: what runs is the image the
// person approved, until the person has seen what changed and said yes.
//
// A tag is a name a registry may point at another image at any time;
// docker runs whatever the tag points to when it next pulls. Instead,
// mcptray asks the registry (Registry.Resolve, with go-containerregistry
// and the person's docker credentials, so a company's registry works)
// which manifest the tag names today, takes its digest as the SHA-256 of
// the manifest's own bytes (never the digest the registry says it has),
// and reads the image's configuration. The server then runs as docker run
// … image@sha256:… (Spec.Pinned rewrites the image argument alone), which
// docker checks against what it pulls.
//
// Detect reads docker run's flags (those that take a value, such as -e,
// -v, --name, --network, -p, and those that do not) to find the image; an
// image named by its digest already needs no pin.
//
// podman run is read the same way, with podman's own options and its run
// flags that take no value, and its registries' credentials are those
// podman reads, in its order (PodmanKeychain). An image podman names
// without its registry (a short name) is found through its
// registries.conf, which may list several registries: Resolve refuses it
// (ErrShortName) rather than guess, and says to name the registry.
//
// An update is the tag's new digest. Compare says what changes from one
// image to the other: its configuration (entrypoint, cmd, environment,
// user, exposed ports, working folder), the layers added and removed,
// and when each was built. A readable diff of the image's code is not
// attempted, and the review says so.
package ocipin
