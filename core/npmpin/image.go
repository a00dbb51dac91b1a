package npmpin

import "github.com/mcptray/mcptray/core/ocipin"

// A server that runs a container image (docker or podman run image:tag) is pinned
// by the image's digest (core/ocipin) in the same records as a package's
// tree, so that its updates are found, reviewed, tried, run and gone back
// from as a package's are: its Pin has an Image, whose digest's hex is
// its Lock.Hash (what an update's review names as ToHash, and mcptray
// update --tree takes), and no folder, for docker keeps the image.

// ImageSpec is the Spec of the image s names.
func ImageSpec(s ocipin.Spec) Spec {
	return Spec{Package: s.Image, Image: true, Podman: s.Podman}
}

// ImageOf is the image spec names, as ocipin resolves it.
func ImageOf(spec Spec) ocipin.Spec {
	return ocipin.Spec{Image: spec.Package, Podman: spec.Podman}
}

// ImagePin is the pin of img, resolved for spec.
func ImagePin(spec Spec, img ocipin.Image) Pin {
	return Pin{Spec: spec, Lock: Lock{Hash: img.Hex()}, Image: &img}
}

// ImageReview is what changes from the image from to the image to.
func ImageReview(from, to Pin) Review {
	r := ocipin.Compare(*from.Image, *to.Image)
	return Review{Package: to.Spec.Package, FromVersion: from.Version(), ToVersion: to.Version(), FromHash: from.Lock.Hash, ToHash: to.Lock.Hash, Image: &r}
}
