#include "textflag.h"

// func dotAVX2(w, x []float32) float32
// Σ w[k]·x[k] for k < len(w) (len(x) ≥ len(w)) as dotLanes computes it: eight lane sums (lane j
// takes k ≡ j mod 8) below len(w) &^ 7, reduced lanes j and j+4, then those pairs j and j+2,
// then the last two; then the remaining products added one by one.
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ w_base+0(FP), SI
	MOVQ w_len+8(FP), DX
	MOVQ x_base+24(FP), DI
	MOVQ DX, CX
	SHRQ $3, CX
	ANDQ $7, DX
	VXORPS Y0, Y0, Y0
	TESTQ CX, CX
	JZ reduce

loop:
	VMOVUPS (SI), Y1
	VMOVUPS (DI), Y2
	VMULPS Y2, Y1, Y1
	VADDPS Y1, Y0, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop

reduce:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0      // s[j] = a[j] + a[j+4], j < 4
	VMOVHLPS X0, X0, X1    // X1 = s[2], s[3]
	VADDPS X1, X0, X0      // t[j] = s[j] + s[j+2], j < 2
	VMOVSHDUP X0, X1       // X1[0] = t[1]
	VADDSS X1, X0, X0      // t[0] + t[1]
	TESTQ DX, DX
	JZ done

tail:
	VMOVSS (SI), X1
	VMULSS (DI), X1, X1
	VADDSS X1, X0, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ DX
	JNZ tail

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET
