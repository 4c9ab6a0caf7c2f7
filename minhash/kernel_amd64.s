//go:build amd64 && !purego

// AVX2 MinHash kernel.
//
// Slot i of a signature is hi32(min over x of v_i(x)), v_i(x) = a_i*x + b_i
// mod 2^64. Since hi32 is monotone, that equals min over x of hi32(v_i(x)),
// so the kernel only ever forms the high halves and takes unsigned 32-bit
// minima (VPMINUD); AVX2 has neither a 64-bit multiply-low nor an unsigned
// 64-bit min, and this way needs neither. Writing aL, aH, xL, xH for the
// 32-bit halves:
//
//	a*x + b = aL*xL + b + ((aL*xH + aH*xL) << 32)        (mod 2^64)
//	hi32(a*x + b) = hi32(aL*xL + b) + aL*xH + aH*xL      (mod 2^32)
//
// The first term needs the full 64-bit product aL*xL (VPMULUDQ) plus b
// (VPADDQ), whose carry into the high half matters; the cross terms only
// their low 32 bits (VPMULLD), added with 32-bit lanes (VPADDD).
//
// One group of 8 slots lives in a YMM register as 8 dwords. VPMULUDQ uses
// the even dwords only, so the even slots (0,2,4,6) and the odd slots
// (1,3,5,7) each take one VPMULUDQ and one VPADDQ in 64-bit lanes; shifting
// the even sums right by 32 and blending in the odd sums' high dwords
// (VPBLENDD 0xAA) gives the 8 values hi32(aL*xL + b) in slot order. Per set
// element x: 2 broadcast loads (xL, xH), 2 VPMULUDQ, 2 VPMULLD, 2 VPADDQ,
// 1 VPSRLQ, 1 VPBLENDD, 2 VPADDD and 1 VPMINUD for 8 slot updates. The loops
// are interchanged: two groups' constants and minima stay in registers
// (all 16 YMM registers) while the whole set streams past, then their 16
// minima are stored as the groups' output slots; a last odd group goes
// alone. Two groups a pass share the broadcasts and the loop's own
// instructions: 12-15% faster than one on an AMD Zen 3, where the four
// multiplications of a group are the floor. The result is bit-identical to
// the pure-Go kernel.

#include "textflag.h"

// func minhashAVX2(consts *uint32, groups int, set []uint64, out *uint32)
//
// Register use: Y0 lo(a) dwords, Y1 lo(a) odd slots as qwords, Y2 hi(a)
// dwords, Y3 b even slots, Y4 b odd slots, Y5 running minima, Y6 xL
// broadcast, Y7 xH broadcast, Y8-Y11 temporaries, Y15 all ones.
TEXT ·minhashAVX2(SB), NOSPLIT, $0-48
	MOVQ consts+0(FP), AX
	MOVQ groups+8(FP), CX
	MOVQ set_base+16(FP), SI
	MOVQ set_len+24(FP), DX
	MOVQ out+40(FP), DI
	TESTQ CX, CX
	JZ   done
	LEAQ (SI)(DX*8), DX           // DX = end of set
	CMPQ CX, $2
	JLT  single

	// Two groups a pass over the set while two are left: the broadcasts
	// and the loop's own instructions are shared by 16 slot updates.
	// Y0-Y4 and Y5 are the first group's constants and minima, Y8-Y12 and
	// Y13 the second's, Y14 and Y15 the temporaries.
pair:
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VMOVDQU 128(AX), Y4
	VMOVDQU 160(AX), Y8
	VMOVDQU 192(AX), Y9
	VMOVDQU 224(AX), Y10
	VMOVDQU 256(AX), Y11
	VMOVDQU 288(AX), Y12
	VPCMPEQD Y5, Y5, Y5
	VPCMPEQD Y13, Y13, Y13
	MOVQ SI, BX
	CMPQ BX, DX
	JEQ  pairstore

pairloop:
	VPBROADCASTD 0(BX), Y6
	VPBROADCASTD 4(BX), Y7
	VPMULUDQ Y6, Y0, Y14
	VPMULUDQ Y6, Y1, Y15
	VPADDQ   Y3, Y14, Y14
	VPADDQ   Y4, Y15, Y15
	VPSRLQ   $32, Y14, Y14
	VPBLENDD $0xAA, Y15, Y14, Y14
	VPMULLD  Y7, Y0, Y15
	VPADDD   Y15, Y14, Y14
	VPMULLD  Y6, Y2, Y15
	VPADDD   Y15, Y14, Y14
	VPMINUD  Y14, Y5, Y5
	VPMULUDQ Y6, Y8, Y14
	VPMULUDQ Y6, Y9, Y15
	VPADDQ   Y11, Y14, Y14
	VPADDQ   Y12, Y15, Y15
	VPSRLQ   $32, Y14, Y14
	VPBLENDD $0xAA, Y15, Y14, Y14
	VPMULLD  Y7, Y8, Y15
	VPADDD   Y15, Y14, Y14
	VPMULLD  Y6, Y10, Y15
	VPADDD   Y15, Y14, Y14
	VPMINUD  Y14, Y13, Y13
	ADDQ     $8, BX
	CMPQ     BX, DX
	JNE      pairloop

pairstore:
	VMOVDQU Y5, (DI)
	VMOVDQU Y13, 32(DI)
	ADDQ    $320, AX
	ADDQ    $64, DI
	SUBQ    $2, CX
	CMPQ    CX, $2
	JGE     pair
	TESTQ   CX, CX
	JZ      vdone

single:
	VPCMPEQD Y15, Y15, Y15        // all ones: the minimum of the empty set

group:
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VMOVDQU 128(AX), Y4
	VMOVDQU Y15, Y5
	MOVQ SI, BX
	CMPQ BX, DX
	JEQ  store

loop:
	VPBROADCASTD 0(BX), Y6        // xL in every dword
	VPBROADCASTD 4(BX), Y7        // xH in every dword
	VPMULUDQ Y6, Y0, Y8           // aL*xL, even slots
	VPMULUDQ Y6, Y1, Y9           // aL*xL, odd slots
	VPADDQ   Y3, Y8, Y8           // + b
	VPADDQ   Y4, Y9, Y9
	VPSRLQ   $32, Y8, Y8          // even slots' high halves to even dwords
	VPBLENDD $0xAA, Y9, Y8, Y8    // odd slots' high halves in odd dwords
	VPMULLD  Y7, Y0, Y10          // lo32(aL*xH)
	VPMULLD  Y6, Y2, Y11          // lo32(aH*xL)
	VPADDD   Y10, Y8, Y8
	VPADDD   Y11, Y8, Y8          // hi32(a*x + b) for the 8 slots
	VPMINUD  Y8, Y5, Y5
	ADDQ     $8, BX
	CMPQ     BX, DX
	JNE      loop

store:
	VMOVDQU Y5, (DI)
	ADDQ    $160, AX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     group

vdone:
	VZEROUPPER

done:
	RET


// func countEqualAVX2(a, b *uint32, blocks int) int
//
// Counts equal dwords of a and b, 8 at a time: VPCMPEQD sets equal lanes to
// all ones, VMOVMSKPS packs their sign bits into an 8-bit mask, POPCNT
// counts it.
TEXT ·countEqualAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ blocks+16(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JZ   ceqdone

ceqloop:
	VMOVDQU (SI), Y0
	VPCMPEQD (DI), Y0, Y0
	VMOVMSKPS Y0, BX
	POPCNTL BX, BX
	ADDQ BX, AX
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  ceqloop
	VZEROUPPER

ceqdone:
	MOVQ AX, ret+24(FP)
	RET


// AVX-512 MinHash kernel (AVX512F + AVX512DQ).
//
// AVX-512DQ has the 64-bit multiply-low (VPMULLQ) and AVX-512F the unsigned
// 64-bit minimum (VPMINUQ), so a slot update is the definition itself:
// v = a*x + b (VPMULLQ, VPADDQ) and m = min(m, v) (VPMINUQ), 8 slots per
// ZMM register, with the top 32 bits of each minimum taken once at the end
// (VPSRLQ, then VPMOVQD narrows 8 qwords to 8 dwords in memory). The
// constants are the Hasher's a and b arrays as they are. Four groups of 8
// slots (32 slots) share each pass over the set, so that each broadcast
// element feeds 4 independent multiply-add-min chains; leftover groups go
// one at a time. Bit-identical to the pure-Go kernel.

// func minhashAVX512(a, b *uint64, groups int, set []uint64, out *uint32)
//
// Register use: Z0-Z3 a, Z4-Z7 b, Z8-Z11 running minima of the 4 groups,
// Z12 x broadcast, Z13-Z16 temporaries, Z31 all ones.
TEXT ·minhashAVX512(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), R8
	MOVQ groups+16(FP), CX
	MOVQ set_base+24(FP), SI
	MOVQ set_len+32(FP), DX
	MOVQ out+48(FP), DI
	LEAQ (SI)(DX*8), DX           // DX = end of set
	VPTERNLOGQ $0xff, Z31, Z31, Z31 // all ones: the minimum of the empty set
	CMPQ CX, $4
	JLT  one

four:
	VMOVDQU64 0(AX), Z0
	VMOVDQU64 64(AX), Z1
	VMOVDQU64 128(AX), Z2
	VMOVDQU64 192(AX), Z3
	VMOVDQU64 0(R8), Z4
	VMOVDQU64 64(R8), Z5
	VMOVDQU64 128(R8), Z6
	VMOVDQU64 192(R8), Z7
	VMOVDQA64 Z31, Z8
	VMOVDQA64 Z31, Z9
	VMOVDQA64 Z31, Z10
	VMOVDQA64 Z31, Z11
	MOVQ SI, BX
	CMPQ BX, DX
	JEQ  fourstore

fourloop:
	VPBROADCASTQ (BX), Z12
	VPMULLQ Z12, Z0, Z13
	VPMULLQ Z12, Z1, Z14
	VPMULLQ Z12, Z2, Z15
	VPMULLQ Z12, Z3, Z16
	VPADDQ  Z4, Z13, Z13
	VPADDQ  Z5, Z14, Z14
	VPADDQ  Z6, Z15, Z15
	VPADDQ  Z7, Z16, Z16
	VPMINUQ Z13, Z8, Z8
	VPMINUQ Z14, Z9, Z9
	VPMINUQ Z15, Z10, Z10
	VPMINUQ Z16, Z11, Z11
	ADDQ $8, BX
	CMPQ BX, DX
	JNE  fourloop

fourstore:
	VPSRLQ  $32, Z8, Z8
	VPSRLQ  $32, Z9, Z9
	VPSRLQ  $32, Z10, Z10
	VPSRLQ  $32, Z11, Z11
	VPMOVQD Z8, 0(DI)
	VPMOVQD Z9, 32(DI)
	VPMOVQD Z10, 64(DI)
	VPMOVQD Z11, 96(DI)
	ADDQ $256, AX
	ADDQ $256, R8
	ADDQ $128, DI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  four

one:
	TESTQ CX, CX
	JZ    done512

onegroup:
	VMOVDQU64 0(AX), Z0
	VMOVDQU64 0(R8), Z4
	VMOVDQA64 Z31, Z8
	MOVQ SI, BX
	CMPQ BX, DX
	JEQ  onestore

oneloop:
	VPBROADCASTQ (BX), Z12
	VPMULLQ Z12, Z0, Z13
	VPADDQ  Z4, Z13, Z13
	VPMINUQ Z13, Z8, Z8
	ADDQ $8, BX
	CMPQ BX, DX
	JNE  oneloop

onestore:
	VPSRLQ  $32, Z8, Z8
	VPMOVQD Z8, 0(DI)
	ADDQ $64, AX
	ADDQ $64, R8
	ADDQ $32, DI
	DECQ CX
	JNZ  onegroup

done512:
	VZEROUPPER
	RET
