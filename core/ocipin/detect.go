package ocipin

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// Spec is the image a docker run command names.
type Spec struct {
	// Image is the image argument as written ("mcp/time",
	// "registry.example.com/team/srv:1").
	Image string
	// At is the image argument's index in the command's arguments.
	At int
	// Podman says podman runs it, not docker: it reads podman's
	// credentials (PodmanKeychain), and a short name is not pinned
	// (ShortName).
	Podman bool
}

// ShortName reports whether s is podman's and names its image without
// its registry ("mcp/time", "time"): podman looks for it in the
// registries its registries.conf lists (unqualified-search-registries),
// in order, or asks which, and mcptray does not guess which it would
// take. A name whose first part holds a '.' or a ':', or is localhost,
// names its registry. docker reads a short name as Docker Hub's.
func (s Spec) ShortName() bool {
	if !s.Podman {
		return false
	}
	first, _, ok := strings.Cut(s.Image, "/")
	return !ok || (!strings.ContainsAny(first, ".:") && first != "localhost")
}

// ErrShortName is the error of resolving a short name of podman's.
var ErrShortName = errors.New("podman would look for it in the registries its registries.conf lists, and mcptray does not guess which it would take")

// qualified is a short name with Docker Hub's registry, for the words
// that say how to name it: "docker.io/library/time".
func qualified(image string) string {
	if !strings.Contains(image, "/") {
		return "docker.io/library/" + image
	}
	return "docker.io/" + image
}

// Ref is the image as the registry reads it: with the tag "latest"
// when it names none.
func (s Spec) Ref() (name.Tag, error) {
	return name.NewTag(s.Image)
}

// Pinned is args with the image argument at s.At naming the image by
// digest ("mcp/time@sha256:…"); every other argument stays as it is.
func (s Spec) Pinned(args []string, digest string) []string {
	out := append([]string(nil), args...)
	if s.At < 0 || s.At >= len(out) {
		return out
	}
	repo := out[s.At]
	if slash := strings.LastIndex(repo, "/"); strings.LastIndex(repo, ":") > slash {
		repo = repo[:strings.LastIndex(repo, ":")]
	}
	out[s.At] = repo + "@" + digest
	return out
}

// imageID is an image named by its ID, as docker images --no-trunc
// says it: its content already.
var imageID = regexp.MustCompile(`^(sha256:)?[0-9a-f]{64}$`)

// globalValued are docker's own options, before its command, that take a
// value.
var globalValued = map[string]bool{
	"--config": true, "-c": true, "--context": true, "-H": true, "--host": true,
	"-l": true, "--log-level": true, "--tlscacert": true, "--tlscert": true, "--tlskey": true,
}

// runBool are docker run's flags that take no value; every other long
// flag takes one, as written after it or after '='.
var runBool = map[string]bool{
	"--detach": true, "--interactive": true, "--tty": true, "--rm": true, "--init": true,
	"--privileged": true, "--publish-all": true, "--read-only": true, "--sig-proxy": true,
	"--no-healthcheck": true, "--oom-kill-disable": true, "--disable-content-trust": true,
	"--quiet": true, "--help": true, "--use-api-socket": true,
}

// shortBool and shortValued are docker run's one-letter flags; a letter
// in neither is not read, and the command is not detected.
const (
	shortBool   = "ditPq"
	shortValued = "acehlmpuvw"
)

// podmanGlobalBool are podman's own options, before its command, that
// take no value; every other long one takes one, and of the one-letter
// ones only -c does.
var podmanGlobalBool = map[string]bool{
	"--help": true, "-h": true, "--version": true, "-v": true, "--remote": true, "-r": true,
	"--syslog": true, "--transient-store": true, "--noout": true, "--trace": true,
}

// podmanRunBool are podman run's flags that take no value beside
// docker's (runBool), where podman's flags agree with docker's.
var podmanRunBool = map[string]bool{
	"--replace": true, "--rmi": true, "--read-only-tmpfs": true, "--http-proxy": true, "--no-hosts": true,
	"--env-host": true, "--passwd": true, "--tls-verify": true, "--rootfs": true, "--unsetenv-all": true,
	"--no-hostname": true,
}

// client is the program command names, without its folder and .exe.
func client(command string) string {
	return strings.TrimSuffix(strings.ToLower(filepath.Base(filepath.ToSlash(command))), ".exe")
}

// IsDocker says whether command is docker's client: docker, or
// docker.exe, wherever it is.
func IsDocker(command string) bool { return client(command) == "docker" }

// IsPodman says whether command is podman (or podman.exe).
func IsPodman(command string) bool { return client(command) == "podman" }

// IsContainer says whether command runs containers: docker or podman.
func IsContainer(command string) bool { return IsDocker(command) || IsPodman(command) }

// Detect reads a server's command: docker (or docker.exe) or podman with
// its own options, run (or container run), run's flags, and the image,
// which must be named by a tag (or by no tag: "latest"). A command whose
// image is named by digest already, or that Detect cannot read (a flag it
// does not know, no image), is not detected, and runs as it is written.
// podman's run flags are read as docker's, with those of podman's own
// that take no value; its own options before run are podman's.
func Detect(command string, args []string) (Spec, bool) {
	podman := IsPodman(command)
	if !IsDocker(command) && !podman {
		return Spec{}, false
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		a := args[i]
		switch {
		case !podman && globalValued[a]:
			i++
		case !podman, podmanGlobalBool[a], strings.Contains(a, "="):
		case a == "-c" || strings.HasPrefix(a, "--"):
			i++ // its value
		default:
			return Spec{}, false
		}
		i++
	}
	switch {
	case i < len(args) && args[i] == "run":
		i++
	case i+1 < len(args) && args[i] == "container" && args[i+1] == "run":
		i += 2
	default:
		return Spec{}, false
	}
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && !runBool[a] && !(podman && podmanRunBool[a]) {
				i++ // its value
			}
			continue
		}
		letters := a[1:]
		for k := 0; k < len(letters); k++ {
			c := letters[k]
			switch {
			case strings.IndexByte(shortBool, c) >= 0:
			case strings.IndexByte(shortValued, c) >= 0:
				if k == len(letters)-1 {
					i++ // its value is the next argument
				}
				k = len(letters) // or the rest of this one
			default:
				return Spec{}, false
			}
		}
	}
	if i >= len(args) {
		return Spec{}, false
	}
	img := args[i]
	if strings.Contains(img, "@") || imageID.MatchString(img) {
		return Spec{}, false // by digest or ID already: nothing to pin
	}
	if _, err := name.NewTag(img); err != nil {
		return Spec{}, false
	}
	return Spec{Image: img, At: i, Podman: podman}, true
}
