package keychain

import (
	"strings"
	"testing"

	ss "github.com/zalando/go-keyring/secret_service"
)

// chunkAccounts lists the chunk items stored for account: every item of
// service whose account starts with account+"#", found by a search of the
// Secret Service, so that a piece left at any index is found.
func chunkAccounts(t *testing.T, service, account string) []string {
	t.Helper()
	svc, err := ss.NewSecretService()
	if err != nil {
		t.Fatal(err)
	}
	items, err := svc.SearchItems(svc.GetLoginCollection(), map[string]string{"service": service})
	if err != nil {
		t.Fatalf("listing the test's items: %v", err)
	}
	var names []string
	for _, item := range items {
		v, err := svc.Object("org.freedesktop.secrets", item).GetProperty("org.freedesktop.Secret.Item.Attributes")
		if err != nil {
			t.Fatalf("reading an item's attributes: %v", err)
		}
		attrs, ok := v.Value().(map[string]string)
		if !ok {
			t.Fatalf("an item's attributes are a %T", v.Value())
		}
		if name := attrs["username"]; strings.HasPrefix(name, account+"#") {
			names = append(names, name)
		}
	}
	return names
}
