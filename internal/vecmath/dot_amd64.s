#include "textflag.h"

// func dotAVX2(a, b []float32) float32
// Four 8-lane fused multiply-add sums over 32 elements a step, then 8 a
// step, then one by one; len(b) >= len(a) is the caller's.
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX

loop32:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $32
	JL   loop8
	VMOVUPS (SI)(AX*4), Y4
	VMOVUPS 32(SI)(AX*4), Y5
	VMOVUPS 64(SI)(AX*4), Y6
	VMOVUPS 96(SI)(AX*4), Y7
	VFMADD231PS (DI)(AX*4), Y4, Y0
	VFMADD231PS 32(DI)(AX*4), Y5, Y1
	VFMADD231PS 64(DI)(AX*4), Y6, Y2
	VFMADD231PS 96(DI)(AX*4), Y7, Y3
	ADDQ $32, AX
	JMP  loop32

loop8:
	CMPQ DX, $8
	JL   sum
	VMOVUPS (SI)(AX*4), Y4
	VFMADD231PS (DI)(AX*4), Y4, Y0
	ADDQ $8, AX
	SUBQ $8, DX
	JMP  loop8

sum:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

tail:
	CMPQ AX, CX
	JGE  done
	VMOVSS (SI)(AX*4), X1
	VFMADD231SS (DI)(AX*4), X1, X0
	INCQ AX
	JMP  tail

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET
