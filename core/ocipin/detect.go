package ocipin

import (
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

// IsDocker says whether command is docker's client: docker, or
// docker.exe, wherever it is.
func IsDocker(command string) bool {
	return strings.TrimSuffix(strings.ToLower(filepath.Base(filepath.ToSlash(command))), ".exe") == "docker"
}

// Detect reads a server's command: docker (or docker.exe) with its own
// options, run (or container run), run's flags, and the image, which
// must be named by a tag (or by no tag: "latest"). A command whose image
// is named by digest already, or that Detect cannot read (a flag it does
// not know, no image), is not detected, and runs as it is written.
func Detect(command string, args []string) (Spec, bool) {
	if !IsDocker(command) {
		return Spec{}, false
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		a := args[i]
		if globalValued[a] {
			i++
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
			if !strings.Contains(a, "=") && !runBool[a] {
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
	return Spec{Image: img, At: i}, true
}
