package ocipin

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// LocalHint is what a person whose image its registry lacks can do: an
// image built on this computer has no registry to pin it by.
const LocalHint = "an image that is only on this computer can be named by its ID instead of its tag: docker images --no-trunc says it"

// client is the program that runs s's image, as the words name it.
func (s Spec) client() string {
	if s.Podman {
		return "podman"
	}
	return "docker"
}

// localHint is LocalHint for the program that runs the image.
func localHint(client string) string {
	return strings.Replace(LocalHint, "docker images", client+" images", 1)
}

// askFailed says, in plain words, why asking ref's registry for it
// failed, with what the person can do. The words are the error's text;
// the library's error (with its addresses) stays wrapped, for errors.Is,
// but unsaid: a person reads the words in the window and the status.
func askFailed(ref name.Reference, err error, client string) error {
	return &plainError{words: askWords(ref, err, client), err: err}
}

// plainError is an error said in words of its own, wrapping its cause.
type plainError struct {
	words string
	err   error
}

func (e *plainError) Error() string { return e.words }
func (e *plainError) Unwrap() error { return e.err }

func askWords(ref name.Reference, err error, client string) string {
	host := ref.Context().RegistryStr()
	var terr *transport.Error
	var dns *net.DNSError
	switch {
	case errors.As(err, &terr) && (terr.StatusCode == http.StatusNotFound || hasCode(terr, transport.ManifestUnknownErrorCode, transport.NameUnknownErrorCode)):
		return fmt.Sprintf("%s has no image %s (%s)", host, ref, localHint(client))
	case errors.As(err, &terr) && (terr.StatusCode == http.StatusUnauthorized || terr.StatusCode == http.StatusForbidden || hasCode(terr, transport.UnauthorizedErrorCode, transport.DeniedErrorCode)):
		return fmt.Sprintf("%s did not give %s without a login: if it is private, %s login %s, then try again (%s; Docker Hub answers so for an image it does not have)", host, ref, client, host, localHint(client))
	case errors.As(err, &dns):
		return fmt.Sprintf("cannot find %s, the registry of %s: the name is unknown, or this computer is offline; mcptray asks it once, to pin the image you approved", host, ref)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing answers at %s, the registry of %s (the connection was refused)", host, ref)
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return fmt.Sprintf("cannot reach %s, the registry of %s: this computer seems to be offline", host, ref)
	case errors.Is(err, os.ErrDeadlineExceeded), isTimeout(err):
		return fmt.Sprintf("%s, the registry of %s, did not answer in time", host, ref)
	}
	return fmt.Sprintf("asking %s for %s: %v", host, ref, err)
}

func hasCode(e *transport.Error, codes ...transport.ErrorCode) bool {
	for _, d := range e.Errors {
		for _, c := range codes {
			if d.Code == c {
				return true
			}
		}
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
