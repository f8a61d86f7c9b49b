# TLOAD a 1x1 U32 tile from sp (0xf00: the result word, 25) into T#1, TADD
# it to itself, TSTORE the sum back: 50.  The TADD destination is T#2: a
# Local destination takes the lowest free index of its hand
# (ResolveBundleTileDestinations), and T#1 still holds the loaded tile.
.section .text,"ax"
.globl _start
_start:
  .byte 0x81,0x11,0x01,0xc8                # BSTART.TLOAD U32
  .byte 0x7c,0x00,0x7c,0x40,0x7c,0x80      # C.B.DIMI 1, ->LB0/LB1/LB2
  .byte 0x13,0x80,0x00,0x00                # B.IOR sp, zero, zero, ->zero
  .byte 0x13,0xee,0x0a,0x00                # B.IOT mask=1111, last, ->T<5>
  .byte 0x81,0x91,0x01,0xc8                # BSTART.VEC TADD, U32
  .byte 0x7c,0x00,0x7c,0x40,0x7c,0x80
  .byte 0x13,0xce,0x0a,0x00                # B.IOT T#1, T#1, mask=1111, last, ->T<5>
  .byte 0x81,0x11,0x11,0xc8                # BSTART.TSTORE U32
  .byte 0x7c,0x00,0x7c,0x40,0x7c,0x80
  .byte 0x13,0x80,0x00,0x00                # B.IOR sp, zero, zero, ->zero
  .byte 0x13,0x5e,0x18,0x00                # B.IOT T#2, mask=1111, last
  .byte 0x00,0x00                          # C.BSTOP
.globl cross_model_stop
cross_model_stop:
.section .result,"aw"
.globl cross_model_result
.type cross_model_result,@object
cross_model_result: .byte 0x19,0x00,0x00,0x00
.size cross_model_result,4
.globl cross_model_result_size
.set cross_model_result_size,4
