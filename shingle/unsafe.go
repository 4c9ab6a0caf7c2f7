package shingle

import "unsafe"

// This file holds the package's only use of unsafe.

// stringBytes returns the bytes of s without copying them, so that
// AppendSetString costs no allocation. The result must never be written to;
// the shingling code only reads its input.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
