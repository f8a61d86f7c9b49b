# Calls and returns.  `square` returns a0 * a0 through a RET block
# (BSTART.STD RET: the commit continues at _ReturnAddress).
#  1. BSTART.CALL: the fused direct call writes ra = _ReturnAddress =
#     BSTART pc + 2 + 2*uimm5 (asl/block/model/dispatch/start.asl) and the
#     block's BSTOP commits to `square`.
#  2. SETRET + BSTART.STD DIRECT: SETRET writes ra = TPC + 2*imm
#     (SetReturnAddress, asl/scalar/model/bru), the DIRECT block jumps.
# Expected (hand-derived): out[0] = 7*7 = 49, out[1] = 49*49 = 2401,
# out[2] = ra after the second call = address of back2.
        .text
        .globl _start
_start: BSTART.STD FALL
        addi zero, 7, ->a0
        addi zero, out, ->a3
call1:  BSTART.CALL square, back1, ->ra
        BSTOP
back1:  BSTART.STD FALL
        sdi a0, [a3, 0]
ret2:   setret (back2 - ret2) / 2, ->ra
        BSTOP
        BSTART.STD DIRECT, square
        BSTOP
back2:  BSTART.STD FALL
        sdi a0, [a3, 1]
        sdi ra, [a3, 2]
        BSTOP
        .globl done
done:   BSTART.STD FALL
        BSTOP

square: BSTART.STD RET
        mul a0, a0, ->a0
        BSTOP

        .data
        .balign 8
        .globl out
out:    .zero 24
