# A Linux-style exit_group(7) through a type-1 service request from ACR 2:
# a0 = 7, a7 = 94, then ACRC 1 in a SYS block.  The host-request policy of
# the case ends the run there; the result is the untouched sentinel.
.section .text,"ax"
.globl _start
_start:
  .byte 0xd6,0x11                # c.movi 7, ->a0
  .byte 0x95,0x04,0xe0,0x05      # addi zero, 94, ->a7
  .byte 0x81,0x10,0x00,0x00      # BSTART.SYS FALL
  .byte 0x2b,0x30,0x10,0x00      # acrc 1
.globl cross_model_stop
cross_model_stop:
  .byte 0x00,0x00                # C.BSTOP
.section .result,"aw"
.globl cross_model_result
.type cross_model_result,@object
cross_model_result: .byte 0xe7,0x01,0x00,0x00
.size cross_model_result,4
.globl cross_model_result_size
.set cross_model_result_size,4
