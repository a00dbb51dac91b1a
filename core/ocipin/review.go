package ocipin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Review is what changes from one pinned image to another, for the person
// to read before the new one runs.
type Review struct {
	From Image `json:"from"`
	To   Image `json:"to"`
	// Changes say, a line each, what of the configuration changes:
	// "entrypoint: [/srv] becomes [/srv --send]".
	Changes []string `json:"changes,omitempty"`
	// LayersAdded and LayersRemoved are the layers' digests that one
	// image has and the other has not.
	LayersAdded   []string `json:"layersAdded,omitempty"`
	LayersRemoved []string `json:"layersRemoved,omitempty"`
}

// NoCodeDiff says what the review does not do.
const NoCodeDiff = "Its code is not compared: a readable diff of an image's files is not attempted. Read what its publisher says changed before you update."

// Compare says what changes from the image from to the image to.
func Compare(from, to Image) Review {
	r := Review{From: from, To: to}
	a, b := from.Config, to.Config
	list := func(what string, x, y []string) {
		if !slices.Equal(x, y) {
			r.Changes = append(r.Changes, fmt.Sprintf("%s: %s becomes %s", what, quoted(x), quoted(y)))
		}
	}
	one := func(what, x, y string) {
		if x != y {
			r.Changes = append(r.Changes, fmt.Sprintf("%s: %s becomes %s", what, quoted1(x), quoted1(y)))
		}
	}
	list("entrypoint", a.Entrypoint, b.Entrypoint)
	list("cmd", a.Cmd, b.Cmd)
	added, removed := setDiff(a.Env, b.Env)
	for _, e := range added {
		r.Changes = append(r.Changes, "environment: adds "+quoted1(e))
	}
	for _, e := range removed {
		r.Changes = append(r.Changes, "environment: removes "+quoted1(e))
	}
	one("user", a.User, b.User)
	added, removed = setDiff(a.Ports, b.Ports)
	for _, p := range added {
		r.Changes = append(r.Changes, "exposed port: adds "+p)
	}
	for _, p := range removed {
		r.Changes = append(r.Changes, "exposed port: removes "+p)
	}
	one("working folder", a.WorkingDir, b.WorkingDir)
	r.LayersAdded, r.LayersRemoved = setDiff(from.Layers, to.Layers)
	return r
}

// Words says the review in lines: the digests and build dates, each
// change of the configuration (Head), then the layers, and that the code
// is not compared (Rest).
func (r Review) Words() string {
	return r.Head() + "\n" + r.Rest()
}

// Head is what the person must not miss: the digests, when each image
// was built, and each change of its configuration.
func (r Review) Head() string {
	var b strings.Builder
	fmt.Fprintf(&b, "image %s: %s… to %s…", sanitize.Line(r.To.Ref), r.From.Short(), r.To.Short())
	if !r.From.Created.IsZero() || !r.To.Created.IsZero() {
		fmt.Fprintf(&b, ", built %s, then %s", date(r.From), date(r.To))
	}
	if len(r.Changes) == 0 {
		b.WriteString("\nIts configuration (entrypoint, cmd, environment, user, ports, working folder) stays as it was.")
	} else {
		b.WriteString("\nIts configuration changes:")
		for _, c := range r.Changes {
			b.WriteString("\n  " + sanitize.Line(c))
		}
	}
	return b.String()
}

// Rest is the layers added and removed, and that the code is not
// compared.
func (r Review) Rest() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Layers: %d added, %d removed", len(r.LayersAdded), len(r.LayersRemoved))
	for _, l := range r.LayersAdded {
		b.WriteString("\n  added " + short(l))
	}
	for _, l := range r.LayersRemoved {
		b.WriteString("\n  removed " + short(l))
	}
	b.WriteString("\n" + NoCodeDiff)
	return b.String()
}

func date(i Image) string {
	if i.Created.IsZero() {
		return "(it does not say)"
	}
	return i.Created.UTC().Format("2006-01-02 15:04 UTC")
}

func short(digest string) string {
	if len(digest) > len("sha256:")+12 {
		return digest[:len("sha256:")+12] + "…"
	}
	return digest
}

func quoted(list []string) string {
	if len(list) == 0 {
		return "(none)"
	}
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, " ") + "]"
}

func quoted1(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", s)
}

// setDiff is what y has that x has not, and what x has that y has not,
// each in its order.
func setDiff(x, y []string) (added, removed []string) {
	for _, s := range y {
		if !slices.Contains(x, s) {
			added = append(added, s)
		}
	}
	for _, s := range x {
		if !slices.Contains(y, s) {
			removed = append(removed, s)
		}
	}
	return added, removed
}
