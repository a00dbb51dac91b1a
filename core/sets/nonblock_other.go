//go:build !unix

package sets

const nonBlock = 0
