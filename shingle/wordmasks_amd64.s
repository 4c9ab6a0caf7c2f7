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

	MOVL         $0x20202020, AX
	MOVQ         AX, X10
	VPBROADCASTD X10, Y10
	MOVL         $0xd0d0d0d0, AX // -'0'
	MOVQ         AX, X11
	VPBROADCASTD X11, Y11
	MOVL         $0x9f9f9f9f, AX // -'a'
	MOVQ         AX, X12
	VPBROADCASTD X12, Y12
	MOVL         $0x09090909, AX
	MOVQ         AX, X13
	VPBROADCASTD X13, Y13
	MOVL         $0x19191919, AX
	MOVQ         AX, X14
	VPBROADCASTD X14, Y14

	TESTQ CX, CX
	JLE   ascii2

loop2:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VPOR      Y0, Y1, Y2
	VPMOVMSKB Y2, AX
	TESTL     AX, AX
	JNZ       nonascii2
	VPADDB    Y11, Y0, Y2
	VPMINUB   Y13, Y2, Y3
	VPCMPEQB  Y3, Y2, Y2 // digit
	VPOR      Y10, Y0, Y4
	VPADDB    Y12, Y4, Y4
	VPMINUB   Y14, Y4, Y5
	VPCMPEQB  Y5, Y4, Y4 // letter
	VPOR      Y4, Y2, Y2
	VPMOVMSKB Y2, AX
	VPADDB    Y11, Y1, Y6
	VPMINUB   Y13, Y6, Y7
	VPCMPEQB  Y7, Y6, Y6
	VPOR      Y10, Y1, Y8
	VPADDB    Y12, Y8, Y8
	VPMINUB   Y14, Y8, Y9
	VPCMPEQB  Y9, Y8, Y8
	VPOR      Y8, Y6, Y6
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
