package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manifest is a valid manifest for the hostile zips.
const manifest = `{"manifest_version": "0.3", "name": "x", "version": "1.0.0", "description": "x",
 "author": {"name": "x"},
 "server": {"type": "node", "entry_point": "index.js", "mcp_config": {"command": "node", "args": ["${__dirname}/index.js"]}}}`

// entry is one file of a zip a test builds.
type entry struct {
	name string
	data string
	mode fs.FileMode
	// raw writes the entry as it is, its sizes and CRC as given.
	raw *zip.FileHeader
}

// zipOf builds a zip of entries, with a valid manifest.json first unless
// noManifest.
func zipOf(t *testing.T, noManifest bool, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if !noManifest {
		entries = append([]entry{{name: "manifest.json", data: manifest}}, entries...)
	}
	for _, e := range entries {
		if e.raw != nil {
			w, err := zw.CreateRaw(e.raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(e.data)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The zip tricks are refused, each in words that say what it is.
func TestZipTricksRefused(t *testing.T) {
	t.Parallel()
	zeros := strings.Repeat("\x00", 8<<20)
	small := Limits{FileSize: 64 << 20, Files: 4, Total: 16 << 20, Ratio: 200, RatioFloor: 1 << 20}
	tests := []struct {
		name    string
		zip     func(t *testing.T) []byte
		limits  Limits
		refused string
	}{
		{"climbs out", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "../../.bashrc", data: "x"}) }, small, "climbs out"},
		{"climbs out deeper", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "server/../../x", data: "x"}) }, small, "climbs out"},
		{"absolute", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "/etc/cron.d/x", data: "x"}) }, small, "absolute path"},
		{"drive letter", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "C:/Windows/x", data: "x"}) }, small, "absolute path"},
		{"backslash", func(t *testing.T) []byte { return zipOf(t, false, entry{name: `..\..\x`, data: "x"}) }, small, "backslash"},
		{"empty part", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "a//b", data: "x"}) }, small, "not a plain path"},
		{"control character", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "a\nb", data: "x"}) }, small, "control character"},
		{"symlink", func(t *testing.T) []byte {
			return zipOf(t, false, entry{name: "server/key", data: "/home/ann/.ssh/id_ed25519", mode: fs.ModeSymlink | 0o777})
		}, small, "is a link"},
		{"named pipe", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "fifo", mode: fs.ModeNamedPipe | 0o644}) }, small, "not a plain file"},
		{"twice", func(t *testing.T) []byte {
			return zipOf(t, false, entry{name: "index.js", data: "good"}, entry{name: "index.js", data: "evil"})
		}, small, `holds "index.js" twice`},
		{"manifest twice", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "manifest.json", data: "{}"}) }, small, "twice"},
		{"letter case", func(t *testing.T) []byte {
			return zipOf(t, false, entry{name: "index.js", data: "good"}, entry{name: "INDEX.js", data: "evil"})
		}, small, "one file on macOS and Windows"},
		{"unicode forms", func(t *testing.T) []byte {
			return zipOf(t, false, entry{name: "caf\u00e9.js", data: "good"}, entry{name: "cafe\u0301.js", data: "evil"})
		}, small, "one file on macOS and Windows"},
		{"file and folder", func(t *testing.T) []byte {
			return zipOf(t, false, entry{name: "lib", data: "x"}, entry{name: "lib/a.js", data: "y"})
		}, small, "both a file"},
		{"folder then file", func(t *testing.T) []byte {
			return zipOf(t, false, entry{name: "Lib/a.js", data: "y"}, entry{name: "lib", data: "x"})
		}, small, "both a file and a folder"},
		{"too many files", func(t *testing.T) []byte {
			return zipOf(t, false, entry{name: "a", data: "1"}, entry{name: "b", data: "2"}, entry{name: "c", data: "3"}, entry{name: "d", data: "4"})
		}, small, "holds 5 files, more than the 4"},
		{"too large together", func(t *testing.T) []byte {
			half := noise(10 << 20)
			return zipOf(t, false, entry{name: "a", data: half}, entry{name: "b", data: half})
		}, small, "expands to more than 16 MiB"},
		{"bomb", func(t *testing.T) []byte { return zipOf(t, false, entry{name: "zeros", data: zeros}) }, small, "more than 200 times its size"},
		{"overlapping", overlapping, small, "share their bytes"},
		{"encrypted", func(t *testing.T) []byte {
			return zipOf(t, false, entry{data: "x", raw: &zip.FileHeader{Name: "secret", Method: zip.Store, Flags: 0x1,
				CompressedSize64: 1, UncompressedSize64: 1, CRC32: crc32.ChecksumIEEE([]byte("x"))}})
		}, small, "encrypted"},
		{"no manifest", func(t *testing.T) []byte { return zipOf(t, true, entry{name: "index.js", data: "x"}) }, small, "no manifest.json"},
		{"manifest in a folder", func(t *testing.T) []byte {
			return zipOf(t, true, entry{name: "server/manifest.json", data: manifest})
		}, small, "no manifest.json"},
		{"not a zip", func(t *testing.T) []byte { return []byte("#!/bin/sh\nrm -rf ~\n") }, small, "not a zip file"},
		{"bytes after the zip", func(t *testing.T) []byte { return append(zipOf(t, false), "junk"...) }, small, "after the end of its zip"},
		{"damaged signature", func(t *testing.T) []byte {
			return append(zipOf(t, false), sigHeader+"\xff\xff\x00\x00short"+sigFooter...)
		}, small, "signature block is damaged"},
		{"garbage signature", func(t *testing.T) []byte {
			b := append(zipOf(t, false), sigHeader...)
			b = binary.LittleEndian.AppendUint32(b, 5)
			return append(append(b, "hello"...), sigFooter...)
		}, small, "signature that cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(tt.zip(t), Options{Limits: tt.limits})
			refusedWith(t, err, tt.refused)
		})
	}
}

// overlapping is a zip whose second entry's directory record points at
// the first one's bytes: two files from one set of bytes.
func overlapping(t *testing.T) []byte {
	data := zipOf(t, false, entry{name: "index.js", data: "x"})
	cd := bytes.LastIndex(data, []byte("PK\x01\x02"))
	if cd < 0 {
		t.Fatal("no central directory record")
	}
	binary.LittleEndian.PutUint32(data[cd+42:], 0) // the manifest's local header
	return data
}

// An entry that says it holds fewer bytes than it does is refused when
// unpacked, and nothing of it is left behind.
func TestLyingSizeRefusedOnUnpack(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 1000)
	data := zipOf(t, false, entry{data: body, raw: &zip.FileHeader{Name: "index.js", Method: zip.Store,
		CompressedSize64: uint64(len(body)), UncompressedSize64: 10, CRC32: crc32.ChecksumIEEE([]byte(body))}})
	b, err := Read(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	err = b.Unpack(filepath.Join(parent, "x"))
	refusedWith(t, err, "index.js")
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a refused unpack left %v", entries)
	}
}

// A folder entry and files in folders unpack; Open says a file that is
// not there in words.
func TestUnpackFolders(t *testing.T) {
	t.Parallel()
	data := zipOf(t, false, entry{name: "server/", mode: fs.ModeDir | 0o755}, entry{name: "server/lib/a.js", data: "a", mode: 0o755})
	b, err := Read(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "x")
	if err := b.Unpack(dir); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "server", "lib", "a.js"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o555 {
		t.Errorf("an executable file unpacked as %v; want r-xr-xr-x", st.Mode())
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.mcpb"), Options{}); err == nil || IsRefused(err) {
		t.Errorf("opening a file that is not there: %v", err)
	}
}

// noise is n bytes that do not compress.
func noise(n int) string {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return string(b)
}
