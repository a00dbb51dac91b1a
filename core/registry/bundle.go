package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MCP Bundles in the registry: a package of registryType "mcpb" is a
// .mcpb file at an https address, with the SHA-256 of its bytes
// (fileSha256). It is not planned as a command: the service downloads it
// (FetchBundle), checks it against that digest, and installs it as it
// installs a bundle file the person opened, after showing what it is.

// BundleType is the registryType of an MCP Bundle package.
const BundleType = "mcpb"

// downloadTimeout bounds one download, on top of the caller's ctx.
const downloadTimeout = 10 * time.Minute

// DownloadKept is how long a downloaded bundle stays in the downloads
// folder after it was last fetched or used again, when no install removed
// it (one only previewed): FetchBundle removes older ones whenever it
// downloads a new one.
const DownloadKept = 24 * time.Hour

// bundleProblem says why mcptray cannot install the MCP Bundle package p,
// or "".
func bundleProblem(p *Package) string {
	u, err := url.Parse(p.Identifier)
	switch {
	case p.Identifier == "":
		return "its MCP Bundle (mcpb) package gives no address to download it from"
	case err != nil || u.Scheme != "https" || u.Host == "":
		return fmt.Sprintf("its MCP Bundle (mcpb) package is at %q, which is not an https address; mcptray downloads bundles over https only", p.Identifier)
	case p.FileSHA256 == "":
		return "its MCP Bundle (mcpb) package gives no fileSha256 to check the download against, so mcptray cannot tell it is the file that was published"
	case !isSHA256(p.FileSHA256):
		return fmt.Sprintf("its MCP Bundle (mcpb) package's fileSha256 %q is not a SHA-256 (64 hexadecimal digits)", p.FileSHA256)
	}
	return ""
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// BundlePackage returns d's first MCP Bundle package, or why mcptray
// cannot install it from one.
func BundlePackage(d *ServerDetail) (*Package, error) {
	for i := range d.Packages {
		if p := &d.Packages[i]; p.RegistryType == BundleType {
			if why := bundleProblem(p); why != "" {
				return nil, fmt.Errorf("mcptray cannot install %s: %s", d.Name, why)
			}
			return p, nil
		}
	}
	return nil, fmt.Errorf("%s has no MCP Bundle (mcpb) package", d.Name)
}

// FetchBundle downloads the MCP Bundle package p into dir over https,
// with hc (nil: http.DefaultClient), refusing one larger than maxBytes or
// whose SHA-256 is not p's fileSha256, and returns the file's path. A file
// downloaded before with the same digest is used again (the name is the
// digest; a preview's download serves the install that follows it), and
// counts as fetched now. Downloading a new one removes the downloads in
// dir not fetched nor used for DownloadKept (PruneDownloads).
func FetchBundle(ctx context.Context, hc *http.Client, p *Package, dir string, maxBytes int64) (string, error) {
	if why := bundleProblem(p); why != "" {
		return "", errors.New(why)
	}
	want := strings.ToLower(p.FileSHA256)
	path := filepath.Join(dir, want+".mcpb")
	if got, err := fileSHA256(path); err == nil && got == want {
		now := time.Now()
		_ = os.Chtimes(path, now, now) // its age is the time since it was last used
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the folder for downloaded bundles: %w", err)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" {
			return fmt.Errorf("it sends mcptray on to %s, which is not an https address", req.URL.Redacted())
		}
		if len(via) >= 10 {
			return errors.New("it sends mcptray on more than ten times")
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Identifier, nil)
	if err != nil {
		return "", err
	}
	where := sanitizeURL(p.Identifier)
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("downloading the bundle from %s: %w; check your internet connection, then try again", where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("downloading the bundle from %s: the server answered %s", where, resp.Status)
	}
	if resp.ContentLength > maxBytes {
		return "", fmt.Errorf("the bundle at %s is %d MB, more than the %d MB mcptray takes", where, resp.ContentLength>>20, maxBytes>>20)
	}
	tmp, err := os.CreateTemp(dir, partialPrefix+"*")
	if err != nil {
		return "", err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name()) // gone already once renamed
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return "", fmt.Errorf("downloading the bundle from %s: %w; try again", where, err)
	}
	if n > maxBytes {
		return "", fmt.Errorf("the bundle at %s is more than the %d MB mcptray takes", where, maxBytes>>20)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return "", fmt.Errorf("the bundle downloaded from %s is not the file the registry lists (its SHA-256 is %s, the registry says %s): "+
			"it changed after it was published, or something between changed it. Nothing was installed; tell its publisher", where, got, want)
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	PruneDownloads(dir, time.Now().Add(-DownloadKept))
	return path, nil
}

// partialPrefix starts the name of a download under way, renamed to its
// digest once whole.
const partialPrefix = ".download-"

// downloadName reports whether name is one FetchBundle gives a download:
// a SHA-256 in lower-case hex, then .mcpb.
func downloadName(name string) bool {
	sum, ok := strings.CutSuffix(name, ".mcpb")
	return ok && isSHA256(sum) && sum == strings.ToLower(sum)
}

// PruneDownloads removes from dir the downloaded bundles last fetched or
// used before cutoff (their files' modification time), and the partial
// files of downloads that never finished (a download lasts
// downloadTimeout at most, so one older than cutoff was cut short by a
// crash), and returns how many it removed. Only plain files named as
// FetchBundle names them are touched: anything else in dir (another name,
// a folder, a link) is left alone, and nothing outside dir is touched. A
// file it cannot remove stays, for the next time.
func PruneDownloads(dir string, cutoff time.Time) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !downloadName(e.Name()) && !strings.HasPrefix(e.Name(), partialPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}

// RemoveDownload removes p's file from dir, where FetchBundle downloaded
// it, once the bundle is installed (unpacked elsewhere, so the file is
// not needed again). A file that is not there is no error; nothing else
// is ever removed.
func RemoveDownload(dir string, p *Package) error {
	if !isSHA256(p.FileSHA256) {
		return nil
	}
	path := filepath.Join(dir, strings.ToLower(p.FileSHA256)+".mcpb")
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sanitizeURL is raw without its query or user, for words.
func sanitizeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "its address"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
