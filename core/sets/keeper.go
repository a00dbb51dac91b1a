package sets

import (
	"encoding/json"
	"sync"
)

// Keeper keeps the choices of the running mcptray: read from their file,
// changed through Modify, which writes the file and then tells those who
// follow (the gateway) at once, and read again when the file changes on
// disk (Watch). It is safe for concurrent use.
type Keeper struct {
	path   string
	mu     sync.Mutex
	cur    Choices
	follow []func(Choices)
	// problem says why the file was refused (Watch, Open); a change
	// written whole ends it.
	problem string
}

// Open reads the choices kept at path. A file that cannot be read is an
// error, with a Keeper of no sets, every app getting everything: the
// person's servers stay reachable, and the next change writes the file
// anew.
func Open(path string) (*Keeper, error) {
	c, err := Read(path)
	k := &Keeper{path: path, cur: c}
	if err != nil {
		k.cur = Choices{Version: version}
		k.problem = err.Error() + "; every app gets every server until it is fixed"
	}
	return k, err
}

// Choices are the choices now, a copy the caller may keep.
func (k *Keeper) Choices() Choices {
	k.mu.Lock()
	defer k.mu.Unlock()
	return clone(k.cur)
}

// Follow has fn told of the choices now, and after every change; fn must
// not wait.
func (k *Keeper) Follow(fn func(Choices)) {
	k.mu.Lock()
	k.follow = append(k.follow, fn)
	c := clone(k.cur)
	k.mu.Unlock()
	fn(c)
}

// Modify changes the choices with fn, writes them, and tells those who
// follow; nothing changes when fn or the write fails.
func (k *Keeper) Modify(fn func(*Choices) error) (Choices, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	next := clone(k.cur)
	if err := fn(&next); err != nil {
		return Choices{}, err
	}
	if err := Write(k.path, next); err != nil {
		return Choices{}, err
	}
	k.cur, k.problem = next, ""
	for _, f := range k.follow {
		f(clone(next))
	}
	return clone(next), nil
}

// clone is a deep copy of c: the sets' slices and maps are not shared.
func clone(c Choices) Choices {
	b, err := json.Marshal(c)
	if err != nil {
		return c
	}
	var out Choices
	if json.Unmarshal(b, &out) != nil {
		return c
	}
	return out
}
