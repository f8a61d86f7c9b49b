# A block that branches to itself: BSTART DIRECT .+0 (32 bits), then the
# only 64-bit form, L.BSTOP, whose commit returns TPC to _start.  Two
# attempts reach the stop; the result is the untouched sentinel.
.section .text,"ax"
.globl _start
_start:
  .byte 0x11,0x00,0x00,0x00
  .byte 0x0f,0x00,0x00,0x00,0x01,0x00,0x00,0x00
.section .result,"aw"
.globl cross_model_result
.type cross_model_result,@object
cross_model_result: .byte 0xa5,0x5a,0x00,0x00
.size cross_model_result,4
.globl cross_model_result_size
.set cross_model_result_size,4
