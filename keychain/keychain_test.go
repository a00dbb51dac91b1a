package keychain

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/secret"
	"github.com/zalando/go-keyring"
)

// These tests use the real keychain. On Linux that is the Secret Service
// that make test starts: gnome-keyring, unlocked, in a private D-Bus
// session. On macOS and Windows it is the login keychain. Each test uses a
// service name of its own and removes all of it at the end.

// requireKeychain skips the test where there is no keychain to use, or
// fails it under CI, where make test must provide one.
func requireKeychain(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		if os.Getenv("CI") == "" {
			t.Skip("no D-Bus session bus: run make test, which starts one with an unlocked gnome-keyring")
		}
		t.Fatal("no D-Bus session bus: run make test, which starts one with an unlocked gnome-keyring")
	}
}

// newKeychain returns a Keychain on a service of the test's own.
func newKeychain(t *testing.T) *Keychain {
	t.Helper()
	requireKeychain(t)
	service := "mcptray-test-" + rand.Text()
	t.Cleanup(func() {
		if err := keyring.DeleteAll(service); err != nil {
			t.Errorf("removing the test's items: %v", err)
		}
	})
	return New(service)
}

// testContext bounds a test's keychain calls, so that a keychain that
// stops answering fails the test rather than hanging it.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// chunkItems counts the chunk items stored for account in each slot,
// looking at the keychain through go-keyring, not through Keychain.
func chunkItems(t *testing.T, k *Keychain, account string) (a, b int) {
	t.Helper()
	for _, name := range chunkAccounts(t, k.service, account) {
		switch {
		case strings.HasPrefix(name, account+"#a"):
			a++
		case strings.HasPrefix(name, account+"#b"):
			b++
		default:
			t.Errorf("an item named %q", name)
		}
	}
	return a, b
}

// wantChunks is how many chunk items a value of n bytes takes.
func wantChunks(n int) int {
	_, chunks := split('a', make([]byte, n))
	return len(chunks)
}

func key(server string) secret.Key {
	return secret.Key{Server: server, Kind: secret.Tokens}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	requireKeychain(t)
	ctx := testContext(t)
	for _, tc := range []struct {
		name  string
		value []byte
	}{
		{"empty", []byte{}},
		{"json", []byte(`{"access_token":"at-1","refresh_token":"rt-1"}`)},
		{"NUL and invalid UTF-8", []byte("a\x00b\xff\xfe\xc3\x28z\x00")},
		{"every byte", pattern(256)},
		{"largest in one item", pattern(largestSingle)},
		{"one byte over", pattern(largestSingle + 1)},
		{"10 KB", pattern(10 << 10)},
		{"100 KB", pattern(100 << 10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := newKeychain(t)
			key := key(strings.ReplaceAll(tc.name, " ", "-"))
			account, _ := accountOf(key)
			if err := k.Set(ctx, key, tc.value); err != nil {
				t.Fatalf("Set: %v", err)
			}
			got, err := k.Get(ctx, key)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if !bytes.Equal(got, tc.value) {
				t.Errorf("Get returned %d bytes that differ from the %d set", len(got), len(tc.value))
			}
			head, err := keyring.Get(k.service, account)
			if err != nil {
				t.Fatalf("the head item: %v", err)
			}
			if len(head) > itemMax {
				t.Errorf("the head holds %d bytes, more than %d", len(head), itemMax)
			}
			a, b := chunkItems(t, k, account)
			if want := wantChunks(len(tc.value)); a != want || b != 0 {
				t.Errorf("chunk items: %d in slot a, %d in b; want %d in a", a, b, want)
			}
			if len(tc.value) >= 10<<10 && a < 2 {
				t.Errorf("a %d-byte value was not split", len(tc.value))
			}

			if err := k.Delete(ctx, key); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if _, err := k.Get(ctx, key); !errors.Is(err, secret.ErrNotFound) {
				t.Errorf("Get after Delete = %v, want ErrNotFound", err)
			}
			if _, err := keyring.Get(k.service, account); !errors.Is(err, keyring.ErrNotFound) {
				t.Errorf("the head item is still there after Delete (%v)", err)
			}
			if a, b := chunkItems(t, k, account); a+b != 0 {
				t.Errorf("after Delete %d chunk items are left in slot a, %d in b", a, b)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	k := newKeychain(t)
	ctx := testContext(t)
	if _, err := k.Get(ctx, key("nothing")); err != secret.ErrNotFound {
		t.Errorf("Get of a missing key = %v, want secret.ErrNotFound itself", err)
	}
	if err := k.Delete(ctx, key("nothing")); err != nil {
		t.Errorf("Delete of a missing key = %v, want nil", err)
	}
	if err := k.DeleteServer(ctx, "nothing"); err != nil {
		t.Errorf("DeleteServer of a server with no secrets = %v, want nil", err)
	}
	// Another service's item is not this one's.
	other := newKeychain(t)
	if err := other.Set(ctx, key("s"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Get(ctx, key("s")); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("Get of another service's key = %v, want ErrNotFound", err)
	}
}

// TestReplace replaces values of every size with every other, checking
// each time that what is read is the last value set and that no piece of
// an earlier one is left behind.
func TestReplace(t *testing.T) {
	t.Parallel()
	k := newKeychain(t)
	ctx := testContext(t)
	key := key("replaced")
	account, _ := accountOf(key)
	sizes := []int{30 << 10, 10 << 10, 20, 12 << 10, 16 << 10, 5 << 10, 0, 8 << 10, 20}
	for i, n := range sizes {
		value := append([]byte(strconv.Itoa(i)), pattern(n)...)
		if err := k.Set(ctx, key, value); err != nil {
			t.Fatalf("Set #%d (%d bytes): %v", i, n, err)
		}
		got, err := k.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get #%d: %v", i, err)
		}
		if !bytes.Equal(got, value) {
			t.Fatalf("Get #%d returned %d bytes, not the %d set", i, len(got), len(value))
		}
		a, b := chunkItems(t, k, account)
		want := wantChunks(len(value))
		if a+b != want || (a != 0 && b != 0) {
			t.Errorf("after Set #%d (%d bytes): %d chunk items in slot a and %d in b, want %d in one slot",
				i, len(value), a, b, want)
		}
	}
	if err := k.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if a, b := chunkItems(t, k, account); a+b != 0 {
		t.Errorf("after Delete %d chunk items are left in slot a, %d in b", a, b)
	}
}

// TestSetSweepsLeftovers stores chunks as a Set cut short (by a crash, or
// a cancelled context) leaves them, and checks that the value in place is
// still read whole and that the next Set and Delete remove them.
func TestSetSweepsLeftovers(t *testing.T) {
	t.Parallel()
	k := newKeychain(t)
	ctx := testContext(t)
	key := key("leftovers")
	account, _ := accountOf(key)
	old := pattern(8 << 10)
	if err := k.Set(ctx, key, old); err != nil {
		t.Fatal(err)
	}
	// A Set of a longer value got as far as some of its chunks, in the
	// slot the value in place does not use.
	_, half := split('b', pattern(30<<10))
	for i, c := range half[:10] {
		if err := keyring.Set(k.service, chunkAccount(account, 'b', i+1), c); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := k.Get(ctx, key); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("Get after a Set cut short = %d bytes, %v; want the old %d bytes", len(got), err, len(old))
	}
	short := []byte("short")
	if err := k.Set(ctx, key, short); err != nil {
		t.Fatal(err)
	}
	if a, b := chunkItems(t, k, account); a+b != 0 {
		t.Errorf("a short value left %d chunk items in slot a and %d in b", a, b)
	}
	for i, c := range half[:10] {
		if err := keyring.Set(k.service, chunkAccount(account, 'a', i+1), c); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if a, b := chunkItems(t, k, account); a+b != 0 {
		t.Errorf("Delete left %d chunk items in slot a and %d in b", a, b)
	}
}

func TestDeleteServer(t *testing.T) {
	t.Parallel()
	k := newKeychain(t)
	ctx := testContext(t)
	values := map[secret.Key][]byte{}
	for _, server := range []string{"gone", "kept"} {
		values[secret.Key{Server: server, Kind: secret.Tokens}] = pattern(12 << 10)
		values[secret.Key{Server: server, Kind: secret.Client}] = []byte(`{"client_id":"c"}`)
	}
	for key, v := range values {
		if err := k.Set(ctx, key, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.DeleteServer(ctx, "gone"); err != nil {
		t.Fatalf("DeleteServer: %v", err)
	}
	for key, v := range values {
		got, err := k.Get(ctx, key)
		account, _ := accountOf(key)
		a, b := chunkItems(t, k, account)
		if key.Server == "gone" {
			if !errors.Is(err, secret.ErrNotFound) {
				t.Errorf("Get(%s) after DeleteServer = %v, want ErrNotFound", account, err)
			}
			if a+b != 0 {
				t.Errorf("%s: %d chunk items left", account, a+b)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, v) {
			t.Errorf("Get(%s) of another server = %d bytes, %v; want its value", account, len(got), err)
		}
	}
}

// TestDeleteServerKnowsEveryKind checks that DeleteServer removes every
// kind that core/secret declares: the keychain cannot list them.
func TestDeleteServerKnowsEveryKind(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "core", "secret", "secret.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []secret.Kind
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Kind" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s: a Kind that is not a string literal", file)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				declared = append(declared, secret.Kind(s))
			}
		}
	}
	if len(declared) == 0 {
		t.Fatalf("found no Kind constants in %s", file)
	}
	for _, kind := range declared {
		if !slices.Contains(kinds, kind) {
			t.Errorf("DeleteServer does not remove kind %q: add it to kinds", kind)
		}
	}
}

// TestConcurrent sets and gets from several goroutines at once, each on a
// key of its own and all on one shared key, with values long enough to be
// split: a Get returns a value that was set, whole, or ErrNotFound.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	k := newKeychain(t)
	ctx := testContext(t)
	const workers, rounds = 5, 3
	shared := key("shared")
	value := func(w, i int) []byte {
		return append([]byte(fmt.Sprintf("w%d-r%d:", w, i)), pattern(3<<10+w*1000+i)...)
	}
	valid := func(got []byte) bool {
		for w := range workers {
			for i := range rounds {
				if bytes.Equal(got, value(w, i)) {
					return true
				}
			}
		}
		return false
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			own := key(fmt.Sprint("worker", w))
			for i := range rounds {
				v := value(w, i)
				if err := k.Set(ctx, own, v); err != nil {
					t.Errorf("Set: %v", err)
					return
				}
				if got, err := k.Get(ctx, own); err != nil || !bytes.Equal(got, v) {
					t.Errorf("Get of worker %d's own key = %d bytes, %v; want the %d set", w, len(got), err, len(v))
				}
				if err := k.Set(ctx, shared, v); err != nil {
					t.Errorf("Set shared: %v", err)
					return
				}
				got, err := k.Get(ctx, shared)
				if err != nil {
					t.Errorf("Get shared: %v", err)
				} else if !valid(got) {
					t.Errorf("Get shared returned %d bytes that no one set", len(got))
				}
			}
		})
	}
	wg.Wait()
	account, _ := accountOf(shared)
	a, b := chunkItems(t, k, account)
	if got, err := k.Get(ctx, shared); err != nil || a+b != wantChunks(len(got)) || (a != 0 && b != 0) {
		t.Errorf("at the end: Get = %d bytes, %v; %d chunk items in slot a, %d in b", len(got), err, a, b)
	}
}

// TestUncoordinated has two Keychains on one service, which share no lock,
// as two mcptray processes would not: they write one key at the same time.
// A Get may then find pieces of two values; it must say so (ErrDamaged),
// never return a mix.
func TestUncoordinated(t *testing.T) {
	t.Parallel()
	k1 := newKeychain(t)
	k2 := New(k1.service)
	ctx := testContext(t)
	key := key("raced")
	values := [][]byte{bytes.Repeat([]byte{1}, 9<<10), bytes.Repeat([]byte{2}, 9<<10)}
	var wg sync.WaitGroup
	for i, k := range []*Keychain{k1, k2} {
		wg.Go(func() {
			for range 5 {
				if err := k.Set(ctx, key, values[i]); err != nil {
					t.Errorf("Set: %v", err)
				}
				got, err := k.Get(ctx, key)
				switch {
				case errors.Is(err, ErrDamaged), errors.Is(err, secret.ErrNotFound):
				case err != nil:
					t.Errorf("Get: %v", err)
				case !bytes.Equal(got, values[0]) && !bytes.Equal(got, values[1]):
					t.Errorf("Get returned %d bytes that are neither value", len(got))
				}
			}
		})
	}
	wg.Wait()
	// One more Set leaves things in order, whatever the race left.
	if err := k1.Set(ctx, key, values[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := k1.Get(ctx, key); err != nil || !bytes.Equal(got, values[0]) {
		t.Errorf("Get after the race = %d bytes, %v", len(got), err)
	}
}

// TestDamaged stores items that are not a whole value mcptray wrote, and
// checks that Get says so without quoting them, and that Set repairs them.
func TestDamaged(t *testing.T) {
	t.Parallel()
	requireKeychain(t)
	ctx := testContext(t)
	const token = "hunter2-damaged-token"
	value := append([]byte(token), pattern(6<<10)...)
	for _, tc := range []struct {
		name   string
		damage func(service, account string) error
	}{
		{"another format", func(service, account string) error {
			return keyring.Set(service, account, token)
		}},
		{"a chunk missing", func(service, account string) error {
			return keyring.Delete(service, chunkAccount(account, 'a', 2))
		}},
		{"a chunk replaced", func(service, account string) error {
			_, chunks := split('a', append([]byte("other"), pattern(6<<10)...))
			return keyring.Set(service, chunkAccount(account, 'a', 1), chunks[0])
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := newKeychain(t)
			key := key(strings.ReplaceAll(tc.name, " ", "-"))
			account, _ := accountOf(key)
			if err := k.Set(ctx, key, value); err != nil {
				t.Fatal(err)
			}
			if err := tc.damage(k.service, account); err != nil {
				t.Fatal(err)
			}
			got, err := k.Get(ctx, key)
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("Get = %d bytes, %v; want ErrDamaged", len(got), err)
			}
			if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte(token))[:16]) {
				t.Errorf("the error quotes the item: %v", err)
			}
			if !strings.Contains(err.Error(), account) {
				t.Errorf("the error does not say which item: %v", err)
			}
			if err := k.Set(ctx, key, []byte("fresh")); err != nil {
				t.Fatal(err)
			}
			if got, err := k.Get(ctx, key); err != nil || string(got) != "fresh" {
				t.Errorf("Get after a new Set = %q, %v", got, err)
			}
			if err := k.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			if a, b := chunkItems(t, k, account); a+b != 0 {
				t.Errorf("%d chunk items left after Delete", a+b)
			}
		})
	}
}

// TestSecretNotInErrors collects every error a value can run into and
// checks that none of them quotes it.
func TestSecretNotInErrors(t *testing.T) {
	t.Parallel()
	k := newKeychain(t)
	ctx := testContext(t)
	token := "tok-" + rand.Text()
	long := []byte(strings.Repeat(token, 1000))
	account, _ := accountOf(key("s"))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	var errs []error
	errs = append(errs,
		k.Set(cancelled, key("s"), []byte(token)),
		k.Set(ctx, secret.Key{Server: token + "/x", Kind: secret.Tokens}, []byte(token)),
		k.Set(ctx, key("s"), bytes.Repeat([]byte(token), maxValue/len(token)+1)),
	)
	if err := keyring.Set(k.service, account, token); err != nil {
		t.Fatal(err)
	}
	_, err := k.Get(ctx, key("s"))
	errs = append(errs, err)
	if err := k.Set(ctx, key("s"), long); err != nil {
		t.Fatal(err)
	}
	_, chunks := split('a', long)
	if err := keyring.Set(k.service, chunkAccount(account, 'a', 2), chunks[0][:100]); err != nil {
		t.Fatal(err)
	}
	_, err = k.Get(ctx, key("s"))
	errs = append(errs, err)

	encoded := base64.StdEncoding.EncodeToString([]byte(token))
	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, token) || strings.Contains(msg, encoded[:20]) {
			t.Errorf("case %d: the error quotes the secret: %s", i, msg)
		}
	}
}

// TestCancelled checks that a call with a context already done does
// nothing.
func TestCancelled(t *testing.T) {
	t.Parallel()
	k := newKeychain(t)
	ctx := testContext(t)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := k.Set(cancelled, key("c"), []byte("v")); !errors.Is(err, context.Canceled) {
		t.Errorf("Set = %v, want context.Canceled", err)
	}
	if _, err := k.Get(cancelled, key("c")); !errors.Is(err, context.Canceled) {
		t.Errorf("Get = %v, want context.Canceled", err)
	}
	if err := k.Delete(cancelled, key("c")); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete = %v, want context.Canceled", err)
	}
	if err := k.DeleteServer(cancelled, "c"); !errors.Is(err, context.Canceled) {
		t.Errorf("DeleteServer = %v, want context.Canceled", err)
	}
	if _, err := k.Get(ctx, key("c")); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("a cancelled Set stored something: Get = %v", err)
	}
}

func TestInvalidKeys(t *testing.T) {
	t.Parallel()
	k := New("mcptray-test-unused") // refused before the keychain is asked
	for _, key := range []secret.Key{
		{},
		{Server: "s"},
		{Kind: secret.Tokens},
		{Server: "a/b", Kind: secret.Tokens},
		{Server: "a#b", Kind: secret.Tokens},
		{Server: "s", Kind: "x#a1"},
	} {
		if err := k.Set(t.Context(), key, []byte("v")); err == nil {
			t.Errorf("Set(%+v) succeeded", key)
		}
		if _, err := k.Get(t.Context(), key); err == nil || errors.Is(err, secret.ErrNotFound) {
			t.Errorf("Get(%+v) = %v, want an error about the key", key, err)
		}
	}
}
