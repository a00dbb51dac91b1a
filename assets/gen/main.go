// Command gen draws mcptray's icons: the app icon and one tray icon per state,
// for light and for dark panels. It uses only the standard library, so the
// PNGs can be redrawn anywhere with
//
//	go generate ./assets
//
// and the drawing is the same on every machine.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "assets", "directory to write the PNGs to")
	flag.Parse()

	write := func(name string, img image.Image) {
		path := filepath.Join(*out, name)
		f, err := os.Create(path)
		if err != nil {
			log.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			log.Fatalf("encoding %s: %v", path, err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}

	write("icon.png", appIcon(512))
	for _, s := range states {
		for _, dark := range []bool{false, true} {
			variant := "light"
			if dark {
				variant = "dark"
			}
			write(fmt.Sprintf("tray-%s-%s.png", s.name, variant), trayIcon(64, s, dark))
		}
	}
}

// A shape is a signed distance function in pixel units: negative inside,
// positive outside. Coverage of a pixel is taken from the distance at its
// centre, which anti-aliases edges over about one pixel.
type shape func(x, y float64) float64

func circle(cx, cy, r float64) shape {
	return func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - r }
}

// ring is the band of width w centred on a circle of radius r.
func ring(cx, cy, r, w float64) shape {
	return func(x, y float64) float64 { return math.Abs(math.Hypot(x-cx, y-cy)-r) - w/2 }
}

// capsule is a line from (ax, ay) to (bx, by) with round ends, r wide on each side.
func capsule(ax, ay, bx, by, r float64) shape {
	return func(x, y float64) float64 {
		px, py := x-ax, y-ay
		dx, dy := bx-ax, by-ay
		h := (px*dx + py*dy) / (dx*dx + dy*dy)
		h = math.Max(0, math.Min(1, h))
		return math.Hypot(px-dx*h, py-dy*h) - r
	}
}

// roundRect is the rectangle [x0,x1]×[y0,y1] with corners of radius r.
func roundRect(x0, y0, x1, y1, r float64) shape {
	cx, cy := (x0+x1)/2, (y0+y1)/2
	hw, hh := (x1-x0)/2-r, (y1-y0)/2-r
	return func(x, y float64) float64 {
		qx := math.Abs(x-cx) - hw
		qy := math.Abs(y-cy) - hh
		outside := math.Hypot(math.Max(qx, 0), math.Max(qy, 0))
		inside := math.Min(math.Max(qx, qy), 0)
		return outside + inside - r
	}
}

func union(shapes ...shape) shape {
	return func(x, y float64) float64 {
		d := math.Inf(1)
		for _, s := range shapes {
			d = math.Min(d, s(x, y))
		}
		return d
	}
}

// canvas accumulates straight-alpha colour in float64 and composites shapes
// over it with the "over" operator.
type canvas struct {
	w, h int
	px   []rgba
}

type rgba struct{ r, g, b, a float64 }

func newCanvas(w, h int) *canvas { return &canvas{w: w, h: h, px: make([]rgba, w*h)} }

func hex(v uint32) rgba {
	return rgba{float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, 1}
}

func (c rgba) withAlpha(a float64) rgba { c.a = a; return c }

// fill paints s with colour col, whose alpha may vary over the canvas.
func (c *canvas) fill(s shape, col func(x, y float64) rgba) {
	for j := 0; j < c.h; j++ {
		for i := 0; i < c.w; i++ {
			x, y := float64(i)+0.5, float64(j)+0.5
			cov := math.Max(0, math.Min(1, 0.5-s(x, y)))
			if cov == 0 {
				continue
			}
			src := col(x, y)
			sa := src.a * cov
			dst := &c.px[j*c.w+i]
			oa := sa + dst.a*(1-sa)
			if oa == 0 {
				continue
			}
			dst.r = (src.r*sa + dst.r*dst.a*(1-sa)) / oa
			dst.g = (src.g*sa + dst.g*dst.a*(1-sa)) / oa
			dst.b = (src.b*sa + dst.b*dst.a*(1-sa)) / oa
			dst.a = oa
		}
	}
}

func (c *canvas) fillSolid(s shape, col rgba) {
	c.fill(s, func(float64, float64) rgba { return col })
}

func (c *canvas) image() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, c.w, c.h))
	to8 := func(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(1, v)) * 255)) }
	for j := 0; j < c.h; j++ {
		for i := 0; i < c.w; i++ {
			p := c.px[j*c.w+i]
			img.SetNRGBA(i, j, color.NRGBA{to8(p.r), to8(p.g), to8(p.b), to8(p.a)})
		}
	}
	return img
}

// appIcon is a plug on a rounded blue tile, with a green dot for "all good".
// Coordinates are drawn on a 512 grid and scaled to size.
func appIcon(size int) image.Image {
	c := newCanvas(size, size)
	k := float64(size) / 512

	top, bottom := hex(0x2f6fd6), hex(0x1c3f8f)
	tile := func(_, y float64) rgba {
		t := y / float64(size)
		return rgba{
			top.r + (bottom.r-top.r)*t,
			top.g + (bottom.g-top.g)*t,
			top.b + (bottom.b-top.b)*t,
			1,
		}
	}
	c.fill(roundRect(24*k, 24*k, 488*k, 488*k, 104*k), tile)

	white := hex(0xffffff)
	// Cable, drawn first so the plug covers its top.
	c.fillSolid(union(
		capsule(256*k, 320*k, 256*k, 372*k, 17*k),
		capsule(256*k, 372*k, 178*k, 432*k, 17*k),
	), white)
	// Prongs.
	c.fillSolid(union(
		capsule(206*k, 96*k, 206*k, 170*k, 20*k),
		capsule(306*k, 96*k, 306*k, 170*k, 20*k),
	), white)
	// Body and neck.
	c.fillSolid(roundRect(146*k, 160*k, 366*k, 296*k, 36*k), white)
	c.fillSolid(roundRect(214*k, 280*k, 298*k, 334*k, 22*k), white)

	// Status dot in the corner, cut out of what lies under it by a ring in
	// the tile's own colour so that it reads as a badge.
	c.fill(circle(384*k, 384*k, 72*k), tile)
	c.fillSolid(circle(384*k, 384*k, 56*k), hex(0x34b35a))
	return c.image()
}

type state struct {
	name string
	fill uint32 // on light panels
	// fillDark is a little brighter: dark panels swallow dark colours.
	fillDark uint32
	glyph    uint32
	// mark draws the state's symbol on a 64 grid, so that the states differ
	// in shape as well as colour.
	mark func(k float64) shape
}

var states = []state{
	{
		name: "ok", fill: 0x1e8e3e, fillDark: 0x34b35a, glyph: 0xffffff,
		mark: func(k float64) shape { // a check mark
			return union(
				capsule(21*k, 33*k, 28.5*k, 40.5*k, 3.6*k),
				capsule(28.5*k, 40.5*k, 43*k, 24.5*k, 3.6*k),
			)
		},
	},
	{
		name: "attention", fill: 0xe8a200, fillDark: 0xf6b826, glyph: 0x3d2a00,
		mark: func(k float64) shape { // an exclamation mark
			return union(
				capsule(32*k, 19*k, 32*k, 35*k, 3.8*k),
				circle(32*k, 44.5*k, 4.2*k),
			)
		},
	},
	{
		name: "failing", fill: 0xd93025, fillDark: 0xee5349, glyph: 0xffffff,
		mark: func(k float64) shape { // a cross
			return union(
				capsule(23*k, 23*k, 41*k, 41*k, 3.6*k),
				capsule(41*k, 23*k, 23*k, 41*k, 3.6*k),
			)
		},
	},
	{
		name: "paused", fill: 0x80868b, fillDark: 0x9aa0a6, glyph: 0xffffff,
		mark: func(k float64) shape { // two bars
			return union(
				capsule(26*k, 22*k, 26*k, 42*k, 3.8*k),
				capsule(38*k, 22*k, 38*k, 42*k, 3.8*k),
			)
		},
	},
}

// trayIcon is a filled disc in the state's colour with its symbol, and a thin
// outline that keeps the disc apart from the panel: dark on light panels,
// light on dark ones.
func trayIcon(size int, s state, dark bool) image.Image {
	c := newCanvas(size, size)
	k := float64(size) / 64
	fill, outline := hex(s.fill), hex(0x000000).withAlpha(0.35)
	if dark {
		fill, outline = hex(s.fillDark), hex(0xffffff).withAlpha(0.55)
	}
	c.fillSolid(circle(32*k, 32*k, 29*k), fill)
	c.fillSolid(ring(32*k, 32*k, 29*k, 2.5*k), outline)
	c.fillSolid(s.mark(k), hex(s.glyph))
	return c.image()
}
