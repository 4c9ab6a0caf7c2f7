//go:build amd64 && !purego

// Block intersection of two sorted, duplicate-free uint64 slices.
//
// Each step loads four elements of a (va) and four of b (vb) and compares
// va with vb and its three rotations (VPERMQ), so every a-lane meets every
// b-lane; OR-ing the four VPCMPEQQ results and counting the set lanes
// (VMOVMSKPD, POPCNT) gives the matches of this pair of blocks (each a-lane
// matches at most one b-lane because b has no duplicates). Then the block
// with the smaller last element advances (both on a tie). A block is only
// retired once every block that can hold its matches has been compared with
// it, so each match is counted exactly once. The loop stops when either
// side has fewer than four elements left, before comparing that pair; the
// caller finishes with scalar code from the returned positions.
//
// It also stops when the count so far plus what is left of the shorter
// remainder is below need: a match not yet counted pairs an element of
// a[i:] with one of b[j:] (earlier blocks are retired) and each element
// matches at most once, so the final count could not reach need. need <= 0
// never stops it early.

#include "textflag.h"

// ENTRY loads the arguments: a in SI (R8 elements), b in DI (R9), and
// zeroes the count (AX) and the positions i (CX) and j (DX).
#define ENTRY \
	MOVQ a_base+0(FP), SI; \
	MOVQ a_len+8(FP), R8; \
	MOVQ b_base+24(FP), DI; \
	MOVQ b_len+32(FP), R9; \
	XORQ AX, AX; \
	XORQ CX, CX; \
	XORQ DX, DX

// BOUND(w) compares with need the most the count can reach, AX plus the
// shorter of what is left of a (R8-CX, R8 being len(a)-w) and of b
// (R9-DX) plus w: JLT after it stops the loop. It uses R10 and R11.
#define BOUND(w) \
	MOVQ R8, R10; \
	SUBQ CX, R10; \
	MOVQ R9, R11; \
	SUBQ DX, R11; \
	CMPQ R10, R11; \
	CMOVQGT R11, R10; \
	LEAQ w(AX)(R10*1), R10; \
	CMPQ R10, need+48(FP)

// ADVANCE(w) moves past the block with the smaller last element, both on a
// tie: R10 and R11 hold the last elements of a's block and b's (unsigned);
// CX (i) gains w when R10 <= R11, DX (j) when R10 >= R11. It uses R12 and
// R13.
#define ADVANCE(w) \
	LEAQ w(CX), R12; \
	LEAQ w(DX), R13; \
	CMPQ R10, R11; \
	CMOVQLS R12, CX; \
	CMOVQCC R13, DX

// RETURN stores the count (AX) and the positions i (CX) and j (DX).
#define RETURN \
	VZEROUPPER; \
	MOVQ AX, count+56(FP); \
	MOVQ CX, i+64(FP); \
	MOVQ DX, j+72(FP); \
	RET

// func intersectBlocksAVX2(a, b []uint64, need int) (count, i, j int)
TEXT ·intersectBlocksAVX2(SB), NOSPLIT, $0-80
	ENTRY
	SUBQ $4, R8                  // last block start in a
	SUBQ $4, R9                  // last block start in b

loop:
	CMPQ CX, R8
	JGT  done
	CMPQ DX, R9
	JGT  done
	BOUND(4)
	JLT  done
	VMOVDQU (SI)(CX*8), Y0       // va
	VMOVDQU (DI)(DX*8), Y1       // vb
	VPCMPEQQ Y1, Y0, Y2
	VPERMQ $0x39, Y1, Y3         // vb rotated by one lane
	VPCMPEQQ Y3, Y0, Y4
	VPOR Y4, Y2, Y2
	VPERMQ $0x4e, Y1, Y3         // by two
	VPCMPEQQ Y3, Y0, Y4
	VPOR Y4, Y2, Y2
	VPERMQ $0x93, Y1, Y3         // by three
	VPCMPEQQ Y3, Y0, Y4
	VPOR Y4, Y2, Y2
	VMOVMSKPD Y2, BX
	POPCNTL BX, BX
	ADDQ BX, AX
	MOVQ 24(SI)(CX*8), R10       // last of va
	MOVQ 24(DI)(DX*8), R11       // last of vb
	ADVANCE(4)
	JMP  loop

done:
	RETURN

// Block intersection with AVX-512: the same loop as intersectBlocksAVX2 with
// blocks of eight. Each step loads eight elements of a (Z0) and compares
// them with each of b's eight, broadcast from memory, so no shuffles are
// needed: "not equal" (VPCMPQ predicate 4) under the mask of the compares
// before it, in two chains of four, leaves the lanes that match none of
// b's eight; 8 minus their count is the step's matches. (Equality masks
// or-ed with KORW took seven mask operations a step: 2-4% slower.)
// The advance from the two blocks' last elements is the loop's dependency
// chain, as in the AVX2 kernel; blocks of eight halve its length.

// func intersectBlocksAVX512(a, b []uint64, need int) (count, i, j int)
TEXT ·intersectBlocksAVX512(SB), NOSPLIT, $0-80
	ENTRY
	SUBQ $8, R8                  // last block start in a
	SUBQ $8, R9                  // last block start in b

loop8:
	CMPQ CX, R8
	JGT  done8
	CMPQ DX, R9
	JGT  done8
	BOUND(8)
	JLT  done8
	LEAQ (DI)(DX*8), R12         // &b[j]
	VMOVDQU64 (SI)(CX*8), Z0     // va
	VPCMPQ.BCST $4, (R12), Z0, K1
	VPCMPQ.BCST $4, 8(R12), Z0, K1, K1
	VPCMPQ.BCST $4, 16(R12), Z0, K1, K1
	VPCMPQ.BCST $4, 24(R12), Z0, K1, K1
	VPCMPQ.BCST $4, 32(R12), Z0, K2
	VPCMPQ.BCST $4, 40(R12), Z0, K2, K2
	VPCMPQ.BCST $4, 48(R12), Z0, K2, K2
	VPCMPQ.BCST $4, 56(R12), Z0, K2, K2
	KANDW K2, K1, K1
	KMOVW K1, BX
	POPCNTL BX, BX
	SUBQ BX, AX
	ADDQ $8, AX
	MOVQ 56(SI)(CX*8), R10       // last of va
	MOVQ 56(R12), R11            // last of vb
	ADVANCE(8)
	JMP  loop8

done8:
	RETURN
