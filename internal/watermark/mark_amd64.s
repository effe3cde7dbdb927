#include "textflag.h"

DATA markHalf<>+0(SB)/4, $65536.5
GLOBL markHalf<>(SB), RODATA|NOPTR, $4

DATA markEight<>+0(SB)/4, $8.0
GLOBL markEight<>(SB), RODATA|NOPTR, $4

// The lanes' offsets in a step of eight samples.
DATA markLanes<>+0(SB)/4, $0.0
DATA markLanes<>+4(SB)/4, $1.0
DATA markLanes<>+8(SB)/4, $2.0
DATA markLanes<>+12(SB)/4, $3.0
DATA markLanes<>+16(SB)/4, $4.0
DATA markLanes<>+20(SB)/4, $5.0
DATA markLanes<>+24(SB)/4, $6.0
DATA markLanes<>+28(SB)/4, $7.0
GLOBL markLanes<>(SB), RODATA|NOPTR, $32

// func markRunAVX2(s []int16, c []float32, from, step, k float32) int32
TEXT ·markRunAVX2(SB), NOSPLIT, $0-68
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	MOVQ c_base+24(FP), DI
	SHRQ $3, CX
	VPXOR Y7, Y7, Y7 // peaks
	TESTQ CX, CX
	JZ reduce
	VBROADCASTSS from+48(FP), Y5
	VBROADCASTSS step+52(FP), Y9
	VBROADCASTSS k+56(FP), Y10
	VADDPS markLanes<>(SB), Y10, Y10 // each lane's k + i
	VBROADCASTSS markEight<>(SB), Y11
	VBROADCASTSS markHalf<>(SB), Y6
	MOVL $65536, AX
	VMOVD AX, X8
	VPBROADCASTD X8, Y8

loop:
	VPMOVSXWD (SI), Y2     // 8 samples as int32
	VPABSD Y2, Y3
	VPMAXSD Y3, Y7, Y7
	VCVTDQ2PS Y2, Y2       // float32(v)
	VMULPS Y10, Y9, Y12    // step × (k + i)
	VADDPS Y12, Y5, Y12    // the amplitude: from + step × (k + i)
	VADDPS Y11, Y10, Y10   // the next eight samples' k + i
	VMOVUPS (DI), Y4
	VMULPS Y4, Y12, Y4     // amplitude × c
	VADDPS Y4, Y2, Y2      // v + amplitude × c
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
	MOVL AX, ret+64(FP)
	RET
