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
	LEAQ       8(R10), R11
	CMPQ       R11, CX
	JGE        mcount
	MOVLQSX    (R8)(R11*4), R12
	CMPQ       R12, R15
	JAE        mcount // checked when its turn comes
	SHLQ       $7, R12
	PREFETCHT0 (DI)(R12*1)
	PREFETCHT0 64(DI)(R12*1)

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
	LEAQ          (R14)(BX*1), DX // na + nb
	SUBQ          AX, DX
	MOVQ          DX, R11
	SHRQ          $63, R11
	ADDQ          R11, DX
	SARQ          $1, DX          // (na+nb-c)/2
	CMPQ          DX, R14
	CMOVQGT       R14, DX
	CMPQ          DX, BX
	CMOVQGT       BX, DX
	MOVL          DX, (R9)(R10*4)
	INCQ          R10
	CMPQ          R10, CX
	JL            mloop

mdone:
	VZEROUPPER
	MOVQ R10, ret+64(FP)
	RET
