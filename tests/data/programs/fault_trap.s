# A misaligned LWI raises Fault_DataAlignment (trap number 34) at ACR0.
# SetFaultWithCause (asl/arch/memory-model/fault-precision.asl) saves the
# trap context in ring 0 (tpc = the faulting instruction, bpc = its block),
# sets _FaultAddress and TRAPARG0 to the data address (src + 2), TRAPNO =
# PackTrapStatus = argument-valid bit 62 | 34, and sends TPC to EVBASE, or to
# the fault address when EVBASE is 0 (TrapVectorEntry,
# asl/arch/system-registers/access-control.asl).  The faulting load writes
# nothing: a4 keeps its value 5.
#   _start:    EVBASE_ACR0 = handler; the handler stores TRAPNO, TRAPARG0, a4.
#   unhandled: (run with --start-symbol unhandled) EVBASE stays 0.
        .text
        .globl _start
_start: BSTART.SYS FALL               # SSR writes belong in a SYS block
        addi zero, handler, ->a0
        ssrset a0, 0xf01              # EVBASE_ACR0
        BSTOP
        .globl unhandled
unhandled:
        BSTART.STD FALL
        addi zero, src + 2, ->a2      # 2-byte aligned, not 4-byte aligned
        addi zero, 5, ->a4
        lhi [a2, 0], ->a3             # aligned half load: succeeds
        .globl faulting
faulting:
        lwi [a2, 0], ->a4             # misaligned word load: faults
        BSTOP

        .balign 16
        .globl handler
handler:
        BSTART.SYS FALL
        addi zero, out, ->a5
        ssrget 0xf02, ->t             # TRAPNO_ACR0
        sdi t#1, [a5, 0]
        ssrget 0xf03, ->t             # TRAPARG0_ACR0
        sdi t#1, [a5, 1]
        sdi a4, [a5, 2]
        sdi a3, [a5, 3]
        BSTOP
        .globl done
done:   BSTART.STD FALL
        BSTOP

        .data
        .balign 8
src:    .dword 0x1122334455667788
        .globl out
out:    .zero 32
