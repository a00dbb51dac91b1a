package egress

import (
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/registry"
)

// Where each runtime installs packages from, the hosts a server it runs
// may reach from the start:
//   - npx, npm, pnpm, bunx, bun: the npm registry (yarn also its mirror);
//   - uvx, uv, pip, pipx: PyPI's index and the files it serves from. uv
//     also downloads Python itself from GitHub when none is installed:
//     that is asked about, as GitHub reaches far more than Python;
//   - dnx, dotnet: NuGet;
//   - docker, podman: the image's registry (Docker Hub when the image
//     names none). docker's pulls are made by its daemon, outside the
//     sandbox, so for docker this list only matters to podman, which
//     pulls in its own process.
//
// node, python and any other program install nothing by themselves and
// declare nothing.
var (
	npmHosts    = []string{"registry.npmjs.org"}
	yarnHosts   = []string{"registry.npmjs.org", "registry.yarnpkg.com"}
	pypiHosts   = []string{"pypi.org", "files.pythonhosted.org"}
	nugetHosts  = []string{"api.nuget.org"}
	dockerHosts = []string{"registry-1.docker.io", "auth.docker.io", "production.cloudflare.docker.com"}
	runtimes    = map[string][]string{
		"npx": npmHosts, "npm": npmHosts, "pnpm": npmHosts, "pnpx": npmHosts, "bunx": npmHosts, "bun": npmHosts,
		"yarn": yarnHosts,
		"uvx":  pypiHosts, "uv": pypiHosts, "pip": pypiHosts, "pip3": pypiHosts, "pipx": pypiHosts,
		"dnx": nugetHosts, "dotnet": nugetHosts,
		"docker": dockerHosts, "podman": dockerHosts,
	}
	// indexFlags name a package index on a runtime's command line.
	indexFlags = []string{"--registry", "--index-url", "--extra-index-url", "--default-index", "--index", "--source"}
)

// Declared is the list a server starts with: the hosts its runtime
// installs packages from (by its command's name), package indexes named
// on its command line (--registry URL, --index-url URL…), and, when it
// came from the MCP Registry, its entry's packages' registries and its
// remotes' hosts (the service the server speaks for). entry may be nil.
// Every host is in NormalHost's form. Nothing local is ever declared: an
// entry that names localhost or a private address is left out, to be asked
// about; and no host:port either, as an exact host:port entry also lets
// through a name that turns out to point to this computer (the person's
// word, not a declaration's): a host on a port other than 443 and 80 is
// asked about.
func Declared(command string, args []string, entry *registry.ServerDetail) []string {
	var out []string
	add := func(hosts ...string) {
		for _, h := range hosts {
			n, err := NormalHost(h)
			if err != nil || slices.Contains(out, n) {
				continue
			}
			if _, _, err := net.SplitHostPort(n); err == nil {
				continue
			}
			if !(machine{}).localName(n) {
				out = append(out, n)
			}
		}
	}
	name := strings.ToLower(filepath.Base(strings.ReplaceAll(command, `\`, "/")))
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		name = strings.TrimSuffix(name, ext)
	}
	add(runtimes[name]...)
	for i, a := range args {
		for _, f := range indexFlags {
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				add(urlHost(v))
			} else if a == f && i+1 < len(args) {
				add(urlHost(args[i+1]))
			}
		}
	}
	if entry == nil {
		return out
	}
	for _, p := range entry.Packages {
		if p.RegistryBaseURL != "" {
			add(urlHost(p.RegistryBaseURL))
			continue
		}
		switch p.RegistryType {
		case "npm":
			add(npmHosts...)
		case "pypi":
			add(pypiHosts...)
		case "nuget":
			add(nugetHosts...)
		case "oci":
			add(imageHosts(p.Identifier)...)
		}
	}
	for _, r := range entry.Remotes {
		add(urlHost(r.URL))
	}
	return out
}

// urlHost is a URL's destination: its host, with its port when that is
// not the web's.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	if p := u.Port(); p != "" && p != "443" && p != "80" {
		return net.JoinHostPort(u.Hostname(), p)
	}
	return u.Hostname()
}

// imageHosts are where an OCI image reference's image comes from.
func imageHosts(ref string) []string {
	first, _, found := strings.Cut(ref, "/")
	if !found || !(strings.ContainsAny(first, ".:") || first == "localhost") || first == "docker.io" || first == "index.docker.io" {
		return dockerHosts
	}
	switch first {
	case "ghcr.io":
		return []string{"ghcr.io", "pkg-containers.githubusercontent.com"}
	case "quay.io":
		return []string{"quay.io", "cdn.quay.io", "cdn01.quay.io", "cdn02.quay.io", "cdn03.quay.io"}
	}
	return []string{first}
}
