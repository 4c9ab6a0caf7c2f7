//go:build amd64 && !purego

#include "textflag.h"

// COUNT_Z0_Z1 leaves in the low lane of X0 the number of bits set in Z0
// and Z1 (VPOPCNTQ per 64-bit lane, then the lanes summed); Z1 is
// clobbered.
#define COUNT_Z0_Z1 \
	VPOPCNTQ      Z0, Z0; \
	VPOPCNTQ      Z1, Z1; \
	VPADDQ        Z1, Z0, Z0; \
	VEXTRACTI64X4 $1, Z0, Y1; \
	VPADDQ        Y1, Y0, Y0; \
	VEXTRACTI128  $1, Y0, X1; \
	VPADDQ        X1, X0, X0; \
	VPSHUFD       $0x4e, X0, X1; \
	VPADDQ        X1, X0, X0

// func xorCountAVX512(a, b *Bitmap) int
//
// popcount(a XOR b) over the 1024 bits: two 64-byte halves XOR-ed,
// counted per 64-bit lane (VPOPCNTQ), and the lanes summed.
TEXT ·xorCountAVX512(SB), NOSPLIT, $0-24
	MOVQ          a+0(FP), SI
	MOVQ          b+8(FP), DI
	VMOVDQU64     (SI), Z0
	VMOVDQU64     64(SI), Z1
	VPXORQ        (DI), Z0, Z0
	VPXORQ        64(DI), Z1, Z1
	COUNT_Z0_Z1
	VMOVQ         X0, AX
	VZEROUPPER
	MOVQ          AX, ret+16(FP)
	RET

// The maxIntersections kernels' registers: SI a, DI bms, R13 sizes, R8
// ys, CX n, R14 na, R15 limit, R9 out, R10 i; R11 and R12 temporaries.

// PREFETCH_AHEAD prefetches the bitmap of ys[i+8], if there is one below
// limit (an out-of-range y is checked when its turn comes), then goes on
// at label next.
#define PREFETCH_AHEAD(next) \
	LEAQ       8(R10), R11; \
	CMPQ       R11, CX; \
	JGE        next; \
	MOVLQSX    (R8)(R11*4), R12; \
	CMPQ       R12, R15; \
	JAE        next; \
	SHLQ       $7, R12; \
	PREFETCHT0 (DI)(R12*1); \
	PREFETCHT0 64(DI)(R12*1)

// STORE_BOUND stores to out[i] MaxIntersection's bound from AX, the
// differing bits, and BX, nb: min((na+nb-AX)/2, na, nb), the halving
// truncated toward zero as Go's division. It clobbers DX and R11.
#define STORE_BOUND \
	LEAQ    (R14)(BX*1), DX; \
	SUBQ    AX, DX; \
	MOVQ    DX, R11; \
	SHRQ    $63, R11; \
	ADDQ    R11, DX; \
	SARQ    $1, DX; \
	CMPQ    DX, R14; \
	CMOVQGT R14, DX; \
	CMPQ    DX, BX; \
	CMOVQGT BX, DX; \
	MOVL    DX, (R9)(R10*4)

// func maxIntersectionsAVX512(a, bms *Bitmap, sizes, ys *int32, n, na, limit int, out *int32) int
//
// out[i] = MaxIntersection(a, &bms[y], na, sizes[y]) for y = ys[i], i < n:
// a held in two vectors, each bitmap XOR-ed from memory and its differing
// bits counted as xorCountAVX512 counts them, the bound computed as
// MaxIntersection does (the halving truncated toward zero, as Go's
// division), the bitmap 8 places ahead prefetched (the ys ascend with
// gaps, which the hardware prefetcher does not follow). It stops at the
// first y >= limit (unsigned) and returns how many it wrote.
TEXT ·maxIntersectionsAVX512(SB), NOSPLIT, $0-72
	MOVQ      a+0(FP), SI
	MOVQ      bms+8(FP), DI
	MOVQ      sizes+16(FP), R13
	MOVQ      ys+24(FP), R8
	MOVQ      n+32(FP), CX
	MOVQ      na+40(FP), R14
	MOVQ      limit+48(FP), R15
	MOVQ      out+56(FP), R9
	VMOVDQU64 (SI), Z2
	VMOVDQU64 64(SI), Z3
	XORQ      R10, R10 // i
	TESTQ     CX, CX
	JLE       mdone

mloop:
	PREFETCH_AHEAD(mcount)

mcount:
	MOVLQSX       (R8)(R10*4), R12
	CMPQ          R12, R15
	JAE           mdone
	MOVLQSX       (R13)(R12*4), BX // nb
	SHLQ          $7, R12
	VPXORQ        (DI)(R12*1), Z2, Z0
	VPXORQ        64(DI)(R12*1), Z3, Z1
	COUNT_Z0_Z1
	VMOVQ         X0, AX          // differing bits
	STORE_BOUND
	INCQ          R10
	CMPQ          R10, CX
	JL            mloop

mdone:
	VZEROUPPER
	MOVQ R10, ret+64(FP)
	RET

// XORPOP adds to acc the bits set in word off of a (SI) XOR the same word
// of the bitmap at DI+R12; it clobbers R11.
#define XORPOP(off, acc) \
	MOVQ    off(SI), R11; \
	XORQ    off(DI)(R12*1), R11; \
	POPCNTQ R11, R11; \
	ADDQ    R11, acc

// func maxIntersectionsPOPCNT(a, bms *Bitmap, sizes, ys *int32, n, na, limit int, out *int32) int
//
// maxIntersectionsAVX512 for CPUs without AVX-512 VPOPCNTDQ: the
// differing bits counted a word at a time (XOR, POPCNT) into two sums,
// the bitmap 8 places ahead prefetched, the same bounds and stop.
TEXT ·maxIntersectionsPOPCNT(SB), NOSPLIT, $0-72
	MOVQ      a+0(FP), SI
	MOVQ      bms+8(FP), DI
	MOVQ      sizes+16(FP), R13
	MOVQ      ys+24(FP), R8
	MOVQ      n+32(FP), CX
	MOVQ      na+40(FP), R14
	MOVQ      limit+48(FP), R15
	MOVQ      out+56(FP), R9
	XORQ      R10, R10 // i
	TESTQ     CX, CX
	JLE       pdone

ploop:
	PREFETCH_AHEAD(pcount)

pcount:
	MOVLQSX (R8)(R10*4), R12
	CMPQ    R12, R15
	JAE     pdone
	MOVLQSX (R13)(R12*4), BX // nb
	SHLQ    $7, R12
	XORQ    AX, AX
	XORQ    DX, DX
	XORPOP(0, AX)
	XORPOP(8, DX)
	XORPOP(16, AX)
	XORPOP(24, DX)
	XORPOP(32, AX)
	XORPOP(40, DX)
	XORPOP(48, AX)
	XORPOP(56, DX)
	XORPOP(64, AX)
	XORPOP(72, DX)
	XORPOP(80, AX)
	XORPOP(88, DX)
	XORPOP(96, AX)
	XORPOP(104, DX)
	XORPOP(112, AX)
	XORPOP(120, DX)
	ADDQ    DX, AX          // differing bits
	STORE_BOUND
	INCQ    R10
	CMPQ    R10, CX
	JL      ploop

pdone:
	MOVQ R10, ret+64(FP)
	RET
