package npmpin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Origin is where a pinned version says it was built, as mcptray found
// it when it pinned the version or checked for an update: the registry's
// provenance attestation, fetched once and checked offline
// (CheckProvenance).
type Origin struct {
	// Provenance is where its statement says it was built; empty when
	// the registry holds none (published by hand), or when it was not
	// accepted or could not be fetched.
	Provenance Provenance `json:"provenance,omitzero"`
	// Refused says why the registry's attestation was not accepted: one
	// of another version or tarball, or changed after it was signed.
	Refused string `json:"refused,omitempty"`
	// Unchecked says why mcptray could not ask the registry.
	Unchecked string `json:"unchecked,omitempty"`
}

// CI reports whether the version says it was built by a CI, with a
// statement that held.
func (o Origin) CI() bool {
	return o.Refused == "" && o.Unchecked == "" && o.Provenance.Repository != ""
}

// Words says o: "built from github.com/x/y (commit abc1234) by its CI —
// claimed, not verified against Sigstore", "published by hand: nothing
// says where it was built", "its provenance was not accepted: …" or
// "its provenance could not be checked: …".
func (o Origin) Words() string {
	switch {
	case o.Refused != "":
		return "its provenance was not accepted: " + sanitize.Line(o.Refused)
	case o.Unchecked != "":
		return "its provenance could not be checked: " + sanitize.Line(o.Unchecked)
	}
	return o.Provenance.Words()
}

// attestationTimeout bounds the registry's answer.
const attestationTimeout = 20 * time.Second

// Origin asks the registry the person's npm config names for the
// attestations of p's own package (GET
// REGISTRY/-/npm/v1/attestations/NAME@VERSION, where npm's registry puts
// them and where the packument's dist.attestations.url points), and
// checks them against the integrity p's lockfile pins. It never fails:
// what went wrong is in the Origin's words.
//
// npm's config says the registry (a scope's first), and how npm reaches
// it: its proxy, the certificates it trusts, strict-ssl, and the
// registry's credential, sent to that registry alone (reach.go). The one
// GET is mcptray's own, made as npm would make it. npm's registry serves
// attestations without a credential: it records provenance only for
// public packages built from public repositories; a private registry
// may want one. A registry that refuses the request is said to answer
// that they could not be checked.
func (n *NPM) Origin(ctx context.Context, p Pin) Origin {
	top, ok := p.Lock.Top()
	if !ok {
		return Origin{Unchecked: "the lockfile does not hold " + p.Spec.Package}
	}
	raw, err := n.attestations(ctx, p.Dir, top)
	if err != nil {
		if n.Logger != nil {
			n.Logger.Info("asking the registry for a version's provenance", "package", top.Name, "err", err)
		}
		return Origin{Unchecked: err.Error()}
	}
	prov, err := CheckProvenance(raw, top)
	if err != nil {
		return Origin{Refused: err.Error()}
	}
	return Origin{Provenance: prov}
}

// attestations is the registry's answer for pkg, nil when it has none.
func (n *NPM) attestations(ctx context.Context, dir string, pkg Package) ([]byte, error) {
	a, err := n.access(ctx, dir, pkg.Name)
	if err != nil {
		return nil, fmt.Errorf("finding the registry: %w", err)
	}
	u := a.registry.String() + "-/npm/v1/attestations/" + url.PathEscape(pkg.Name) + "@" + url.PathEscape(pkg.Version)
	ctx, cancel := context.WithTimeout(ctx, attestationTimeout)
	defer cancel()
	req, err := a.request(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("asking the registry: %w", err)
	}
	client := a.client()
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the registry did not answer within %s", attestationTimeout)
		}
		return nil, fmt.Errorf("asking the registry: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, nil // none: published by hand
	case (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && a.authority == "":
		return nil, fmt.Errorf("the registry asked for a login (%s), and npm's config holds none for it", resp.Status)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("the registry refused the login npm's config holds for it (%s)", resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("the registry answered %s", resp.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAttestations+1))
	if err != nil {
		return nil, fmt.Errorf("reading the registry's answer: %w", err)
	}
	if len(raw) > maxAttestations {
		return nil, errors.New("the registry's attestations are too large to read")
	}
	return raw, nil
}

// originChange says, first in an update's review, a version that was
// built by a CI followed by one that says nothing of where it was built,
// or whose attestation does not hold: how a stolen npm token shows. ""
// when there is no such change, or when the registry did not answer for
// the new one (the next check asks again).
func originChange(r Review) string {
	if r.FromOrigin == nil || r.ToOrigin == nil || !r.FromOrigin.CI() || r.ToOrigin.CI() || r.ToOrigin.Unchecked != "" {
		return ""
	}
	return fmt.Sprintf("Where it was built changed (read this first): %s; %s. A package that its CI published and that is now %s is how a stolen npm token shows.",
		versionOrigin(r.FromVersion, *r.FromOrigin), versionOrigin(r.ToVersion, *r.ToOrigin), lostHow(*r.ToOrigin))
}

// versionOrigin says where a version was built, in a sentence: "version
// 1.0.1 was built from …", "version 1.0.2 was published by hand: …",
// "version 1.0.2: its provenance was not accepted: …".
func versionOrigin(version string, o Origin) string {
	if o.Refused == "" && o.Unchecked == "" {
		return "version " + sanitize.Line(version) + " was " + o.Words()
	}
	return "version " + sanitize.Line(version) + ": " + o.Words()
}

// lostHow says how the new version lost its provenance.
func lostHow(o Origin) string {
	if o.Refused != "" {
		return "served with provenance that does not hold"
	}
	return "published by hand"
}

// OriginWords says where an update's new version was built, with the
// change from the running one first when it lost its provenance: what an
// update's review says before anything else ("" when unknown).
func (r Review) OriginWords() string {
	if w := originChange(r); w != "" {
		return w
	}
	if r.ToOrigin == nil {
		return ""
	}
	w := versionOrigin(r.ToVersion, *r.ToOrigin)
	return strings.ToUpper(w[:1]) + w[1:] + "."
}

// OriginLost reports whether the update's new version lost the
// provenance of the running one.
func (r Review) OriginLost() bool { return originChange(r) != "" }
