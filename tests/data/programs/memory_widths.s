# Loads and stores of every width: immediate forms (the simm12 displacement
# is scaled by the access size, ScalarDecodedAGUOffset in
# asl/scalar/model/dispatch/agu.asl) and register-offset forms.
# Source dword 0xF0E1D2C3B4A59687 (little-endian bytes 87 96 A5 B4 C3 D2 E1 F0).
# Load k stores its result as dword k of `loads`; the stores write into the
# zeroed 64-byte `stores`.  Expected bytes: tests/unit/e2e_programs_test.cpp.
#
# Register offsets without a modifier encode SrcRType = 0, "no modifier" for
# address forms (DecodeScalarAddressRightModifier in
# asl/scalar/model/dispatch/decode.asl).
        .text
        .globl _start
_start: BSTART.STD FALL
        addi zero, src, ->a2          # a2 = &src
        addi zero, loads, ->a3        # a3 = &loads
        ldi [a2, 0], ->a0             # a0 = the source dword
        lbi [a2, 0], ->t              # 0: byte 0 sign-extended
        sdi t#1, [a3, 0]
        lbui [a2, 0], ->t             # 1: byte 0 zero-extended
        sdi t#1, [a3, 1]
        lhi [a2, 0], ->t              # 2: half 0 sign-extended
        sdi t#1, [a3, 2]
        lhui [a2, 0], ->t             # 3: half 0 zero-extended
        sdi t#1, [a3, 3]
        lwi [a2, 0], ->t              # 4: word 0 sign-extended
        sdi t#1, [a3, 4]
        lwui [a2, 0], ->t             # 5: word 0 zero-extended
        sdi t#1, [a3, 5]
        sdi a0, [a3, 6]               # 6: the dword
        lbi [a2, 7], ->t              # 7: byte 7
        sdi t#1, [a3, 7]
        lhi [a2, 3], ->t              # 15: half at byte 6
        sdi t#1, [a3, 15]
        lwui [a2, 1], ->t             # 16: word at byte 4
        sdi t#1, [a3, 16]
        BSTOP
regs:   BSTART.STD FALL
        addi zero, 3, ->a4
        lb [a2, a4], ->t
        sdi t#1, [a3, 8]              # 8: byte 3 sign-extended
        addi zero, 6, ->a4
        lbu [a2, a4], ->t
        sdi t#1, [a3, 9]              # 9: byte 6 zero-extended
        addi zero, 2, ->a4
        lh [a2, a4], ->t
        sdi t#1, [a3, 10]             # 10: half at byte 2 sign-extended
        addi zero, 6, ->a4
        lhu [a2, a4], ->t
        sdi t#1, [a3, 11]             # 11: half at byte 6 zero-extended
        addi zero, 4, ->a4
        lw [a2, a4], ->t
        sdi t#1, [a3, 12]             # 12: word at byte 4 sign-extended
        lwu [a2, a4], ->t
        sdi t#1, [a3, 13]             # 13: word at byte 4 zero-extended
        ld [a2, zero], ->t
        sdi t#1, [a3, 14]             # 14: the dword
        BSTOP
st:     BSTART.STD FALL
        addi zero, stores, ->a5       # a5 = &stores
        sbi a0, [a5, 0]               # bytes 0..0
        shi a0, [a5, 4]               # bytes 8..9
        swi a0, [a5, 4]               # bytes 16..19
        sdi a0, [a5, 3]               # bytes 24..31
        addi zero, 33, ->a4           # register offsets are scaled by the size
        sb a0, [a5, a4]               # byte 33
        addi zero, 21, ->a4
        sh a0, [a5, a4<<1]            # bytes 42..43
        addi zero, 13, ->a4
        sw a0, [a5, a4<<2]            # bytes 52..55
        addi zero, 7, ->a4
        sd a0, [a5, a4<<3]            # bytes 56..63
        BSTOP
        .globl done
done:   BSTART.STD FALL
        BSTOP

        .data
        .balign 8
src:    .dword 0xF0E1D2C3B4A59687
        .globl loads
loads:  .zero 136
        .globl stores
stores: .zero 64
