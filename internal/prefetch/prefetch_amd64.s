//go:build amd64 && !purego

#include "textflag.h"

// func strided(p unsafe.Pointer, stride uintptr, n int)
TEXT ·strided(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), AX
	MOVQ stride+8(FP), DX
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JLE  done

loop:
	PREFETCHT0 (AX)
	ADDQ DX, AX
	DECQ CX
	JNZ  loop

done:
	RET
