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
