# The checksum loop of bench/bench_run.cpp (BM_ChecksumKernel) as a whole
# program: 50,000,000 passes of one COND block (8 attempts each).  Timed
# against checksum_riscv.S under qemu-riscv64 by compare.sh.
    .text
    .globl _start
_start:
    HL.ADDI zero, 12500000, ->a1
    SLLI a1, 2, ->a1                # a1 = 50,000,000 iterations
    HL.ADDI zero, 0x20000, ->a3     # the data table
loop:
    BSTART.STD COND, loop
    ADDI a0, 1, ->a0
    ANDI a0, 511, ->a5
    ADD a3, a5<<3, ->a6
    LDI [a6, 0], ->a2
    ADD a4, a2, ->a4
    SETC.NE a0, a1
    BSTOP
done:
    BSTOP

    .section .data, "aw", @progbits, 0x20000
    .zero 4096
