#include "textflag.h"

DATA markHalf<>+0(SB)/4, $65536.5
GLOBL markHalf<>(SB), RODATA|NOPTR, $4

// func markRunAVX2(s []int16, c []float32, gain float32) int32
TEXT ·markRunAVX2(SB), NOSPLIT, $0-60
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	MOVQ c_base+24(FP), DI
	SHRQ $3, CX
	VPXOR Y7, Y7, Y7 // peaks
	TESTQ CX, CX
	JZ reduce
	VBROADCASTSS gain+48(FP), Y5
	VBROADCASTSS markHalf<>(SB), Y6
	MOVL $65536, AX
	VMOVD AX, X8
	VPBROADCASTD X8, Y8

loop:
	VPMOVSXWD (SI), Y2     // 8 samples as int32
	VPABSD Y2, Y3
	VPMAXSD Y3, Y7, Y7
	VCVTDQ2PS Y2, Y2       // float32(v)
	VMOVUPS (DI), Y4
	VMULPS Y4, Y5, Y4      // gain × c
	VADDPS Y4, Y2, Y2      // v + gain × c
	VADDPS Y6, Y2, Y2      // + 65536.5
	VCVTTPS2DQ Y2, Y2      // truncated: a floor, as the value is positive
	VPSUBD Y8, Y2, Y2      // − 65536
	VEXTRACTI128 $1, Y2, X3
	VPACKSSDW X3, X2, X2   // to int16, clipped
	VMOVDQU X2, (SI)
	ADDQ $16, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop

reduce:
	VEXTRACTI128 $1, Y7, X3
	VPMAXSD X3, X7, X7
	VPSHUFD $0x4e, X7, X3
	VPMAXSD X3, X7, X7
	VPSHUFD $0xb1, X7, X3
	VPMAXSD X3, X7, X7
	VMOVD X7, AX
	VZEROUPPER
	MOVL AX, ret+56(FP)
	RET
