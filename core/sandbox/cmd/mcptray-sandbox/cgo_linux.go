//go:build linux && cgo

package main

// launch_linux.c does the launcher's work before Go's runtime starts; the
// import below only brings it into the program.
//
// The program is linked statically: at each server's start a dynamically
// linked one waited for the dynamic loader to find, map and relocate the C
// library, and the init's fork then copied the pages the relocations had
// written (together more than a millisecond on a small virtual machine,
// bench/README.md). The linker warns that getaddrinfo, which Go's net
// package links in, would need the C library's shared objects at run
// time: the launcher looks up no name. Building it needs the C library's
// static archive (libc.a: Debian's and Ubuntu's libc6-dev, Fedora's
// glibc-static).

// #cgo LDFLAGS: -static
import "C"
