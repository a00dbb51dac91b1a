package ocipin

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Image is one image a tag named when it was resolved: what a pin binds.
type Image struct {
	// Ref is the image as the command names it, with its tag.
	Ref string `json:"ref"`
	// Digest is the SHA-256 of the manifest (or index) the tag named
	// ("sha256:…"): what docker run is given.
	Digest string `json:"digest"`
	// Config is the configuration of the image that runs here (of the
	// index's image for this computer's platform).
	Config Config `json:"config"`
	// Layers are the digests of its layers, in order.
	Layers []string `json:"layers,omitempty"`
	// Created is when the image says it was built; zero when it does
	// not say.
	Created time.Time `json:"created,omitzero"`
}

// Config is what an image's configuration says of how it runs.
type Config struct {
	Entrypoint []string `json:"entrypoint,omitempty"`
	Cmd        []string `json:"cmd,omitempty"`
	Env        []string `json:"env,omitempty"`
	User       string   `json:"user,omitempty"`
	Ports      []string `json:"ports,omitempty"`
	WorkingDir string   `json:"workingDir,omitempty"`
}

// Short is the digest as people read it: "sha256:" and its first twelve
// hex digits.
func (i Image) Short() string {
	if len(i.Digest) > len("sha256:")+12 {
		return i.Digest[:len("sha256:")+12]
	}
	return i.Digest
}

// digestPattern is a SHA-256 digest as Resolve makes it.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Valid says whether i's digest is one Resolve could have made: a record
// edited to hold anything else is not run.
func (i Image) Valid() error {
	if !digestPattern.MatchString(i.Digest) {
		return fmt.Errorf("%s's pinned digest %q is not a SHA-256 digest", i.Ref, i.Digest)
	}
	return nil
}

// Hex is the digest's hex digits.
func (i Image) Hex() string {
	return strings.TrimPrefix(i.Digest, "sha256:")
}

// Words says i as the person reads it: "image mcp/time:latest pinned at
// sha256:0123456789ab…, built 2026-12-07".
func (i Image) Words() string {
	w := fmt.Sprintf("image %s pinned at %s…", i.Ref, i.Short())
	if !i.Created.IsZero() {
		w += ", built " + i.Created.UTC().Format("2006-01-02")
	}
	return w
}

// Registry asks registries for images.
type Registry struct {
	// Keychain gives each registry's credential; nil means the person's
	// docker config (~/.docker/config.json, its credential helpers).
	Keychain authn.Keychain
	// Transport carries the requests; nil means the default one (the
	// environment's proxy, the system's certificates).
	Transport http.RoundTripper
}

// Resolve asks the image's registry which image its tag names now, and
// reads that image's configuration. The digest is the SHA-256 of the
// manifest's bytes as received: a registry that says another digest than
// its content has is not believed, and one that serves a manifest whose
// digest cannot be computed so (Docker's old signed schema 1) is refused.
//
// A short name of podman's (Spec.ShortName) is refused (ErrShortName):
// which registry podman would take it from is its registries.conf's say.
func (r Registry) Resolve(ctx context.Context, s Spec) (Image, error) {
	if s.ShortName() {
		return Image{}, fmt.Errorf("%s names no registry: %w; name the image with its registry, e.g. %s", s.Image, ErrShortName, qualified(s.Image))
	}
	tag, err := s.Ref()
	if err != nil {
		return Image{}, fmt.Errorf("reading the image name %q: %w", s.Image, err)
	}
	kc := r.Keychain
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	opts := []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(kc),
		remote.WithPlatform(v1.Platform{OS: "linux", Architecture: runtime.GOARCH}),
	}
	if r.Transport != nil {
		opts = append(opts, remote.WithTransport(r.Transport))
	}
	desc, err := remote.Get(tag, opts...)
	if err != nil {
		return Image{}, askFailed(tag, err, s.client())
	}
	if desc.MediaType == types.DockerManifestSchema1 || desc.MediaType == types.DockerManifestSchema1Signed {
		return Image{}, fmt.Errorf("%s is an image of Docker's old format (schema 1), which cannot be pinned by its content; push it again with a current docker", s.Image)
	}
	sum, _, err := v1.SHA256(bytes.NewReader(desc.Manifest))
	if err != nil {
		return Image{}, fmt.Errorf("hashing %s's manifest: %w", s.Image, err)
	}
	if sum != desc.Digest {
		return Image{}, fmt.Errorf("the registry says %s is %s, but what it sent is %s", s.Image, desc.Digest, sum)
	}
	img, err := desc.Image() // for an index, this computer's platform's
	if err != nil {
		return Image{}, fmt.Errorf("reading %s: %w", s.Image, err)
	}
	cf, err := img.ConfigFile() // checked against the digest the manifest names
	if err != nil {
		return Image{}, fmt.Errorf("reading %s's configuration: %w", s.Image, err)
	}
	m, err := img.Manifest()
	if err != nil {
		return Image{}, fmt.Errorf("reading %s's layers: %w", s.Image, err)
	}
	out := Image{Ref: tag.String(), Digest: sum.String(), Created: cf.Created.Time}
	if s.Image != "" {
		out.Ref = s.Image
		if !strings.Contains(s.Image[strings.LastIndex(s.Image, "/")+1:], ":") {
			out.Ref += ":" + tag.TagStr()
		}
	}
	c := cf.Config
	out.Config = Config{Entrypoint: c.Entrypoint, Cmd: c.Cmd, Env: c.Env, User: c.User, WorkingDir: c.WorkingDir}
	for p := range c.ExposedPorts {
		out.Config.Ports = append(out.Config.Ports, p)
	}
	slices.Sort(out.Config.Ports)
	for _, l := range m.Layers {
		out.Layers = append(out.Layers, l.Digest.String())
	}
	return out, nil
}
