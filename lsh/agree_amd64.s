//go:build amd64 && !purego

#include "textflag.h"

// ROW_DONE ends a row of the agreeRows kernels (registers as there: AX
// rows written, DX the row's equal bytes, R9 need, R10 out, R11 the row's
// index, R12 its bytes, R14 where the next passing row's masks go, R15
// past this row's masks; CX the index after the last row): the row's
// index is stored at the next free place, which advances (and the masks
// are kept) only if it passes, without a branch; then on to the next row
// at label next, if there is one.
#define ROW_DONE(next) \
	MOVL    R11, (R10)(AX*4); \
	XORL    BX, BX; \
	CMPQ    DX, R9; \
	SETGE   BX; \
	CMOVQGE R15, R14; \
	ADDQ    BX, AX; \
	ADDQ    R12, DI; \
	INCQ    R11; \
	CMPQ    R11, CX; \
	JL      next

// func agreeRowsAVX512(a, rows *uint64, chunks, n, need int, out *int32, masks *uint64, first int) int
//
// For each of n rows of chunks 64-byte chunks: the bytes equal to a's,
// counted with VPCMPEQB into a mask and POPCNT; rows with at least need
// are written to out by index (first for the first row), and their
// chunks masks to masks. Without a branch on the count: each row's index
// and masks are stored at the next free places, which advance only when
// the row passes (in a large bucket of templated documents about half
// the rows pass, in no order a predictor learns: the branch cost 5.8 ns
// a row against 1.2).
TEXT ·agreeRowsAVX512(SB), NOSPLIT, $0-72
	MOVQ a+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ chunks+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ need+32(FP), R9
	MOVQ out+40(FP), R10
	MOVQ masks+48(FP), R14
	MOVQ first+56(FP), R11 // row index
	XORQ AX, AX            // rows written
	TESTQ CX, CX
	JLE  done
	ADDQ R11, CX // the index after the last row

row:
	XORQ DX, DX   // equal bytes
	XORQ R12, R12 // byte offset in the row
	MOVQ R8, R13  // chunks left
	MOVQ R14, R15 // where this row's masks go

chunk:
	VMOVDQU64 (SI)(R12*1), Z0
	VPCMPEQB  (DI)(R12*1), Z0, K1
	KMOVQ     K1, BX
	MOVQ      BX, (R15)
	ADDQ      $8, R15
	POPCNTQ   BX, BX
	ADDQ      BX, DX
	ADDQ      $64, R12
	DECQ      R13
	JNZ       chunk

	ROW_DONE(row)

done:
	VZEROUPPER
	MOVQ AX, ret+64(FP)
	RET

// func equalMasksAVX512(a, b *uint32, groups int, out *uint16)
//
// For each of groups groups of 16 values: the 16-bit mask of the lanes
// where a and b are equal (VPCMPEQD), stored to out.
TEXT ·equalMasksAVX512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ groups+16(FP), CX
	MOVQ out+24(FP), R8
	TESTQ CX, CX
	JLE  eqdone

eqloop:
	VMOVDQU32 (SI), Z0
	VPCMPEQD  (DI), Z0, K1
	KMOVW     K1, AX
	MOVW      AX, (R8)
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $2, R8
	DECQ      CX
	JNZ       eqloop

eqdone:
	VZEROUPPER
	RET

// func equalPrefixAVX512(a, b *uint32, groups int) (lo, hi uint64)
//
// The equality bits of the first groups*16 values of a and b (groups <=
// 8; bit k%64 of lo for k < 64, of hi above), built in registers: the
// 16-bit masks of equalMasksAVX512, stored and read back as 64-bit words,
// stall the load on a failed store-to-load forward.
TEXT ·equalPrefixAVX512(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ groups+16(FP), R10
	XORQ R8, R8
	XORQ R9, R9
	XORL CX, CX

eplo:
	TESTQ R10, R10
	JZ    epdone
	CMPQ  CX, $64
	JAE   ephi
	VMOVDQU32 (SI), Z0
	VPCMPEQD  (DI), Z0, K1
	KMOVW     K1, AX
	SHLQ      CL, AX
	ORQ       AX, R8
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $16, CX
	DECQ      R10
	JMP       eplo

ephi:
	VMOVDQU32 (SI), Z0
	VPCMPEQD  (DI), Z0, K1
	KMOVW     K1, AX
	SHLQ      CL, AX // the count is taken mod 64
	ORQ       AX, R9
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $16, CX
	DECQ      R10
	JNZ       ephi

epdone:
	VZEROUPPER
	MOVQ R8, lo+24(FP)
	MOVQ R9, hi+32(FP)
	RET

// func equalRowsAVX512(a, comp *uint32, ids *uint32, n, rowBytes int, lanes uint64, vecs int, out *uint64)
//
// For each of the n entries at ids (16 bytes apart), compares the 32-bit
// values of a with those of the row at comp + id*rowBytes, 16 at a time
// under the 16-bit lane masks K1-K4 (the words of lanes), and stores the
// equality bits, value v at bit v, to out. Only the first vecs (1-4)
// vectors of a row are read: a row's lines past its compared values are
// not loaded.
TEXT ·equalRowsAVX512(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), SI
	MOVQ comp+8(FP), DI
	MOVQ ids+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ rowBytes+32(FP), R10
	MOVQ lanes+40(FP), AX
	KMOVW AX, K1
	SHRQ $16, AX
	KMOVW AX, K2
	SHRQ $16, AX
	KMOVW AX, K3
	SHRQ $16, AX
	KMOVW AX, K4
	MOVQ vecs+48(FP), R12
	MOVQ out+56(FP), R11
	VMOVDQU32 (SI), Z0
	VMOVDQU32 64(SI), Z1
	VMOVDQU32 128(SI), Z2
	VMOVDQU32 192(SI), Z3
	TESTQ CX, CX
	JLE  erdone

erloop:
	MOVL  (R8), AX
	IMULQ R10, AX
	VPCMPEQD (DI)(AX*1), Z0, K1, K5
	KMOVW K5, BX
	CMPQ  R12, $2
	JB    erstore
	VPCMPEQD 64(DI)(AX*1), Z1, K2, K5
	KMOVW K5, DX
	SHLQ  $16, DX
	ORQ   DX, BX
	CMPQ  R12, $3
	JB    erstore
	VPCMPEQD 128(DI)(AX*1), Z2, K3, K5
	KMOVW K5, DX
	SHLQ  $32, DX
	ORQ   DX, BX
	CMPQ  R12, $4
	JB    erstore
	VPCMPEQD 192(DI)(AX*1), Z3, K4, K5
	KMOVW K5, DX
	SHLQ  $48, DX
	ORQ   DX, BX

erstore:
	MOVQ  BX, (R11)
	ADDQ  $16, R8
	ADDQ  $8, R11
	DECQ  CX
	JNZ   erloop

erdone:
	VZEROUPPER
	RET

// NEXT8 ors into BX, from bit shift on, the 8 equality bits of the row's
// values at byte off (from AX) and a's in register y (equalRowsAVX2); it
// clobbers Y8 and DX.
#define NEXT8(off, y, shift) \
	VPCMPEQD  off(AX), y, Y8; \
	VMOVMSKPS Y8, DX; \
	SHLQ      shift, DX; \
	ORQ       DX, BX

// func equalRowsAVX2(a, comp *uint32, ids *uint32, n, rowBytes int, lanes uint64, vecs int, out *uint64)
//
// equalRowsAVX512 for CPUs with AVX2 only: a's 64 values in Y0-Y7, 8 a
// register; each of the first vecs (1-8) vectors of a row is compared
// whole (VPCMPEQD), its 8 lanes' bits gathered by VMOVMSKPS, and the bits
// past the compared values cleared with lanes before the store.
TEXT ·equalRowsAVX2(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), SI
	MOVQ comp+8(FP), DI
	MOVQ ids+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ rowBytes+32(FP), R10
	MOVQ lanes+40(FP), R9
	MOVQ vecs+48(FP), R12
	MOVQ out+56(FP), R11
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU 128(SI), Y4
	VMOVDQU 160(SI), Y5
	VMOVDQU 192(SI), Y6
	VMOVDQU 224(SI), Y7
	TESTQ CX, CX
	JLE  er2done

er2loop:
	MOVL  (R8), AX
	IMULQ R10, AX
	ADDQ  DI, AX
	VPCMPEQD  (AX), Y0, Y8
	VMOVMSKPS Y8, BX
	CMPQ R12, $2
	JB   er2store
	NEXT8(32, Y1, $8)
	CMPQ R12, $3
	JB   er2store
	NEXT8(64, Y2, $16)
	CMPQ R12, $4
	JB   er2store
	NEXT8(96, Y3, $24)
	CMPQ R12, $5
	JB   er2store
	NEXT8(128, Y4, $32)
	CMPQ R12, $6
	JB   er2store
	NEXT8(160, Y5, $40)
	CMPQ R12, $7
	JB   er2store
	NEXT8(192, Y6, $48)
	CMPQ R12, $8
	JB   er2store
	NEXT8(224, Y7, $56)

er2store:
	ANDQ  R9, BX
	MOVQ  BX, (R11)
	ADDQ  $16, R8
	ADDQ  $8, R11
	DECQ  CX
	JNZ   er2loop

er2done:
	VZEROUPPER
	RET

// func agreeRowsAVX2(a, rows *uint64, chunks, n, need int, out *int32, masks *uint64, first int) int
//
// agreeRowsAVX512 with AVX2: each 64-byte chunk as two 32-byte halves,
// VPCMPEQB and VPMOVMSKB each, their masks joined into the chunk's 64
// bits; the same counts, stores and branch-free advance.
TEXT ·agreeRowsAVX2(SB), NOSPLIT, $0-72
	MOVQ a+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ chunks+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ need+32(FP), R9
	MOVQ out+40(FP), R10
	MOVQ masks+48(FP), R14
	MOVQ first+56(FP), R11 // row index
	XORQ AX, AX            // rows written
	TESTQ CX, CX
	JLE  ar2done
	ADDQ R11, CX // the index after the last row
	SHLQ $6, R8  // bytes a row

ar2row:
	XORQ DX, DX   // equal bytes
	XORQ R12, R12 // byte offset in the row
	MOVQ R14, R15 // where this row's masks go

ar2chunk:
	VMOVDQU   (SI)(R12*1), Y0
	VPCMPEQB  (DI)(R12*1), Y0, Y0
	VPMOVMSKB Y0, BX
	VMOVDQU   32(SI)(R12*1), Y1
	VPCMPEQB  32(DI)(R12*1), Y1, Y1
	VPMOVMSKB Y1, R13
	SHLQ      $32, R13
	ORQ       R13, BX
	MOVQ      BX, (R15)
	ADDQ      $8, R15
	POPCNTQ   BX, BX
	ADDQ      BX, DX
	ADDQ      $64, R12
	CMPQ      R12, R8
	JL        ar2chunk

	ROW_DONE(ar2row)

ar2done:
	VZEROUPPER
	MOVQ AX, ret+64(FP)
	RET

// func equalMasksAVX2(a, b *uint32, groups int, out *uint8)
//
// equalMasksAVX512 with AVX2: for each of groups groups of 8 values, the
// 8-bit mask of the lanes where a and b are equal (VPCMPEQD, VMOVMSKPS),
// stored to out.
TEXT ·equalMasksAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ groups+16(FP), CX
	MOVQ out+24(FP), R8
	TESTQ CX, CX
	JLE  eq2done

eq2loop:
	VMOVDQU   (SI), Y0
	VPCMPEQD  (DI), Y0, Y0
	VMOVMSKPS Y0, AX
	MOVB      AX, (R8)
	ADDQ      $32, SI
	ADDQ      $32, DI
	INCQ      R8
	DECQ      CX
	JNZ       eq2loop
	VZEROUPPER

eq2done:
	RET
