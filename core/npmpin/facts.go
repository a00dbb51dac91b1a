package npmpin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/ocipin"
)

// Facts are what the person is shown of a pinned tree before it runs.
type Facts struct {
	Package string `json:"package"`
	Version string `json:"version"`
	// Published is when the registry says that version was published;
	// zero when it did not say.
	Published time.Time `json:"published,omitzero"`
	// Packages counts the tree's packages, the pinned one included.
	Packages int    `json:"packages"`
	Hash     string `json:"hash"`
	// Scripts names the packages that declare install scripts;
	// ScriptsRun says what became of them (scripts.go).
	Scripts    []string    `json:"scripts,omitempty"`
	ScriptsRun *ScriptsRun `json:"scriptsRun,omitempty"`
	// Origin is where the version says it was built (attest.go).
	Origin *Origin `json:"origin,omitempty"`
	// Hidden are where the files of the tree's packages hold characters
	// that do not show or change how the code reads (hidden.go): at most
	// maxHidden; HiddenMore counts the rest. Unread counts the files
	// past the scan's bounds, not read.
	Hidden     []HiddenChar `json:"hidden,omitempty"`
	HiddenMore int          `json:"hiddenMore,omitempty"`
	Unread     int          `json:"unread,omitempty"`
	// Image is the image pinned, for a docker run server (image.go).
	Image *ocipin.Image `json:"image,omitempty"`
}

// Facts asks the registry when p's version was published, counts its
// tree, and reads its code for hidden characters (hidden.go), once for an
// installed tree (hiddencache.go). A registry
// that does not answer leaves Published zero.
func (n *NPM) Facts(ctx context.Context, p Pin) Facts {
	if p.Image != nil {
		return Facts{Package: p.Spec.Package, Version: p.Version(), Hash: p.Lock.Hash, Image: p.Image}
	}
	f := Facts{Package: p.Spec.Package, Version: p.Version(), Packages: len(p.Lock.Packages), Hash: p.Lock.Hash, Scripts: p.Lock.Scripts(), Origin: p.Origin}
	if r, ok := ScriptsOf(p.Dir); ok {
		f.ScriptsRun = &r
	}
	var err error
	if f.Hidden, f.HiddenMore, f.Unread, err = hiddenOf(p); err != nil && n.Logger != nil {
		n.Logger.Warn("reading a pinned tree for hidden characters", "package", p.Spec.Package, "err", err)
	}
	out, err := n.run(ctx, p.Dir, "view", p.Spec.Package+"@"+f.Version, "time", "--json")
	if err != nil {
		if n.Logger != nil {
			n.Logger.Info("asking when a version was published", "package", p.Spec.Package, "err", err)
		}
		return f
	}
	var times map[string]string
	if json.Unmarshal(out, &times) == nil {
		if t, err := time.Parse(time.RFC3339, times[f.Version]); err == nil {
			f.Published = t
		}
	}
	return f
}

// Words says f as the person reads it: "postmark-mcp version 1.0.15,
// published 3 months ago, 84 packages in all".
func (f Facts) Words(now time.Time) string {
	if f.Image != nil {
		return f.Image.Words()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s version %s", f.Package, f.Version)
	if !f.Published.IsZero() {
		fmt.Fprintf(&b, ", published %s", ago(now.Sub(f.Published)))
	}
	if f.Packages == 1 {
		b.WriteString(", 1 package in all")
	} else {
		fmt.Fprintf(&b, ", %d packages in all", f.Packages)
	}
	switch {
	case f.ScriptsRun != nil:
		fmt.Fprintf(&b, " (%s)", f.ScriptsRun.Words())
	case len(f.Scripts) > 0:
		fmt.Fprintf(&b, " (install scripts not run: %s)", strings.Join(f.Scripts, ", "))
	}
	if f.Origin != nil {
		b.WriteString("; " + f.Origin.Words())
	}
	return b.String()
}

// ago says a duration in the largest whole unit: "3 months ago".
func ago(d time.Duration) string {
	day := 24 * time.Hour
	unit := func(n int, one string) string {
		if n == 1 {
			return "1 " + one + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, one)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return unit(int(d/time.Minute), "minute")
	case d < day:
		return unit(int(d/time.Hour), "hour")
	case d < 30*day:
		return unit(int(d/day), "day")
	case d < 365*day:
		return unit(int(d/(30*day)), "month")
	}
	return unit(int(d/(365*day)), "year")
}
