//go:build amd64 && !purego

#include "textflag.h"

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
	VPOPCNTQ      Z0, Z0
	VPOPCNTQ      Z1, Z1
	VPADDQ        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDQ        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDQ        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDQ        X1, X0, X0
	VMOVQ         X0, AX
	VZEROUPPER
	MOVQ          AX, ret+16(FP)
	RET
