package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The probe's ways to another program's socket other than
// socket(AF_UNIX): a socket made with socketpair and then pointed at a
// named socket, and a socket the server holds when it starts.

// socketProbe is the probe's socket tries (probe):
//
//   - pairsend:PATH, pairmsg:PATH: a datagram socketpair, and a datagram
//     sent by sendto (sendmsg) to the named socket at PATH;
//   - pairconnect:PATH: a datagram socketpair connected again, to PATH
//     (datagram sockets may), and written to;
//   - pairstream:PATH, pairseqpacket:PATH: a stream (seqpacket) socketpair
//     connected to PATH, then sent to with PATH as the address; "ok" means
//     the socketpair was made and it could not connect (the test's socket
//     says whether the send reached it);
//   - pair:TYPE: a socketpair of TYPE (stream, seqpacket), as runtimes
//     make their children's pipes;
//   - fds: every file descriptor above stderr that is a socket, which the
//     server would hold from outside.
func socketProbe(op, arg string) error {
	types := map[string]int{"pairsend": unix.SOCK_DGRAM, "pairmsg": unix.SOCK_DGRAM, "pairconnect": unix.SOCK_DGRAM,
		"pairstream": unix.SOCK_STREAM, "pairseqpacket": unix.SOCK_SEQPACKET}
	switch op {
	case "fds":
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return err
		}
		var held []string
		for _, e := range entries {
			fd, _ := strconv.Atoi(e.Name())
			if link, _ := os.Readlink("/proc/self/fd/" + e.Name()); fd > 2 && strings.HasPrefix(link, "socket:") {
				var st unix.Stat_t
				if unix.Fstat(fd, &st) == nil { // not ReadDir's own
					held = append(held, fmt.Sprintf("%d (%s)", fd, link))
				}
			}
		}
		if len(held) > 0 {
			return fmt.Errorf("it holds sockets from outside: %s", strings.Join(held, ", "))
		}
		return nil
	case "pair":
		typ := map[string]int{"stream": unix.SOCK_STREAM, "seqpacket": unix.SOCK_SEQPACKET}[arg]
		fds, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if _, err := unix.Write(fds[0], []byte("x")); err != nil {
			return err
		}
		_, err = unix.Read(fds[1], make([]byte, 1))
		return err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, types[op]|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	to := &unix.SockaddrUnix{Name: arg}
	msg := []byte("a datagram from a server")
	switch op {
	case "pairsend":
		return unix.Sendto(fds[0], msg, 0, to)
	case "pairmsg":
		return unix.Sendmsg(fds[0], msg, nil, to, 0)
	case "pairconnect":
		if err := unix.Connect(fds[0], to); err != nil {
			return err
		}
		_, err := unix.Write(fds[0], msg)
		return err
	}
	// Stream and seqpacket: connected to each other, and nothing else.
	// The kernel says so (EISCONN, or EPROTOTYPE for a socket of another
	// type); what it does with the address of a send, the test's socket
	// tells.
	if err := unix.Connect(fds[0], to); err == nil {
		return errors.New("it connected to " + arg)
	}
	_ = unix.Sendto(fds[0], msg, 0, to)
	return nil
}
