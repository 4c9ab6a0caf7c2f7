//go:build !((linux || darwin || freebsd || netbsd || openbsd) && (amd64 || arm64 || riscv64 || ppc64le || s390x || loong64))

package neardup

// newSigArena returns nil: on this platform signatures are allocated per
// chunk and copied once.
func newSigArena(slots int) *sigArena { return nil }

func (a *sigArena) release(from, to int) {}
