package tray

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"runtime"
)

// icoFromPNG wraps a PNG icon in an .ico file, which is what
// fyne.io/systray needs on Windows: it writes the bytes to a file and loads
// it with LoadImage(IMAGE_ICON), which takes no PNG file. Given our PNG,
// it loaded nothing and the tray showed no icon (Wine says "unable to set
// icon: Success"). The one image in it is a 32-bit bitmap with its alpha,
// which every Windows (and Wine) reads, not a PNG inside the .ico, which
// only newer ones do.
func icoFromPNG(b []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("reading the icon: %w", err)
	}
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	if w < 1 || h < 1 || w > 256 || h > 256 {
		return nil, fmt.Errorf("an icon of %d×%d pixels does not fit an .ico", w, h)
	}
	// The AND mask: one bit a pixel, each row a multiple of 4 bytes; all
	// zeros, as the alpha says what shows.
	maskRow := (w + 31) / 32 * 4
	size := 40 + w*h*4 + maskRow*h
	var out bytes.Buffer
	le := func(v any) { _ = binary.Write(&out, binary.LittleEndian, v) }
	// ICONDIR: reserved, type 1 (icon), one image.
	le([3]uint16{0, 1, 1})
	// ICONDIRENTRY: width and height (0 says 256), colours, reserved,
	// planes, bits a pixel, the image's size and where it starts.
	le([4]uint8{uint8(w), uint8(h), 0, 0})
	le([2]uint16{1, 32})
	le([2]uint32{uint32(size), 6 + 16})
	// BITMAPINFOHEADER: its height counts the image and its mask.
	le(uint32(40))
	le([2]int32{int32(w), int32(2 * h)})
	le([2]uint16{1, 32})
	le([6]uint32{0, uint32(w * h * 4), 0, 0, 0, 0})
	// The pixels, bottom row first, as straight (not premultiplied)
	// blue, green, red, alpha.
	for y := r.Max.Y - 1; y >= r.Min.Y; y-- {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := nrgba(img, x, y)
			out.Write([]byte{c[2], c[1], c[0], c[3]})
		}
	}
	out.Write(make([]byte, maskRow*h))
	return out.Bytes(), nil
}

// nrgba is the pixel at x, y as straight red, green, blue and alpha.
func nrgba(img image.Image, x, y int) [4]uint8 {
	r, g, b, a := img.At(x, y).RGBA() // premultiplied, 16 bits
	if a == 0 {
		return [4]uint8{}
	}
	return [4]uint8{uint8(r * 0xffff / a >> 8), uint8(g * 0xffff / a >> 8), uint8(b * 0xffff / a >> 8), uint8(a >> 8)}
}

// systemIcon is the PNG icon b as fyne.io/systray takes it here: as it is,
// or on Windows as an .ico.
func (t *tray) systemIcon(b []byte) []byte {
	if runtime.GOOS != "windows" {
		return b
	}
	ico, err := icoFromPNG(b)
	if err != nil {
		t.log.Warn("the tray's icon", "err", err)
		return b
	}
	return ico
}
