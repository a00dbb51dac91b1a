// Command icons writes mcptray's app icon in the sizes of the freedesktop
// hicolor icon theme, for the Linux packages:
//
//	go run ./packaging/icons -out DIR
//
// writes DIR/NxN/apps/dev.mcptray.mcptray.png for each size, scaled down
// from the 512×512 icon in assets (the one the window and fyne package
// use), so there is one drawing of the icon and no PNGs to keep in step.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"

	"github.com/mcptray/mcptray/assets"
)

// sizes are the hicolor sizes desktops look in for an app's icon.
var sizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512}

const name = "dev.mcptray.mcptray.png"

func main() {
	out := flag.String("out", "", "the hicolor folder to write into (usr/share/icons/hicolor)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./packaging/icons -out DIR")
		os.Exit(2)
	}
	src, err := png.Decode(bytes.NewReader(assets.AppIcon()))
	if err != nil {
		log.Fatalf("icons: reading the app icon: %v", err)
	}
	for _, n := range sizes {
		if err := write(filepath.Join(*out, fmt.Sprintf("%dx%d", n, n), "apps", name), scale(src, n)); err != nil {
			log.Fatalf("icons: %v", err)
		}
	}
}

// scale draws src at n×n with Catmull-Rom, which keeps the edges of a
// small icon sharp.
func scale(src image.Image, n int) image.Image {
	if src.Bounds().Dx() == n && src.Bounds().Dy() == n {
		return src
	}
	dst := image.NewNRGBA(image.Rect(0, 0, n, n))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	return dst
}

func write(path string, img image.Image) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
