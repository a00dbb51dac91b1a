package sandbox

import (
	"encoding/binary"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
)

// TestSeccompFilter runs the filter in x/net/bpf's virtual machine over
// the system calls a hostile server would make, and the ones runtimes
// need. (The machine reads 32-bit words big-endian, as a packet; each
// field of seccomp_data is written so, which gives the kernel's values.)
func TestSeccompFilter(t *testing.T) {
	amd64 := seccompArches["amd64"]
	call := func(arch, nr uint32, args ...uint32) []byte {
		b := make([]byte, 64)
		binary.BigEndian.PutUint32(b[offNr:], nr)
		binary.BigEndian.PutUint32(b[offArch:], arch)
		for i, a := range args {
			binary.BigEndian.PutUint32(b[offArg0+8*i:], a)
		}
		return b
	}
	const (
		allow           = seccompRetAllow
		deny            = seccompRetErrno | errnoEPERM
		cloexecNonblock = 0x80000 | 0x800
	)
	for _, tc := range []struct {
		name  string
		rules filterRules
		data  []byte
		want  uint32
	}{
		{"read", filterRules{}, call(amd64.audit, 0), allow},
		{"socketpair", filterRules{}, call(amd64.audit, 53, afUnix, sockStream), allow},
		{"socketpair, non-blocking", filterRules{}, call(amd64.audit, 53, afUnix, sockStream|cloexecNonblock), allow},
		{"a seqpacket socketpair", filterRules{}, call(amd64.audit, 53, afUnix, sockSeqpacket|cloexecNonblock), allow},
		{"a datagram socketpair", filterRules{}, call(amd64.audit, 53, afUnix, 2|cloexecNonblock), deny},
		{"a raw socketpair", filterRules{}, call(amd64.audit, 53, afUnix, 3), deny},
		{"a socketpair of another family", filterRules{}, call(amd64.audit, 53, 30, sockStream), deny},
		{"a datagram socketpair, sockets granted", filterRules{sockets: true}, call(amd64.audit, 53, afUnix, 2), allow},
		{"a named socket", filterRules{}, call(amd64.audit, amd64.socket, afUnix, sockStream|cloexecNonblock), deny},
		{"a named socket, granted", filterRules{sockets: true}, call(amd64.audit, amd64.socket, afUnix, sockStream), allow},
		{"TCP", filterRules{}, call(amd64.audit, amd64.socket, afInet, sockStream|cloexecNonblock), allow},
		{"TCP over IPv6", filterRules{}, call(amd64.audit, amd64.socket, afInet6, sockStream), allow},
		{"UDP", filterRules{}, call(amd64.audit, amd64.socket, afInet, 2|cloexecNonblock), deny},
		{"UDP over IPv6", filterRules{}, call(amd64.audit, amd64.socket, afInet6, 2), deny},
		{"raw", filterRules{}, call(amd64.audit, amd64.socket, afInet, 3), deny},
		{"UDP with the network open", filterRules{udp: true}, call(amd64.audit, amd64.socket, afInet, 2), allow},
		{"netlink", filterRules{}, call(amd64.audit, amd64.socket, afNetlink, 3), allow},
		{"vsock", filterRules{}, call(amd64.audit, amd64.socket, 40, sockStream), deny},
		{"packet", filterRules{}, call(amd64.audit, amd64.socket, 17, 3), deny},
		{"io_uring_setup", filterRules{}, call(amd64.audit, amd64.uringSetup), deny},
		{"io_uring_enter", filterRules{}, call(amd64.audit, amd64.uringEnter), deny},
		{"keyctl", filterRules{}, call(amd64.audit, amd64.keyctl, 0), deny},
		{"add_key", filterRules{}, call(amd64.audit, amd64.addKey), deny},
		{"x32's socket", filterRules{}, call(amd64.audit, 0x40000000|amd64.socket, afUnix, sockStream), deny},
		{"i386's socketcall", filterRules{}, call(0x40000003, 102, 1), deny},
	} {
		raw, err := seccompFilter(amd64, tc.rules)
		if err != nil {
			t.Fatal(err)
		}
		prog, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatal("the filter does not disassemble")
		}
		vm, err := bpf.NewVM(prog)
		if err != nil {
			t.Fatal(err)
		}
		got, err := vm.Run(tc.data)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(got) != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

// TestFilterTravels: the filter comes through the policy's hex as it went.
func TestFilterTravels(t *testing.T) {
	if !SeccompSupported() {
		t.Skip("no filter for this processor")
	}
	enc, err := encode(Policy{RestrictTCP: true, Ports: []int{1}, Bridge: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, plan, err := decode(enc)
	if err != nil || plan.filter == "" || plan.bridge != 1 || !plan.init {
		t.Fatalf("decode = %+v, %v", plan, err)
	}
	if _, err := decodeFilter(plan.filter); err != nil {
		t.Fatal(err)
	}
	if _, _, err := decode(policyMagic + "\nf 0102\n"); err == nil {
		t.Error("a filter cut short was taken")
	}
	// An empty filter, or one longer than the kernel's 4096 instructions,
	// is refused here rather than left to the launcher.
	for _, f := range []string{"", strings.Repeat("0600000000000000", 4097)} {
		if _, err := decodeFilter(f); err == nil {
			t.Errorf("a filter of %d instructions was taken", len(f)/16)
		}
	}
}
