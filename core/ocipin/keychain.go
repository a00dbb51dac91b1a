package ocipin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/docker/cli/cli/config"
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
	return authn.FromConfig(authn.AuthConfig{
		Username: cfg.Username, Password: cfg.Password, Auth: cfg.Auth,
		IdentityToken: cfg.IdentityToken, RegistryToken: cfg.RegistryToken,
	}), nil
}
