# Built-in example (scripts/example.sh): load two 4x4 U32 tiles from memory
# with a 32-byte (non-dense) row stride, add them, store the sum densely.
    .text
    .globl _start
_start:
    HL.ADDI zero, 0x20000, ->a0     # A
    HL.ADDI zero, 0x20100, ->a2     # B
    HL.ADDI zero, 0x20200, ->a3     # C
    ADDI zero, 32, ->a1             # source row stride in bytes
    ADDI zero, 16, ->a4             # destination row stride (dense)
    BSTART.TLOAD U32
    B.DIM zero, 4, ->LB0
    B.DIM zero, 4, ->LB1
    B.IOT mask=1111, last, ->U<1>
    B.IOR a0, a1
    BSTART.TLOAD U32
    B.DIM zero, 4, ->LB0
    B.DIM zero, 4, ->LB1
    B.IOT mask=1111, last, ->U<1>
    B.IOR a2, a1
    BSTART.VEC TADD, U32
    C.B.DIMI 4, ->LB0
    C.B.DIMI 4, ->LB1
    B.IOT U#1, U#2, mask=1111, last, ->T<1>
    BSTART.TSTORE U32
    B.IOT T#1, mask=1111, last
    B.IOR a3, a4
    BSTOP
done:
    BSTOP

    .section .a, "aw", @progbits, 0x20000
    .word  1,  2,  3,  4, 0, 0, 0, 0
    .word  5,  6,  7,  8, 0, 0, 0, 0
    .word  9, 10, 11, 12, 0, 0, 0, 0
    .word 13, 14, 15, 16, 0, 0, 0, 0
    .section .b, "aw", @progbits, 0x20100
    .word 100, 200, 300, 400, 0, 0, 0, 0
    .word 500, 600, 700, 800, 0, 0, 0, 0
    .word 900, 1000, 1100, 1200, 0, 0, 0, 0
    .word 1300, 1400, 1500, 1600, 0, 0, 0, 0
    .section .c, "aw", @progbits, 0x20200
    .zero 64
