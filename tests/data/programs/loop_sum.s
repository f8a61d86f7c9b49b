# Loop: sum of 1..10 with a self-looping conditional block.
# Expected (hand-derived): result = 55 = 0x37; loop body runs 10 times.
        .text
        .globl _start
_start: BSTART.STD FALL
        addi zero, 10, ->a0          # a0 = n
        addi zero, 0, ->a1           # a1 = sum
        addi zero, result, ->a2      # a2 = &result
loop:   BSTART.STD COND, loop        # taken while a0 != 0
        add a1, a0, ->a1
        subi a0, 1, ->a0
        setc.ne a0, zero
        BSTOP
        BSTART.STD FALL
        sdi a1, [a2, 0]
        BSTOP
        .globl done
done:   BSTART.STD FALL
        BSTOP

        .data
        .balign 8
result: .dword 0
