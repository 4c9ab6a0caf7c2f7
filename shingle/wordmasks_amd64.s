//go:build amd64 && !purego

#include "textflag.h"

// func alnumMasksAVX512(p *byte, blocks int, out *uint64) bool
//
// For each of blocks 64-byte blocks from p, the mask of its ASCII letters
// and digits (bit k for byte k: the byte minus '0' below 10, or the byte
// | 0x20 minus 'a' below 26, unsigned; bytes >= 0x80 are neither) is
// stored to out. It returns false, at the first block with a byte >=
// 0x80, without storing that block's mask.
TEXT ·alnumMasksAVX512(SB), NOSPLIT, $0-25
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI

	MOVL         $0x20202020, AX
	VPBROADCASTD AX, Z20
	MOVL         $0xd0d0d0d0, AX // -'0'
	VPBROADCASTD AX, Z21
	MOVL         $0x9f9f9f9f, AX // -'a'
	VPBROADCASTD AX, Z22
	MOVL         $0x0a0a0a0a, AX
	VPBROADCASTD AX, Z23
	MOVL         $0x1a1a1a1a, AX
	VPBROADCASTD AX, Z24

	TESTQ CX, CX
	JLE   ascii

loop:
	VMOVDQU8 (SI), Z0
	VPMOVB2M Z0, K1
	KORTESTQ K1, K1
	JNZ      nonascii
	VPADDB   Z21, Z0, Z1
	VPCMPUB  $1, Z23, Z1, K2 // digit
	VPORD    Z20, Z0, Z2
	VPADDB   Z22, Z2, Z2
	VPCMPUB  $1, Z24, Z2, K3 // letter
	KORQ     K2, K3, K2
	KMOVQ    K2, (DI)
	ADDQ     $64, SI
	ADDQ     $8, DI
	DECQ     CX
	JNZ      loop

ascii:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

nonascii:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET

// BCAST32 sets every dword of the YMM register y (through x, its XMM
// half) to the constant c; it clobbers AX.
#define BCAST32(c, x, y) \
	MOVL         c, AX; \
	MOVQ         AX, x; \
	VPBROADCASTD x, y

// ALNUM32 sets each byte of d to all ones where the byte of x is an ASCII
// letter or digit (x < 0x80), else to zero, with the constants of
// alnumMasksAVX2 in Y10-Y14: d = x - '0', digit where min(d, 9) == d;
// l = (x | 0x20) - 'a', letter where min(l, 25) == l. dm, l and lm are
// clobbered.
#define ALNUM32(x, d, dm, l, lm) \
	VPADDB   Y11, x, d; \
	VPMINUB  Y13, d, dm; \
	VPCMPEQB dm, d, d; \
	VPOR     Y10, x, l; \
	VPADDB   Y12, l, l; \
	VPMINUB  Y14, l, lm; \
	VPCMPEQB lm, l, l; \
	VPOR     l, d, d

// func alnumMasksAVX2(p *byte, blocks int, out *uint64) bool
//
// alnumMasksAVX512 for CPUs with AVX2 only, 32 bytes a register: AVX2
// has no unsigned byte compare, so d <= 9 (d = byte - '0') is tested as
// min(d, 9) == d (VPMINUB, VPCMPEQB) and likewise l <= 25 for
// l = (byte | 0x20) - 'a'; VPMOVMSKB gathers each half's 32 bits, and of
// the raw bytes their top bits (a byte >= 0x80).
TEXT ·alnumMasksAVX2(SB), NOSPLIT, $0-25
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI

	BCAST32($0x20202020, X10, Y10)
	BCAST32($0xd0d0d0d0, X11, Y11) // -'0'
	BCAST32($0x9f9f9f9f, X12, Y12) // -'a'
	BCAST32($0x09090909, X13, Y13)
	BCAST32($0x19191919, X14, Y14)

	TESTQ CX, CX
	JLE   ascii2

loop2:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VPOR      Y0, Y1, Y2
	VPMOVMSKB Y2, AX
	TESTL     AX, AX
	JNZ       nonascii2
	ALNUM32(Y0, Y2, Y3, Y4, Y5)
	VPMOVMSKB Y2, AX
	ALNUM32(Y1, Y6, Y7, Y8, Y9)
	VPMOVMSKB Y6, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, (DI)
	ADDQ      $64, SI
	ADDQ      $8, DI
	DECQ      CX
	JNZ       loop2

ascii2:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

nonascii2:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET
