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

// func intersectBlocksAVX2(a, b []uint64, need int) (count, i, j int)
TEXT ·intersectBlocksAVX2(SB), NOSPLIT, $0-80
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), R8
	MOVQ b_base+24(FP), DI
	MOVQ b_len+32(FP), R9
	XORQ AX, AX                  // count
	XORQ CX, CX                  // i
	XORQ DX, DX                  // j
	SUBQ $4, R8                  // last block start in a
	SUBQ $4, R9                  // last block start in b

loop:
	CMPQ CX, R8
	JGT  done
	CMPQ DX, R9
	JGT  done
	MOVQ R8, R10                 // what is left of a, less 4
	SUBQ CX, R10
	MOVQ R9, R11                 // of b, less 4
	SUBQ DX, R11
	CMPQ R10, R11
	CMOVQGT R11, R10             // the shorter
	LEAQ 4(AX)(R10*1), R10       // the most the count can reach
	CMPQ R10, need+48(FP)
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
	XORQ R12, R12
	XORQ R13, R13
	CMPQ R10, R11
	SETLS R12                    // va's last <= vb's last (unsigned): a advances
	SETCC R13                    // va's last >= vb's last: b advances
	SHLQ $2, R12
	SHLQ $2, R13
	ADDQ R12, CX
	ADDQ R13, DX
	JMP  loop

done:
	VZEROUPPER
	MOVQ AX, count+56(FP)
	MOVQ CX, i+64(FP)
	MOVQ DX, j+72(FP)
	RET
