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

// STEP(a, b, i, j) moves the merge of the slices at a and b (positions
// i and j) past the block of eight whose last element is smaller, both
// when they are equal (intersect2VP2 and FINISH). It uses R10 and R11.
#define STEP(a, b, i, j) \
	MOVQ 56(a)(i*8), R10; \
	MOVQ 56(b)(j*8), R11; \
	CMPQ R10, R11; \
	LEAQ 8(i), R10; \
	LEAQ 8(j), R11; \
	CMOVQLS R10, i; \
	CMOVQCC R11, j

// RETURN stores the count (AX) and the positions i (CX) and j (DX).
#define RETURN \
	VZEROUPPER; \
	MOVQ AX, count+56(FP); \
	MOVQ CX, i+64(FP); \
	MOVQ DX, j+72(FP); \
	RET

// LENGTH(arg, off) keeps a slice's length, the argument arg, at off(SP)
// and adds it to R11 (intersect2VP2's prologue). It uses R10.
#define LENGTH(arg, off) \
	MOVQ arg, R10; \
	MOVQ R10, off(SP); \
	ADDQ R10, R11

// CANREACH jumps to stop when intersect2VP2's count can no longer reach
// need (see there; its registers). It uses R10.
#define CANREACH(stop) \
	LEAQ (AX)(AX*1), R10; \
	SUBQ CX, R10; \
	SUBQ DX, R10; \
	SUBQ R12, R10; \
	SUBQ R13, R10; \
	CMPQ R10, 32(SP); \
	JLT  stop

// BLOCK(base, pos, lenoff, vec, tmp, kmask, last, next) loads into vec
// the block at pos of the slice at base (length at lenoff(SP), at least
// eight, pos < length): its n = min(8, length-pos) elements, as the last
// eight elements up to pos+n, the lanes of the 8-n before pos replaced by
// the last of them. kmask gets the n lanes, last the last element and
// next pos+n. The eight loaded are in the slice: a load under a mask
// whose empty lanes cross into the next page took about 270 ns more on
// this project's machine. It uses BX.
#define BLOCK(base, pos, lenoff, vec, tmp, kmask, last, next) \
	MOVQ lenoff(SP), next; \
	LEAQ 8(pos), BX; \
	CMPQ next, BX; \
	CMOVQGT BX, next; \
	MOVQ next, last; \
	SUBQ pos, last; \
	MOVQ $0xff00, BX; \
	SHRXQ last, BX, BX; \
	KMOVB BX, kmask; \
	MOVQ -8(base)(next*8), last; \
	VPBROADCASTQ last, vec; \
	VMOVDQU64 -64(base)(next*8), tmp; \
	VPBLENDMQ tmp, vec, kmask, vec

// FINISH(a, b, i, j, la, lb, self, part, next) takes the chain of the
// slices at a and b (lengths at la(SP) and lb(SP), positions i and j) to
// its end, then goes to next: while both sides have a full block, a step
// of intersectBlocksAVX512's loop with VP2INTERSECTQ for its eight
// compares; else a step with BLOCK's blocks, a's empty
// lanes masked out of the count. self and part name its two labels. It
// uses BX, R10, R11, R14, R15, Z0-Z3, K2, K5 and K6.
#define FINISH(a, b, i, j, la, lb, self, part, next) \
self: \
	CMPQ i, la(SP); \
	JGE  next; \
	CMPQ j, lb(SP); \
	JGE  next; \
	CANREACH(stop2); \
	LEAQ 8(i), R10; \
	CMPQ R10, la(SP); \
	JGT  part; \
	LEAQ 8(j), R11; \
	CMPQ R11, lb(SP); \
	JGT  part; \
	VMOVDQU64 (a)(i*8), Z0; \
	VMOVDQU64 (b)(j*8), Z1; \
	VP2INTERSECT_Z1_Z0_K2; \
	KMOVB K2, BX; \
	POPCNTL BX, BX; \
	ADDQ BX, AX; \
	STEP(a, b, i, j); \
	JMP  self; \
part: \
	BLOCK(a, i, la, Z0, Z2, K5, R14, R10); \
	BLOCK(b, j, lb, Z1, Z3, K6, R15, R11); \
	VP2INTERSECT_Z1_Z0_K2; \
	KANDB K5, K2, K2; \
	KMOVB K2, BX; \
	POPCNTL BX, BX; \
	ADDQ BX, AX; \
	CMPQ R14, R15; \
	CMOVQLS R10, i; \
	CMOVQCC R11, j; \
	JMP  self

// VP2INTERSECTQ (AVX512_VP2INTERSECT; EVEX.512.F2.0F38.W1 68 /r), which
// the Go assembler does not know, encoded by hand (checked against GNU
// as): VP2INTERSECTQ Z1, Z0, K2 sets in K2 the lanes of Z0 equal to some
// lane of Z1, and in K3 those of Z1 equal to some lane of Z0; the second
// is the same with Z3, Z2, K4 (and K5).
#define VP2INTERSECT_Z1_Z0_K2 BYTE $0x62; BYTE $0xf2; BYTE $0xff; BYTE $0x48; BYTE $0x68; BYTE $0xd1
#define VP2INTERSECT_Z3_Z2_K4 BYTE $0x62; BYTE $0xf2; BYTE $0xef; BYTE $0x48; BYTE $0x68; BYTE $0xe3

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

// Two intersections at once with VP2INTERSECTQ, to the end: chain 1 of a1
// (SI, position CX) and b1 (DI, DX), chain 2 of a2 (R8, R12) and b2 (R9,
// R13). The lengths of the four slices are kept on the stack at 0-24(SP).
//
// First both chains together, a step of each per iteration, while every
// side has a full block of eight: each chain is intersectBlocksAVX512's
// loop, one VP2INTERSECTQ comparing all eight lanes of a's block with all
// eight of b's and setting the a-lanes that match (their count is the
// step's matches). Its advance waits for the load of its blocks' last
// elements, which waits for the advance before it, so one chain is bound
// by that latency and two independent chains run in about the time of
// one. A position moves by 0 or 8 a step, so the outer loop counts the
// steps every position has room for (R14) and the inner loop takes them
// without testing the ends.
//
// Then each chain alone to its end (FINISH), with blocks of up to eight:
// a block of n < 8 (the last of its slice) is the slice's last eight
// elements with the 8-n before the block replaced by its last element, so
// those lanes repeat an element of the block. A repeated element of b's
// block can only match an element of a that matches it anyway (the count
// is of a's lanes that match some lane of b), and a's repeated lanes are
// masked out of the count; the block with the smaller last element
// advances, as before.
//
// Every step first tests whether the count can still reach need: min(x,
// y) <= (x+y)/2 for each chain, so the count is at most AX + (what is left
// of the four slices)/2, that is it can reach need only while
// 2*AX - (CX+DX+R12+R13) >= 2*need - (the four lengths), kept at 32(SP).
// Stopped there, it returns ok false and the count so far.

// func intersect2VP2(a1, b1, a2, b2 []uint64, need int) (count int, ok bool)
TEXT ·intersect2VP2(SB), NOSPLIT, $40-113
	MOVQ a1_base+0(FP), SI
	MOVQ b1_base+24(FP), DI
	MOVQ a2_base+48(FP), R8
	MOVQ b2_base+72(FP), R9
	XORQ R11, R11
	LENGTH(a1_len+8(FP), 0)
	LENGTH(b1_len+32(FP), 8)
	LENGTH(a2_len+56(FP), 16)
	LENGTH(b2_len+80(FP), 24)
	MOVQ need+96(FP), R10
	SHLQ $1, R10
	SUBQ R11, R10
	MOVQ R10, 32(SP)             // 2*need - the four lengths
	XORQ AX, AX
	XORQ CX, CX
	XORQ DX, DX
	XORQ R12, R12
	XORQ R13, R13

outer2:
	// R14 = min over the four of (length - 8 - position)/8 + 1, the
	// steps every side has a full block for; none if any is negative.
	MOVQ 0(SP), R14
	SUBQ CX, R14
	MOVQ 8(SP), R10
	SUBQ DX, R10
	CMPQ R10, R14
	CMOVQLT R10, R14
	MOVQ 16(SP), R10
	SUBQ R12, R10
	CMPQ R10, R14
	CMOVQLT R10, R14
	MOVQ 24(SP), R10
	SUBQ R13, R10
	CMPQ R10, R14
	CMOVQLT R10, R14
	SUBQ $8, R14
	JLT  finish1
	SHRQ $3, R14
	INCQ R14

inner2:
	CANREACH(stop2)
	VMOVDQU64 (SI)(CX*8), Z0
	VMOVDQU64 (DI)(DX*8), Z1
	VP2INTERSECT_Z1_Z0_K2
	VMOVDQU64 (R8)(R12*8), Z2
	VMOVDQU64 (R9)(R13*8), Z3
	VP2INTERSECT_Z3_Z2_K4
	STEP(SI, DI, CX, DX)
	STEP(R8, R9, R12, R13)
	KUNPCKBW K2, K4, K1          // chain 2's matches in bits 8-15, chain 1's in 0-7
	KMOVW K1, BX
	POPCNTL BX, BX
	ADDQ BX, AX
	DECQ R14
	JNZ  inner2
	JMP  outer2

	FINISH(SI, DI, CX, DX, 0, 8, finish1, part1, finish2)
	FINISH(R8, R9, R12, R13, 16, 24, finish2, part2, done2)

done2:
	VZEROUPPER
	MOVQ AX, count+104(FP)
	MOVB $1, ok+112(FP)
	RET

stop2:
	VZEROUPPER
	MOVQ AX, count+104(FP)
	MOVB $0, ok+112(FP)
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET
