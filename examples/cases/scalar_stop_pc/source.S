# Six scalar instructions of the three scalar lengths, then a PC-relative
# store of their sum.  Encodings are written as bytes so the case does not
# depend on assembler spellings (each checked with `pto decode`).
.section .text,"ax"
.globl _start
_start:
  # c.movi 10, ->sp ; c.movi 15, ->a0 ; add sp, a0.sw, ->a1 (a1 = 25)
  .byte 0x96,0x0a,0xd6,0x13,0x85,0x81,0x20,0x00
  # hl.xori sp, -0x800000, ->sp ; c.movi 0, ->zero (pads to a word)
  .byte 0x0e,0x80,0x95,0xc0,0x00,0x00,0x16,0x00
  # sw.pcr a1 at TPC 0x110: word displacement 60 = 0x200
  .byte 0x69,0xa0,0xc1,0x03
.globl cross_model_stop
cross_model_stop:
.section .result,"aw"
.globl cross_model_result
.type cross_model_result,@object
cross_model_result: .zero 4
.size cross_model_result,4
.globl cross_model_result_size
.set cross_model_result_size,4
