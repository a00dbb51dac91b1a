package service

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service/datafolders"
	"github.com/mcptray/mcptray/core/service/secretkeep"
	"github.com/mcptray/mcptray/core/service/signin"
	"github.com/mcptray/mcptray/core/service/trust"
)

// TestNoLateHandshakes holds that core/instance wires the service's parts
// as it makes them: the service has no method through which something is
// handed to it after New (a Use…, a Follow…, or the egress proxy's options
// to be handed back), so a service is whole once made.
func TestNoLateHandshakes(t *testing.T) {
	typ := reflect.TypeFor[*Service]()
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if strings.HasPrefix(name, "Use") || strings.HasPrefix(name, "Follow") || name == "EgressOptions" {
			t.Errorf("Service.%s hands something to the service after it is made; give it in Options, made by core/instance", name)
		}
	}
}

// TestPartsGivenAreTheOnesUsed holds that the parts core/instance makes
// and gives in Options are the ones the service decides with, attached to
// it: a secret lands in the given keeper's keychain (not in one the
// service would make on Store), the config loader reads the given trust
// keeper's approvals file, and the given sign-in desk tells the service's
// subscribers when the keychain's state changed.
func TestPartsGivenAreTheOnesUsed(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	keychain := secrettest.New() // the keeper's, not Store
	keeper := secretkeep.New(secretkeep.Options{Store: keychain, Dir: h.paths.Dir(), UserFile: h.paths.UserFile()})
	desk := signin.New(signin.Options{Store: h.store, Dir: h.paths.Dir()})
	approvals := &config.ApprovalStore{Path: h.paths.ApprovalsFile()}
	keeps := trust.New(trust.Options{Dir: h.paths.Dir(), Approvals: approvals})
	folders := datafolders.New(datafolders.Options{})
	s := h.start(false, func(o *Options) {
		o.Secrets, o.SignIns, o.Trust, o.DataFolders = keeper, desk, keeps, folders
	})
	if s.secrets != keeper || s.signins != desk || s.trust != keeps || s.data != folders {
		t.Fatal("the service made parts of its own beside those it was given")
	}
	if s.loader.Approvals != approvals {
		t.Error("the config loader reads another approvals file object than the trust keeper records in")
	}
	if got, want := folders.Folder("gh"), filepath.Join(h.paths.ServersDir(), "gh"); got != want {
		t.Errorf("the given data folders put gh's at %q, not in the service's servers folder %q", got, want)
	}
	if s.auth != desk.Auth() {
		t.Error("the service signs in through another sign-in manager than the desk's")
	}

	// No server runs yet: the one notice to come is the desk's.
	notices, _ := s.Subscribe(t.Context())
	desk.NoteKeychain(&secret.UnavailableError{Reason: "no Secret Service is running"})
	select {
	case <-notices:
	case <-time.After(deadline):
		t.Fatal("the given sign-in desk's change of the keychain's state reached no subscriber")
	}
	if sn := mustSnap(t, s); sn.Keychain.Problem != "no Secret Service is running" {
		t.Errorf("the snapshot's keychain = %+v, want the desk's problem", sn.Keychain)
	}

	ctx := context.Background()
	entry := testServer("gh")
	entry["env"] = map[string]string{"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}
	raw, _ := json.Marshal(entry)
	if _, err := s.Add(ctx, AddRequest{Name: "gh", Entry: raw, Secrets: map[string]string{"GITHUB_TOKEN": "ghp_given-keeper"}}); err != nil {
		t.Fatal(err)
	}
	if keychain.Len() != 1 || h.store.Len() != 0 {
		t.Errorf("the secret is in the given keeper's keychain %d times and in Store %d times; want once and none", keychain.Len(), h.store.Len())
	}
}

// TestTrustWithoutApprovalsRefused: a trust keeper given without the
// approvals file it records in would leave the config loader reading
// none, and every project server's approval lost; New refuses it.
func TestTrustWithoutApprovalsRefused(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	_, err := New(Options{Paths: h.paths, Store: h.store, Trust: trust.New(trust.Options{Dir: h.paths.Dir()})})
	if err == nil {
		t.Fatal("New took a trust keeper without an approvals file")
	}
}

// TestPartGivenToTwoServicesRefused: a part attached to one service and
// given to a second (Options reused) would hear the second's word that a
// server stopped, or give it the first's notices and record: the data
// folders could then remove a folder whose server still runs in the
// first. New refuses a part that serves another service already.
func TestPartGivenToTwoServicesRefused(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	parts := map[string]func(*Options){
		"sign-in desk": func(o *Options) { o.SignIns = signin.New(signin.Options{Store: h.store, Dir: h.paths.Dir()}) },
		"trust keeper": func(o *Options) {
			o.Trust = trust.New(trust.Options{Dir: h.paths.Dir(), Approvals: &config.ApprovalStore{Path: h.paths.ApprovalsFile()}})
		},
		"data folders": func(o *Options) { o.DataFolders = datafolders.New(datafolders.Options{}) },
	}
	for name, give := range parts {
		opts := Options{Paths: h.paths, Store: h.store}
		give(&opts)
		first, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if second, err := New(opts); err == nil {
			second.Close()
			t.Errorf("the %s of one service was taken by a second", name)
		}
		first.Close()
	}
}
