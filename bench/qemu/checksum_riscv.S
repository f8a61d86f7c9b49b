# The loop of checksum.s for RV64I (Linux user mode, for qemu-riscv64): the
# same 50,000,000 iterations of increment, mask, scaled index, load and sum.
    .text
    .globl _start
_start:
    li   a1, 50000000
    la   a3, data
    li   a0, 0
    li   a4, 0
loop:
    addi a0, a0, 1
    andi a5, a0, 511
    slli a6, a5, 3
    add  a6, a3, a6
    ld   a2, 0(a6)
    add  a4, a4, a2
    bne  a0, a1, loop
    li   a7, 93                # exit(0)
    li   a0, 0
    ecall

    .data
data:
    .zero 4096
