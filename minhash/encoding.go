package minhash

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// magic opens every encoded signature; encodingVersion follows it.
const (
	magic           = "NDMH"
	encodingVersion = 1
)

// AppendEncoding appends the versioned binary encoding of sig (made by a
// Hasher with seed) to dst.
//
// The encoding is the magic "NDMH", the version byte 1, len(sig) as a
// uvarint, seed as 8 bytes little-endian and each slot as 4 bytes
// little-endian: 13 to 22 bytes plus 4 per slot. It is valid to pass a nil
// dst; AppendEncoding allocates only if dst lacks room.
func AppendEncoding(dst []byte, seed uint64, sig []uint32) []byte {
	dst = append(dst, magic...)
	dst = append(dst, encodingVersion)
	dst = binary.AppendUvarint(dst, uint64(len(sig)))
	dst = binary.LittleEndian.AppendUint64(dst, seed)
	for _, v := range sig {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return dst
}

// Decode decodes one encoding from b, appending the slots to dst. It returns
// the extended dst, the seed and the number of bytes consumed.
//
// Bytes after the encoding are ignored, so encodings may be concatenated. On
// error Decode returns dst unchanged, 0, 0 and an error wrapping ErrCorrupt
// (short or garbled input, including a non-minimal slot count) or ErrVersion
// (a version this package does not know).
func Decode(dst []uint32, b []byte) (sig []uint32, seed uint64, n int, err error) {
	if len(b) < len(magic)+1 {
		return dst, 0, 0, fmt.Errorf("%w: minhash signature encoding: %d bytes, shorter than the header", ErrCorrupt, len(b))
	}
	if string(b[:len(magic)]) != magic {
		return dst, 0, 0, fmt.Errorf("%w: minhash signature encoding: bad magic %q", ErrCorrupt, b[:len(magic)])
	}
	if v := b[len(magic)]; v != encodingVersion {
		return dst, 0, 0, fmt.Errorf("%w: minhash signature encoding: version %d (want %d)", ErrVersion, v, encodingVersion)
	}
	n = len(magic) + 1
	slots, w := binary.Uvarint(b[n:])
	if w <= 0 {
		return dst, 0, 0, fmt.Errorf("%w: minhash signature encoding: bad slot count", ErrCorrupt)
	}
	if w != uvarintLen(slots) {
		return dst, 0, 0, fmt.Errorf("%w: minhash signature encoding: non-minimal slot count", ErrCorrupt)
	}
	n += w
	if len(b)-n < 8 {
		return dst, 0, 0, fmt.Errorf("%w: minhash signature encoding: truncated seed", ErrCorrupt)
	}
	seed = binary.LittleEndian.Uint64(b[n:])
	n += 8
	if have := uint64(len(b) - n); slots > have/4 {
		return dst, 0, 0, fmt.Errorf("%w: minhash signature encoding: %d slots need %d bytes, have %d", ErrCorrupt, slots, 4*slots, have)
	}
	body := b[n : n+4*int(slots)]
	n += len(body)
	sig = slices.Grow(dst, int(slots))
	for len(body) >= 4 {
		sig = append(sig, binary.LittleEndian.Uint32(body))
		body = body[4:]
	}
	return sig, seed, n, nil
}

// uvarintLen returns the length of the minimal uvarint encoding of v.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
