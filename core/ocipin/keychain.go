package ocipin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/docker/cli/cli/config"
	"github.com/docker/cli/cli/config/configfile"
	"github.com/docker/cli/cli/config/types"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
)

// ConfigKeychain gives each registry the credential that the docker
// config in dir (a ~/.docker folder) names for it, through its
// credential helpers as docker does: the config of the home mcptray
// serves, not of whichever home this process has. With no config there,
// or none for a registry, it asks anonymously.
func ConfigKeychain(dir string) authn.Keychain { return configKeychain{dir} }

type configKeychain struct{ dir string }

func (k configKeychain) Resolve(target authn.Resource) (authn.Authenticator, error) {
	return k.ResolveContext(context.Background(), target)
}

func (k configKeychain) ResolveContext(_ context.Context, target authn.Resource) (authn.Authenticator, error) {
	if _, err := os.Stat(filepath.Join(k.dir, config.ConfigFileName)); errors.Is(err, fs.ErrNotExist) {
		return authn.Anonymous, nil
	}
	cf, err := config.Load(k.dir)
	if err != nil {
		return nil, err
	}
	var cfg, empty types.AuthConfig
	for _, key := range []string{target.String(), target.RegistryStr()} {
		if key == name.DefaultRegistry {
			key = authn.DefaultAuthKey
		}
		if cfg, err = cf.GetAuthConfig(key); err != nil {
			return nil, err
		}
		cfg.ServerAddress = "" // set by GetAuthConfig; not a credential
		if cfg != empty {
			break
		}
	}
	if cfg == empty {
		return authn.Anonymous, nil
	}
	return fromConfig(cfg), nil
}

func fromConfig(cfg types.AuthConfig) authn.Authenticator {
	return authn.FromConfig(authn.AuthConfig{
		Username: cfg.Username, Password: cfg.Password, Auth: cfg.Auth,
		IdentityToken: cfg.IdentityToken, RegistryToken: cfg.RegistryToken,
	})
}

// PodmanKeychain gives each registry the credential podman would send:
// that of the first of its auth files (files, in podman's order: its
// REGISTRY_AUTH_FILE alone, or ${XDG_RUNTIME_DIR}/containers/auth.json
// then ~/.config/containers/auth.json) that gives one, each as podman
// reads it: its credHelpers' helper for the registry, when it names one,
// else its key for the image's repository, one of its namespaces, or its
// registry, the most precise first; then the docker config in dockerDir,
// as ConfigKeychain ("" for none: podman reads REGISTRY_AUTH_FILE alone).
// A file that is not there is passed over.
func PodmanKeychain(files []string, dockerDir string) authn.Keychain {
	return podmanKeychain{files: files, docker: configKeychain{dockerDir}}
}

type podmanKeychain struct {
	files  []string
	docker configKeychain
}

func (k podmanKeychain) Resolve(target authn.Resource) (authn.Authenticator, error) {
	return k.ResolveContext(context.Background(), target)
}

func (k podmanKeychain) ResolveContext(ctx context.Context, target authn.Resource) (authn.Authenticator, error) {
	keys := podmanKeys(target)
	reg := keys[len(keys)-1]
	for _, file := range k.files {
		cf, err := loadAuthFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading podman's credentials in %s: %w", filepath.Base(file), err)
		}
		if cf.CredentialHelpers[reg] != "" {
			// The registry's helper, and not the file's keys: an
			// answer of none goes on to the next file.
			cfg, err := cf.GetAuthConfig(reg)
			if err != nil {
				return nil, err
			}
			if cfg.ServerAddress = ""; cfg != (types.AuthConfig{}) {
				return fromConfig(cfg), nil
			}
			continue
		}
		for _, key := range keys {
			// By its key as written, as podman reads it: docker's
			// lookup would take another repository's key for its
			// registry's.
			cfg := cf.AuthConfigs[key]
			cfg.ServerAddress = ""
			if cfg != (types.AuthConfig{}) {
				return fromConfig(cfg), nil
			}
		}
	}
	if k.docker.dir == "" {
		return authn.Anonymous, nil
	}
	return k.docker.ResolveContext(ctx, target)
}

// loadAuthFile reads one of podman's auth files, which are written as a
// docker config is ("auths", "credHelpers").
func loadAuthFile(path string) (*configfile.ConfigFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return config.LoadFromReader(io.LimitReader(f, maxAuthFile))
}

// maxAuthFile bounds an auth file read.
const maxAuthFile = 1 << 20

// podmanKeys are the keys an auth file of podman's may name target by,
// the most precise first: "docker.io/library/x", "docker.io/library",
// "docker.io". Docker Hub is docker.io there.
func podmanKeys(target authn.Resource) []string {
	reg := target.RegistryStr()
	path := target.String()
	if reg == name.DefaultRegistry {
		path = "docker.io" + strings.TrimPrefix(path, reg)
		reg = "docker.io"
	}
	var keys []string
	for p := path; strings.HasPrefix(p, reg+"/"); p = p[:strings.LastIndex(p, "/")] {
		keys = append(keys, p)
	}
	return append(keys, reg)
}
