//go:build amd64 && !purego

#include "textflag.h"

// The constants of H and of the word-shingle chain (hash.go), and
// lowASCII, as memory operands.
DATA wordK1<>+0(SB)/8, $0xe7037ed1a0b428db
GLOBL wordK1<>(SB), RODATA|NOPTR, $8
DATA wordK2<>+0(SB)/8, $0x8ebc6af09c88c6e3
GLOBL wordK2<>(SB), RODATA|NOPTR, $8
DATA wordK4<>+0(SB)/8, $0x1d8e4e27c47d124f
GLOBL wordK4<>(SB), RODATA|NOPTR, $8
DATA wordLow<>+0(SB)/8, $0x2020202020202020
GLOBL wordLow<>(SB), RODATA|NOPTR, $8

// MUM sets dst to mum(DX, k) (k a memory operand): the 128-bit product's
// halves XOR-ed. It clobbers BX.
#define MUM(k, dst) \
	MULXQ k, dst, BX; \
	XORQ  BX, dst

// func wordHashes3(text *byte, n int, masks *uint64, blocks int, out *uint64, a1, b1 uint64, count int) (written int, a1Out, b1Out uint64, countOut int)
//
// appendWordASCII for N = 3, from the letter and digit masks of the
// blocks of text (alnumMasks): the chain starts from the state a1, b1,
// count (grams'), the 3-gram hashes are written to out, and the chain's
// state is returned. n >= 8 (the last chunk
// of a token near the end is read as the 8 bytes that end the text,
// shifted).
//
// Registers: SI text, R8 n, R9 the next mask, DI out, R11 the block's
// token starts, R12 its token ends, R13 the start of the token in
// progress (-1 if none), R14 a1; AX the token's cursor, CX its
// end, R10 its hash, DX and BX for MULX. Locals: 0(SP) the end of the
// masks, 8(SP) the block's position, 16(SP) carry, 24(SP) count, 32(SP)
// b1. (R15 is left alone: dynamic linking uses it to reach globals.)
TEXT ·wordHashes3(SB), NOSPLIT, $40-96
	MOVQ text+0(FP), SI
	MOVQ n+8(FP), R8
	MOVQ masks+16(FP), R9
	MOVQ blocks+24(FP), AX
	MOVQ out+32(FP), DI
	LEAQ (R9)(AX*8), AX
	MOVQ AX, 0(SP)
	MOVQ $-64, 8(SP) // the first block adds 64
	MOVQ $0, 16(SP)
	MOVQ count+56(FP), AX
	MOVQ AX, 24(SP)
	MOVQ $-1, R13
	MOVQ a1+40(FP), R14
	MOVQ b1+48(FP), AX
	MOVQ AX, 32(SP)

	// The loops' heads on 16-byte boundaries: when the prologue grew by
	// three loads (the chain's state in), Corpus/hash and Corpus/distinct
	// took 2-7% longer with the loops where they fell, and not aligned.
	PCALIGN $16
block:
	CMPQ  R9, 0(SP)
	JAE   done
	ADDQ  $64, 8(SP)
	MOVQ  (R9), AX      // m
	ADDQ  $8, R9
	MOVQ  AX, BX
	SHLQ  $1, BX
	ORQ   16(SP), BX    // prev = m<<1 | carry
	MOVQ  AX, CX
	SHRQ  $63, CX
	MOVQ  CX, 16(SP)    // carry = m>>63
	ANDNQ AX, BX, R11   // starts = m &^ prev
	ANDNQ BX, AX, R12   // ends = prev &^ m

	PCALIGN $16
token:
	TESTQ  R13, R13
	JGE    started
	TESTQ  R11, R11
	JZ     block
	TZCNTQ R11, R13
	ADDQ   8(SP), R13
	BLSRQ  R11, R11

started:
	TESTQ  R12, R12
	JZ     block
	TZCNTQ R12, CX
	ADDQ   8(SP), CX    // end
	BLSRQ  R12, R12

	// R10 = H of the lower-cased text[R13:CX]: 8-byte chunks, then the
	// last 1 to 8 bytes.
	MOVQ R13, AX
	MOVQ $0xa0761d6478bd642f, R10

	PCALIGN $16
chunk:
	MOVQ CX, BX
	SUBQ AX, BX
	CMPQ BX, $8
	JLE  last
	MOVQ (SI)(AX*1), DX
	ORQ  wordLow<>(SB), DX
	XORQ R10, DX
	MUM(wordK1<>(SB), R10)
	ADDQ $8, AX
	JMP  chunk

last:
	LEAQ 8(AX), DX
	CMPQ DX, R8
	JA   tail
	MOVQ (SI)(AX*1), DX
	JMP  loaded

tail: // text[AX:n] is the last n-AX < 8 bytes of the 8 that end the text
	SUBQ  R8, DX
	SHLQ  $3, DX
	SHRXQ DX, -8(SI)(R8*1), DX

loaded:
	ORQ   wordLow<>(SB), DX
	SHLQ  $3, BX
	BZHIQ BX, DX, DX     // the last chunk's BX/8 bytes
	XORQ  R10, DX
	MUM(wordK1<>(SB), R10)
	MOVQ  CX, DX
	SUBQ  R13, DX        // the token's length
	XORQ  R10, DX
	MUM(wordK2<>(SB), R10) // t

	// The chain: s1 = mum(K3^t, K4), s2 = mum(a1^t, K4), s3 = mum(b1^t, K4);
	// then a1, b1 = s1, s2, and s3 is the shingle once three tokens are in.
	MOVQ $0x589965cc75374cc3, DX
	XORQ R10, DX
	MUM(wordK4<>(SB), AX)  // s1
	MOVQ R14, DX
	XORQ R10, DX
	MUM(wordK4<>(SB), R14) // s2
	MOVQ 32(SP), DX
	XORQ R10, DX
	MOVQ R14, 32(SP)       // b1 = s2
	MUM(wordK4<>(SB), R10) // s3
	MOVQ AX, R14           // a1 = s1
	MOVQ $-1, R13
	MOVQ 24(SP), CX
	CMPQ CX, $3
	JGE  emit
	INCQ CX
	MOVQ CX, 24(SP)
	CMPQ CX, $3
	JLT  token

emit:
	MOVQ R10, (DI)
	ADDQ $8, DI
	JMP  token

done:
	MOVQ DI, AX
	SUBQ out+32(FP), AX
	SHRQ $3, AX
	MOVQ AX, written+64(FP)
	MOVQ R14, a1Out+72(FP)
	MOVQ 32(SP), AX
	MOVQ AX, b1Out+80(FP)
	MOVQ 24(SP), AX
	MOVQ AX, countOut+88(FP)
	RET
