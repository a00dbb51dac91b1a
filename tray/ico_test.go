package tray

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"log/slog"
	"runtime"
	"testing"

	"github.com/mcptray/mcptray/assets"
)

// The .ico holds the PNG's every pixel, as Windows reads a 32-bit icon:
// its header right, the rows bottom first, blue first, and the mask empty.
func TestIcoFromPNGHoldsThePixels(t *testing.T) {
	for _, state := range assets.States {
		for _, dark := range []bool{false, true} {
			src := assets.TrayIcon(state, dark)
			img, err := png.Decode(bytes.NewReader(src))
			if err != nil {
				t.Fatal(err)
			}
			ico, err := icoFromPNG(src)
			if err != nil {
				t.Fatalf("%s: %v", assets.TrayIconName(state, dark), err)
			}
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			le := binary.LittleEndian
			if le.Uint16(ico[2:]) != 1 || le.Uint16(ico[4:]) != 1 {
				t.Fatalf("not an .ico of one image: % x", ico[:6])
			}
			if int(ico[6]) != w%256 || int(ico[7]) != h%256 || le.Uint16(ico[12:]) != 32 {
				t.Fatalf("its entry says %d×%d at %d bits, not %d×%d at 32", ico[6], ico[7], le.Uint16(ico[12:]), w, h)
			}
			size, at := int(le.Uint32(ico[14:])), int(le.Uint32(ico[18:]))
			if at != 22 || at+size != len(ico) {
				t.Fatalf("its entry says %d bytes at %d, in a file of %d", size, at, len(ico))
			}
			bmp := ico[at:]
			if le.Uint32(bmp) != 40 || int(int32(le.Uint32(bmp[4:]))) != w || int(int32(le.Uint32(bmp[8:]))) != 2*h || le.Uint16(bmp[14:]) != 32 {
				t.Fatalf("its bitmap header is wrong: % x", bmp[:16])
			}
			pix := bmp[40:]
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					want := nrgba(img, x, y)
					p := pix[((h-1-y)*w+x)*4:]
					if got := [4]uint8{p[2], p[1], p[0], p[3]}; got != want {
						t.Fatalf("pixel %d,%d is %v, not %v", x, y, got, want)
					}
				}
			}
			for i, b := range pix[w*h*4:] {
				if b != 0 {
					t.Fatalf("the mask's byte %d is %#x", i, b)
				}
			}
		}
	}
}

// What is not a PNG is said, not wrapped.
func TestIcoFromPNGRefusesOtherBytes(t *testing.T) {
	if _, err := icoFromPNG([]byte("GIF89a")); err == nil {
		t.Fatal("no error for a GIF")
	}
}

// On Windows the tray is given an .ico; elsewhere the PNG as it is.
func TestSystemIconIsIcoOnWindowsOnly(t *testing.T) {
	tr := &tray{log: slog.New(slog.DiscardHandler)}
	src := assets.TrayIcon("ok", false)
	got := tr.systemIcon(src)
	if runtime.GOOS == "windows" {
		if !bytes.HasPrefix(got, []byte{0, 0, 1, 0, 1, 0}) {
			t.Fatalf("on Windows the tray's icon starts % x, not as an .ico", got[:8])
		}
	} else if !bytes.Equal(got, src) {
		t.Fatal("the PNG was changed off Windows")
	}
}
