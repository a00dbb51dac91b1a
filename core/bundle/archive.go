package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Limits bound what a bundle may be and expand to. Real bundles that
// carry their node_modules hold some thousands of files and a few
// hundred megabytes; a zip bomb claims far more, or far more per byte.
type Limits struct {
	// FileSize is the largest .mcpb file read.
	FileSize int64
	// Files is how many entries it may hold.
	Files int
	// Total is how many bytes its entries may expand to, together.
	Total int64
	// Ratio is how many times its compressed size an entry larger than
	// RatioFloor may expand to.
	Ratio      int64
	RatioFloor int64
}

// DefaultLimits are the limits Open applies when given none.
var DefaultLimits = Limits{FileSize: 512 << 20, Files: 30000, Total: 2 << 30, Ratio: 200, RatioFloor: 1 << 20}

// Options are how a bundle is opened.
type Options struct {
	// Limits; the zero value means DefaultLimits.
	Limits Limits
	// Roots are the certificates a signer's chain must end in; nil means
	// this computer's.
	Roots *x509.CertPool
	// Now is the time a certificate must be valid at; nil means now.
	Now func() time.Time
}

// Bundle is a bundle whose zip, manifest and signature were checked.
type Bundle struct {
	// File is the file it was read from.
	File string
	// SHA256 is the hex digest of the whole file, its signature included
	// (what the MCP Registry's fileSha256 names).
	SHA256    string
	Manifest  Manifest
	Signature Signature
	// Size is what its files expand to, together.
	Size  int64
	files []*zip.File
}

// Open reads the bundle at path and checks it. Any problem is an *Error
// that says what is wrong.
func Open(path string, o Options) (*Bundle, error) {
	lim := o.limits()
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening the bundle: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("opening the bundle: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{File: path, What: "is not a file"}
	}
	if st.Size() > lim.FileSize {
		return nil, &Error{File: path, What: fmt.Sprintf("is larger than %d MiB, more than any bundle mcptray opens", lim.FileSize>>20)}
	}
	data, err := io.ReadAll(io.LimitReader(f, lim.FileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the bundle: %w", err)
	}
	b, err := Read(data, o)
	if e, ok := errors.AsType[*Error](err); ok {
		e.File = path
	}
	if b != nil {
		b.File = path
	}
	return b, err
}

// Read checks the bundle whose bytes are data.
func Read(data []byte, o Options) (*Bundle, error) {
	lim := o.limits()
	if int64(len(data)) > lim.FileSize {
		return nil, refuse(fmt.Sprintf("is larger than %d MiB, more than any bundle mcptray opens", lim.FileSize>>20))
	}
	sum := sha256.Sum256(data)
	content, sigBlock, err := split(data)
	if err != nil {
		return nil, err
	}
	sig := Signature{Status: Unsigned}
	if sigBlock != nil {
		now := time.Now()
		if o.Now != nil {
			now = o.Now()
		}
		if sig, err = verify(content, sigBlock, o.Roots, now); err != nil {
			return nil, err
		}
	}
	if found, ends := endsAsZip(content); !found {
		return nil, refuse("is not a bundle: it is not a zip file")
	} else if !ends {
		return nil, refuse("has bytes after the end of its zip, where a signature may have been cut short; get the bundle again from where you found it")
	}
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return nil, refuse("is not a bundle: it is not a zip file mcptray can read (" + plainZipError(err) + ")")
	}
	size, err := checkEntries(zr.File, lim)
	if err != nil {
		return nil, err
	}
	b := &Bundle{SHA256: hex.EncodeToString(sum[:]), Signature: sig, Size: size, files: zr.File}
	raw, err := b.readManifest()
	if err != nil {
		return nil, err
	}
	if b.Manifest, err = parseManifest(raw); err != nil {
		return nil, err
	}
	return b, nil
}

func (o Options) limits() Limits {
	if o.Limits == (Limits{}) {
		return DefaultLimits
	}
	return o.Limits
}

func plainZipError(err error) string {
	return strings.TrimPrefix(err.Error(), "zip: ")
}

// manifestSize is the largest manifest.json read; real ones are a few
// kilobytes.
const manifestSize = 1 << 20

func (b *Bundle) readManifest() ([]byte, error) {
	i := slices.IndexFunc(b.files, func(f *zip.File) bool { return f.Name == "manifest.json" })
	if i < 0 {
		return nil, refuse("is not a bundle: it has no manifest.json at its top")
	}
	f := b.files[i]
	if f.UncompressedSize64 > manifestSize {
		return nil, refuse(fmt.Sprintf("has a manifest.json larger than %d KiB; real ones are a few", manifestSize>>10))
	}
	var buf bytes.Buffer
	if err := copyEntry(&buf, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkEntries refuses the zip tricks: names that climb out of the folder
// the bundle unpacks into or name an absolute path, links and devices,
// two entries that one file system would take for one, entries whose
// bytes overlap, and more files or bytes than lim allows. It returns what
// the entries expand to.
func checkEntries(files []*zip.File, lim Limits) (int64, error) {
	if len(files) > lim.Files {
		return 0, refuse(fmt.Sprintf("holds %d files, more than the %d mcptray unpacks", len(files), lim.Files))
	}
	var total int64
	seenFiles := map[string]string{} // folded name → name as written
	seenDirs := map[string]string{}
	type span struct{ start, end int64 }
	var spans []span
	for _, f := range files {
		name := f.Name
		if err := checkName(name); err != nil {
			return 0, refuse(err.Error())
		}
		mode := f.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return 0, refuse(fmt.Sprintf("%q is a link; a bundle's files must be plain files, so that none points outside it", name))
		case mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0:
			return 0, refuse(fmt.Sprintf("%q is not a plain file or folder", name))
		case f.Flags&0x1 != 0:
			return 0, refuse(fmt.Sprintf("%q is encrypted; mcptray cannot check what it holds", name))
		}
		dir := mode.IsDir() || strings.HasSuffix(name, "/")
		clean := strings.TrimSuffix(name, "/")
		key := fold(clean)
		parts := strings.Split(clean, "/")
		for i := 1; i < len(parts); i++ {
			p := strings.Join(parts[:i], "/")
			if other, ok := seenFiles[fold(p)]; ok {
				return 0, refuse(fmt.Sprintf("%q is both a file (%q) and a folder", p, other))
			}
			seenDirs[fold(p)] = p
		}
		if dir {
			if other, ok := seenFiles[key]; ok {
				return 0, refuse(fmt.Sprintf("%q is both a file (%q) and a folder", clean, other))
			}
			seenDirs[key] = clean
			continue
		}
		if other, ok := seenFiles[key]; ok {
			if other == clean {
				return 0, refuse(fmt.Sprintf("holds %q twice; which one would be used depends on the program that unpacks it", clean))
			}
			return 0, refuse(fmt.Sprintf("holds %q and %q, one file on macOS and Windows; which one would be used depends on the computer", other, clean))
		}
		if other, ok := seenDirs[key]; ok {
			return 0, refuse(fmt.Sprintf("%q is both a file and a folder (%q)", clean, other))
		}
		seenFiles[key] = clean

		size := int64(f.UncompressedSize64)
		if f.UncompressedSize64 > uint64(lim.Total) || total+size > lim.Total {
			return 0, refuse(fmt.Sprintf("expands to more than %d MiB, more than mcptray unpacks", lim.Total>>20))
		}
		total += size
		if size > lim.RatioFloor && size/max(int64(f.CompressedSize64), 1) > lim.Ratio {
			return 0, refuse(fmt.Sprintf("%q expands to more than %d times its size in the zip, as only a zip bomb does", clean, lim.Ratio))
		}
		off, err := f.DataOffset()
		if err != nil {
			return 0, refuse(fmt.Sprintf("%q cannot be read (%s)", clean, plainZipError(err)))
		}
		spans = append(spans, span{off, off + int64(f.CompressedSize64)})
	}
	// Entries that share bytes are a zip bomb's way of expanding many
	// times over without a high ratio of their own.
	slices.SortFunc(spans, func(a, b span) int { return int(min(max(a.start-b.start, -1), 1)) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return 0, refuse("has entries that share their bytes, as only a zip bomb does")
		}
	}
	return total, nil
}

// checkName refuses an entry name that is not a plain relative path.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("has an entry without a name")
	case !utf8.ValidString(name):
		return fmt.Errorf("has an entry whose name is not text (%q)", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("has an entry whose name holds a control character (%q)", name)
	case strings.Contains(name, `\`):
		return fmt.Errorf("%q has a backslash in its name; a bundle's paths are written with /", name)
	case strings.HasPrefix(name, "/") || len(name) >= 2 && name[1] == ':':
		return fmt.Errorf("%q is an absolute path; a bundle's files must stay in its own folder", name)
	}
	for _, part := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		switch part {
		case "..":
			return fmt.Errorf("%q climbs out of the bundle's folder (..); a bundle's files must stay in its own folder", name)
		case "", ".":
			return fmt.Errorf("%q is not a plain path (an empty or . part)", name)
		}
	}
	return nil
}

var folder = cases.Fold()

// fold is the name as a file system that ignores letter case and Unicode
// forms (macOS's, Windows') sees it.
func fold(name string) string { return folder.String(norm.NFC.String(name)) }

// copyEntry copies f's bytes to w, and no more than it says it holds: a
// zip whose entry claims fewer bytes than it expands to is refused.
func copyEntry(w io.Writer, f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return refuse(fmt.Sprintf("%q cannot be read (%s)", f.Name, plainZipError(err)))
	}
	defer r.Close()
	n, err := io.Copy(w, io.LimitReader(r, int64(f.UncompressedSize64)+1))
	if err != nil {
		if errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF) {
			return refuse(fmt.Sprintf("%q is damaged (%s)", f.Name, plainZipError(err)))
		}
		return err
	}
	if n > int64(f.UncompressedSize64) {
		return refuse(fmt.Sprintf("%q expands to more than it says it holds, as only a zip bomb does", f.Name))
	}
	return nil
}

// endsAsZip reports whether data has a zip's end record, and whether it
// ends where that record (and its comment) does: nothing is appended but
// a signature block, which split took off.
func endsAsZip(data []byte) (found, ends bool) {
	const endLen = 22 // the end of central directory record, its comment aside
	for i := len(data) - endLen; i >= 0 && i >= len(data)-endLen-0xffff; i-- {
		if data[i] == 'P' && bytes.HasPrefix(data[i:], []byte("PK\x05\x06")) {
			return true, i+endLen+int(binary.LittleEndian.Uint16(data[i+20:])) == len(data)
		}
	}
	return false, false
}
