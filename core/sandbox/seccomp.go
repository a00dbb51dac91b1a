package sandbox

import (
	"encoding/hex"
	"fmt"
	"runtime"

	"golang.org/x/net/bpf"
)

// The seccomp filter closes the doors Landlock leaves open on the kernels
// people have (Landlock governs named Unix sockets only from ABI 9, UDP
// only from ABI 10):
//
//   - socket(AF_UNIX, …) is refused unless the server may use sockets
//     (Policy.Sockets): every named socket of the person's session (the
//     session bus and through it the Secret Service, ssh-agent, X11,
//     mcptray's own control socket, journald's and systemd's, a
//     database's) is then out of reach;
//   - socketpair is allowed for Unix stream and seqpacket pairs alone
//     (the type masked of SOCK_NONBLOCK and SOCK_CLOEXEC): node's libuv
//     and python make their children's pipes with stream pairs, and
//     Chromium talks to its own processes over seqpacket pairs. Those two
//     ends are connected to each other for good: connect() on one fails
//     (EISCONN, EPROTOTYPE), and an address given to sendto or sendmsg
//     is refused (stream) or ignored (seqpacket). A datagram pair is
//     refused: a datagram socket sends to any named socket given as the
//     address of sendto or sendmsg, and may be connect()ed again to one
//     (journald's /run/systemd/journal/socket, systemd's notify socket),
//     which Landlock does not govern before ABI 9. With Policy.Sockets,
//     any socketpair;
//   - socket(AF_INET or AF_INET6, …) is allowed for TCP only when TCP goes
//     through the proxy (Policy.RestrictTCP): UDP (DNS included) and raw
//     sockets are refused, since Landlock's rule is for TCP alone;
//   - AF_NETLINK stays allowed (glibc asks the kernel's routing socket
//     which addresses this computer has); every other family (vsock,
//     packet, bluetooth, …) is refused;
//   - io_uring is refused: its operations (sockets among them) are not
//     system calls a filter sees;
//   - the kernel's key retention calls (add_key, request_key, keyctl) are
//     refused: the person's user keyring is shared by every program of
//     theirs, and some keep secrets there;
//   - a system call made in another architecture's convention (x86's
//     int 0x80, the x32 ABI) is refused: the numbers above would not mean
//     the same there.
//
// No other call makes a socket the server could point elsewhere: accept
// needs a listening socket, and the launcher marks close-on-exec every
// file descriptor above stderr before it executes the server (a socket
// mcptray was itself handed, and not marked so, would reach it and with
// it whatever that socket's other end hands over in SCM_RIGHTS), so the
// server starts with its three pipes alone. (sendto, sendmsg and connect
// are left free: with no datagram socket to send from, they reach only
// what TCP's rules allow.)
//
// The filter is built here, in Go, with x/net/bpf's assembler, and handed
// to the launcher inside the policy ("f HEX"), so that the launcher's C
// (cmd/mcptray-sandbox) and Go (Launch) install the same program.

// seccompArch is the kernel's AUDIT_ARCH_* and system call numbers of this
// program's architecture.
type seccompArch struct {
	audit                  uint32
	x32                    bool // x86-64: numbers with bit 30 set are the x32 ABI
	socket, socketpair     uint32
	uringSetup, uringEnter uint32
	uringRegister          uint32
	addKey, requestKey     uint32
	keyctl                 uint32
}

var seccompArches = map[string]seccompArch{
	"amd64": {audit: 0xc000003e, x32: true, socket: 41, socketpair: 53, uringSetup: 425, uringEnter: 426, uringRegister: 427,
		addKey: 248, requestKey: 249, keyctl: 250},
	"arm64": {audit: 0xc00000b7, socket: 198, socketpair: 199, uringSetup: 425, uringEnter: 426, uringRegister: 427,
		addKey: 217, requestKey: 218, keyctl: 219},
}

// SeccompSupported reports whether mcptray has a seccomp filter for this
// architecture (amd64 and arm64).
func SeccompSupported() bool {
	_, ok := seccompArches[runtime.GOARCH]
	return ok
}

// The kernel's values (linux/seccomp.h, linux/socket.h, linux/net.h).
const (
	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000
	errnoEPERM      = 1

	afUnix    = 1
	afInet    = 2
	afInet6   = 10
	afNetlink = 16

	sockStream    = 1
	sockSeqpacket = 5
	sockType      = 0xf // SOCK_TYPE_MASK: the type without SOCK_NONBLOCK and SOCK_CLOEXEC

	// offsets in struct seccomp_data; an argument's low 32 bits come first
	// on the little-endian architectures above.
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// filterRules says what the filter lets through.
type filterRules struct {
	sockets bool // socket(AF_UNIX), and socketpair of any kind
	udp     bool // UDP and raw sockets: only when TCP is not restricted either
}

func (p Policy) filterRules() filterRules {
	return filterRules{sockets: p.Sockets, udp: !p.RestrictTCP}
}

// seccompFilter is the filter for r on arch, as BPF instructions.
func seccompFilter(a seccompArch, r filterRules) ([]bpf.RawInstruction, error) {
	var prog asm
	deny, allow := "deny", "allow"
	prog.ins(bpf.LoadAbsolute{Off: offArch, Size: 4})
	prog.jump(bpf.JumpEqual, a.audit, "", deny)
	prog.ins(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if a.x32 {
		prog.jump(bpf.JumpGreaterOrEqual, 0x40000000, deny, "")
	}
	for _, nr := range []uint32{a.uringSetup, a.uringEnter, a.uringRegister, a.addKey, a.requestKey, a.keyctl} {
		prog.jump(bpf.JumpEqual, nr, deny, "")
	}
	if !r.sockets {
		// socketpair: Unix stream and seqpacket pairs only.
		prog.jump(bpf.JumpEqual, a.socketpair, "", "notpair")
		prog.ins(bpf.LoadAbsolute{Off: offArg0, Size: 4})
		prog.jump(bpf.JumpEqual, afUnix, "", deny)
		prog.ins(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		prog.ins(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockType})
		prog.jump(bpf.JumpEqual, sockStream, allow, "")
		prog.jump(bpf.JumpEqual, sockSeqpacket, allow, deny)
		prog.label("notpair")
	}
	prog.jump(bpf.JumpEqual, a.socket, "", allow)
	prog.ins(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	unix := deny
	if r.sockets {
		unix = allow
	}
	prog.jump(bpf.JumpEqual, afUnix, unix, "")
	prog.jump(bpf.JumpEqual, afNetlink, allow, "")
	prog.jump(bpf.JumpEqual, afInet, "inet", "")
	prog.jump(bpf.JumpEqual, afInet6, "inet", deny)
	prog.label("inet")
	if !r.udp { // with udp, any type: on to allow
		prog.ins(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		prog.ins(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockType})
		prog.jump(bpf.JumpEqual, sockStream, allow, deny)
	}
	prog.label(allow)
	prog.ins(bpf.RetConstant{Val: seccompRetAllow})
	prog.label(deny)
	prog.ins(bpf.RetConstant{Val: seccompRetErrno | errnoEPERM})
	return prog.assemble()
}

// encodeFilter is the filter for p on this architecture as the policy's
// hexadecimal: each instruction as its 8 bytes of struct sock_filter
// (code, jt, jf, k), in this machine's byte order. "" when there is no
// filter for this architecture.
func encodeFilter(p Policy) (string, error) {
	a, ok := seccompArches[runtime.GOARCH]
	if !ok {
		return "", nil
	}
	raw, err := seccompFilter(a, p.filterRules())
	if err != nil {
		return "", fmt.Errorf("building its system call filter: %w", err)
	}
	b := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		// Little-endian: both architectures above are.
		b = append(b, byte(in.Op), byte(in.Op>>8), in.Jt, in.Jf, byte(in.K), byte(in.K>>8), byte(in.K>>16), byte(in.K>>24))
	}
	return hex.EncodeToString(b), nil
}

// decodeFilter reads what encodeFilter wrote.
func decodeFilter(s string) ([]bpf.RawInstruction, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b)%8 != 0 || len(b) == 0 || len(b)/8 > 4096 {
		return nil, fmt.Errorf("%q is not a filter", s)
	}
	out := make([]bpf.RawInstruction, 0, len(b)/8)
	for i := 0; i < len(b); i += 8 {
		out = append(out, bpf.RawInstruction{
			Op: uint16(b[i]) | uint16(b[i+1])<<8, Jt: b[i+2], Jf: b[i+3],
			K: uint32(b[i+4]) | uint32(b[i+5])<<8 | uint32(b[i+6])<<16 | uint32(b[i+7])<<24,
		})
	}
	return out, nil
}

// asm is a BPF program with forward jumps to labels, which BPF's
// conditional jumps (a skip count of at most 255) need resolved.
type asm struct {
	prog   []bpf.Instruction
	jumps  map[int][2]string // instruction index: true and false labels ("" = next)
	labels map[string]int
}

func (a *asm) ins(i bpf.Instruction) { a.prog = append(a.prog, i) }

func (a *asm) jump(cond bpf.JumpTest, val uint32, ifTrue, ifFalse string) {
	if a.jumps == nil {
		a.jumps = map[int][2]string{}
	}
	a.jumps[len(a.prog)] = [2]string{ifTrue, ifFalse}
	a.ins(bpf.JumpIf{Cond: cond, Val: val})
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

func (a *asm) assemble() ([]bpf.RawInstruction, error) {
	for at, to := range a.jumps {
		j := a.prog[at].(bpf.JumpIf)
		for k, name := range to {
			if name == "" {
				continue
			}
			target, ok := a.labels[name]
			if !ok || target <= at || target-at-1 > 255 {
				return nil, fmt.Errorf("jump to %q cannot be made", name)
			}
			if k == 0 {
				j.SkipTrue = uint8(target - at - 1)
			} else {
				j.SkipFalse = uint8(target - at - 1)
			}
		}
		a.prog[at] = j
	}
	return bpf.Assemble(a.prog)
}
