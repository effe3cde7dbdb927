#include "textflag.h"

// func sampleRangeAVX2(s []int16) (lo, hi int16)
TEXT ·sampleRangeAVX2(SB), NOSPLIT, $0-28
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	SHRQ $4, CX
	VPXOR Y0, Y0, Y0 // minima, starting at 0
	VPXOR Y1, Y1, Y1 // maxima, starting at 0
	TESTQ CX, CX
	JZ reduce

loop:
	VMOVDQU (SI), Y2
	VPMINSW Y2, Y0, Y0
	VPMAXSW Y2, Y1, Y1
	ADDQ $32, SI
	DECQ CX
	JNZ loop

reduce:
	// Fold 16 lanes to 1: halves of 256, then of 128, 64 and 32 bits.
	VEXTRACTI128 $1, Y0, X2
	VPMINSW X2, X0, X0
	VEXTRACTI128 $1, Y1, X3
	VPMAXSW X3, X1, X1
	VPSHUFD $0x4e, X0, X2
	VPMINSW X2, X0, X0
	VPSHUFD $0x4e, X1, X3
	VPMAXSW X3, X1, X1
	VPSHUFD $0xb1, X0, X2
	VPMINSW X2, X0, X0
	VPSHUFD $0xb1, X1, X3
	VPMAXSW X3, X1, X1
	VPSRLD $16, X0, X2
	VPMINSW X2, X0, X0
	VPSRLD $16, X1, X3
	VPMAXSW X3, X1, X1
	VMOVD X0, AX
	VMOVD X1, BX
	VZEROUPPER
	MOVW AX, lo+24(FP)
	MOVW BX, hi+26(FP)
	RET

// func applyGainAVX2(s []int16, mul, mulhi int16)
TEXT ·applyGainAVX2(SB), NOSPLIT, $0-28
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	SHRQ $4, CX
	JZ done
	MOVWLZX mul+24(FP), AX
	MOVWLZX mulhi+26(FP), BX
	VMOVD AX, X0
	VPBROADCASTW X0, Y0
	VMOVD BX, X1
	VPBROADCASTW X1, Y1

loop:
	VMOVDQU (SI), Y2
	VPMULLW Y0, Y2, Y3
	VPMULHW Y1, Y2, Y4
	VPADDW Y4, Y3, Y3
	VMOVDQU Y3, (SI)
	ADDQ $32, SI
	DECQ CX
	JNZ loop
	VZEROUPPER

done:
	RET
