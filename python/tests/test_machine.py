"""pto.Machine: runs under pto run's contract, stepping, tracing, registers,
memory and error paths.  Expected values are derived by hand from the
sources (examples/tadd.s and the small programs below)."""

import threading
import time

import numpy as np
import pytest

import pto

# Sum 1..10 (tests/data/programs/loop_sum.s without its data section):
# a0 counts down, a1 = 55 at `done`.
LOOP_SUM = """
        .text
        .globl _start
_start: BSTART.STD FALL
        addi zero, 10, ->a0
        addi zero, 0, ->a1
loop:   BSTART.STD COND, loop
        add a1, a0, ->a1
        subi a0, 1, ->a0
        setc.ne a0, zero
        BSTOP
done:   BSTART.STD FALL
        BSTOP
"""

# A conditional block that always loops back to itself.
SPIN = """
        .text
_start:
spin:   BSTART.STD COND, spin
        setc.eq zero, zero
        BSTOP
"""

# A doubleword store to 0x2000, outside a 4096-byte reference memory.
STORE_OUT_OF_RANGE = """
        .text
_start: BSTART.STD FALL
        hl.addi zero, 0x2000, ->a2
bad:    sdi a1, [a2, 0]
        BSTOP
"""


@pytest.fixture
def tadd(tadd_source):
    m = pto.Machine()
    program = pto.assemble(tadd_source, file_name="tadd.s")
    m.load(program)
    return m, program


def strided_u32(m, address):
    """A 4x4 U32 tile stored with a 32-byte row stride (tadd.s's A and B)."""
    return np.frombuffer(m.memory.read(address, 4 * 32), dtype="<u4").reshape(4, 8)[:, :4]


def test_example_kernel_matches_numpy(tadd):
    m, program = tadd
    a, b = strided_u32(m, 0x20000), strided_u32(m, 0x20100)
    r = m.run(stop_symbol="done")
    assert r.reason == "stop-pc" and r.passed
    assert r.pc == program.symbols["done"]
    # 5 scalar set-up instructions, TLOAD and TLOAD bundles of 5, TADD of 4,
    # TSTORE of 3, BSTOP: 23 attempts.
    assert r.steps == 23
    assert r.fault is None
    expected = a + b
    np.testing.assert_array_equal(m.tile("T#1"), expected)
    stored = np.frombuffer(m.memory.read(0x20200, 64), dtype="<u4").reshape(4, 4)
    np.testing.assert_array_equal(stored, expected)
    assert expected[3, 3] == 16 + 1600


def test_load_sets_the_start_state(tadd):
    m, program = tadd
    assert m.pc == program.entry == 0
    assert m.gpr["sp"] == 0x7FFFFFFF0000  # the real profile's default stack top


def test_registers_after_run(tadd):
    m, _ = tadd
    m.run(stop_symbol="done")
    assert m.gpr["a0"] == 0x20000 and m.gpr[2] == 0x20000
    assert m.gpr["a1"] == 32
    assert m.gpr["a3"] == 0x20200 and m.gpr[5] == 0x20200
    assert m.gpr["a4"] == 16


def test_gpr_write_and_errors(tadd):
    m, _ = tadd
    m.gpr["s0"] = 0x1234
    assert m.gpr[11] == 0x1234
    m.gpr[0] = 99  # zero is hard-wired: the write is discarded
    assert m.gpr["zero"] == 0
    assert len(m.gpr) == 24 and m.gpr.names()[10] == "ra"
    with pytest.raises(KeyError):
        m.gpr["q7"]
    with pytest.raises(IndexError):
        m.gpr[24]


def test_max_steps_and_step(tadd):
    m, _ = tadd
    r = m.run(max_steps=3)
    # three 48-bit HL.ADDI: TPC 18
    assert (r.reason, r.steps, r.pc, m.pc) == ("max-steps", 3, 18, 18)
    r = m.step()
    assert (r.reason, r.steps, m.pc) == ("max-steps", 1, 22)  # ADDI is 32-bit
    assert m.gpr["a1"] == 32


def test_stop_pc_and_hits():
    m = pto.Machine()
    p = pto.assemble(LOOP_SUM)
    m.load(p)
    # `loop` is reached once from _start's block and then 9 times by the taken branch.
    r = m.run(stop_symbol="loop", stop_after_hits=3)
    assert r.reason == "stop-pc" and m.pc == p.symbols["loop"]
    assert m.gpr["a1"] == 10 + 9  # two passes done
    r = m.run(stop_pc=p.symbols["done"])
    assert r.reason == "stop-pc"
    assert m.gpr["a1"] == 55 and m.gpr["a0"] == 0


def test_return_pc_writes_ra(tadd):
    m, program = tadd
    m.run(max_steps=1, return_pc="done")
    assert m.gpr["ra"] == program.symbols["done"]
    m.run(max_steps=1, return_pc=0x40)
    assert m.gpr["ra"] == 0x40


def test_fault_in_reference_profile():
    m = pto.Machine(profile="reference", memory_bytes=4096)
    p = pto.assemble(STORE_OUT_OF_RANGE)
    m.load(p)
    r = m.run(max_steps=100)
    assert r.reason == "fault" and not r.passed
    assert r.fault.name == "Fault_DataPage"
    assert r.fault.address == 0x2000
    assert r.fault.pc == p.symbols["bad"]
    assert m.numeric_profile == "reference"


def test_trace_records_every_attempt(tadd):
    m, _ = tadd
    records = []
    r = m.run(max_steps=4, trace=records.append)
    assert len(records) == r.steps == 4
    first = records[0]
    assert (first["pc"], first["next_pc"]) == (0, 6)
    assert first["gpr_writes"] == {"a0": 0x20000}
    assert first["outcome"] == "next" and first["fault"] is None
    assert first["text"].lower() == "hl.addi zero, 0x20000, ->a0"
    assert records[3]["gpr_writes"] == {"a1": 32}


def test_trace_sees_memory_accesses():
    m = pto.Machine()
    p = pto.assemble(STORE_OUT_OF_RANGE.replace("0x2000", "0x3000"))
    m.load(p)
    writes = []
    m.run(max_steps=3, trace=lambda rec: writes.extend(a for a in rec["memory"] if a[0] == "write"))
    assert writes == [("write", 0x3000, 8, 0)]


def test_trace_exception_ends_the_run_and_the_machine_goes_on(tadd):
    m, _ = tadd

    def stop(record):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        m.run(max_steps=10, trace=stop)
    assert m.pc == 6  # the first attempt retired before the callback raised
    assert m.run(stop_symbol="done").reason == "stop-pc"


def test_run_releases_the_gil():
    m = pto.Machine()
    m.load(pto.assemble(SPIN))
    result = {}
    runner = threading.Thread(target=lambda: result.update(r=m.run(max_steps=300_000_000)))
    runner.start()
    ticks = 0
    while runner.is_alive():
        ticks += 1
        time.sleep(0.001)
    runner.join()
    assert result["r"].reason == "max-steps"
    assert ticks > 5  # the main thread ran while the simulator did


def test_system_registers(tadd):
    m, _ = tadd
    assert m.sysreg["VERSION"] == 1  # reset value "one"
    assert m.sysreg["TILE_CAPACITY"] == 262144  # PTO_TILE_CAPACITY_BYTES
    r = m.run(max_steps=5)
    assert m.sysreg["CYCLE"] == r.steps  # AdvanceArchitecturalTime once per attempt
    m.sysreg["EVBASE_ACR0"] = 0x8000
    assert m.sysreg["EVBASE_ACR0"] == 0x8000
    assert m.sysreg["EVBASE_ACR1"] == 0
    with pytest.raises(ValueError, match="read-only"):
        m.sysreg["VERSION"] = 2
    with pytest.raises(KeyError):
        m.sysreg["NO_SUCH_REGISTER"]
    with pytest.raises(KeyError):
        m.sysreg["EVBASE_ACR16"]
    assert "CYCLE" in m.sysreg.names()


def test_memory_bytes_and_numpy():
    m = pto.Machine(profile="reference", memory_bytes=4096)
    m.memory.write(0x100, b"\x01\x02\x03")
    assert m.memory.read(0x100, 4) == b"\x01\x02\x03\x00"
    values = np.array([[1, 2], [3, 0x01020304]], dtype="<u4")
    m.memory.write(0x200, values)
    assert m.memory.read(0x200, 16) == values.tobytes()
    m.memory.write(0x300, values[:, 1])  # a non-contiguous view: its elements in order
    assert m.memory.read(0x300, 8) == bytes([2, 0, 0, 0, 4, 3, 2, 1])
    assert m.memory.size == 4096
    with pytest.raises(IndexError):
        m.memory.read(4090, 8)
    with pytest.raises(IndexError):
        m.memory.write(4095, b"ab")
    with pytest.raises(TypeError):
        m.memory.write(0, "text")


def test_host_writes_to_code_are_seen(tadd):
    m, _ = tadd
    assert m.run(max_steps=1).steps == 1  # decodes and caches the first instruction
    # Replace the second HL.ADDI with the first one's bytes: a0 is written again.
    m.memory.write(6, m.memory.read(0, 6))
    m.gpr["a0"] = 0
    m.step()
    assert m.gpr["a0"] == 0x20000 and m.gpr["a2"] == 0


def test_machine_configuration_errors(tadd_source):
    with pytest.raises(ValueError, match="profile"):
        pto.Machine(profile="fast")
    with pytest.raises(ValueError):
        pto.Machine(profile="reference", memory_bytes=100)
    with pytest.raises(ValueError, match="numeric_profile"):
        pto.Machine(numeric_profile="exact")
    with pytest.raises(ValueError, match="TILE_ELEMENTS"):
        pto.Machine(tile_elements=0)
    m = pto.Machine()
    with pytest.raises(ValueError, match="no program"):
        m.run(stop_symbol="done")
    m.load(pto.assemble(tadd_source))
    with pytest.raises(KeyError, match="nowhere"):
        m.run(stop_symbol="nowhere")
    with pytest.raises(ValueError, match="exclusive"):
        m.run(stop_symbol="done", stop_pc=4)
    with pytest.raises(ValueError, match="max_steps"):
        m.run(max_steps=0)


def test_load_checks_identity():
    m = pto.Machine()
    p = pto.assemble("    .text\n_start: BSTART.STD FALL\n    BSTOP\n")
    # The identity note is part of the ELF; an image without it is refused.
    stripped = bytearray(p.elf_bytes)
    at = stripped.find(b"0.58.3")
    stripped[at : at + 6] = b"0.00.0"
    with pytest.raises(pto.LoadError, match="identity|release"):
        m.load(pto.load_elf(bytes(stripped)))
    m.load(pto.load_elf(bytes(stripped)), check_identity=False)
    assert m.pc == p.entry


def test_another_thread_cannot_touch_a_running_machine(tadd):
    m, _ = tadd
    inside, checked = threading.Event(), threading.Event()
    errors = []

    def trace(record):
        if not inside.is_set():
            assert m.gpr["a0"] == 0x20000  # the running thread itself may look
            inside.set()
            checked.wait(10)

    runner = threading.Thread(target=lambda: m.run(max_steps=2, trace=trace))
    runner.start()
    inside.wait(10)
    try:
        m.gpr["a0"]
    except RuntimeError as e:
        errors.append(str(e))
    checked.set()
    runner.join()
    assert errors and "another thread" in errors[0]
    assert m.pc == 12  # two HL.ADDI ran


def test_a_trace_callback_cannot_run_the_machine(tadd):
    m, _ = tadd
    with pytest.raises(RuntimeError, match="already running"):
        m.run(max_steps=2, trace=lambda record: m.step())


def test_reset(tadd):
    m, _ = tadd
    m.run(stop_symbol="done")
    m.reset()
    assert m.pc == 0 and m.gpr["a0"] == 0
    assert not m.tile_info("T#1").allocated
    assert m.memory.read(0x20000, 4) == bytes(4)
    with pytest.raises(ValueError, match="no program"):
        m.run(stop_symbol="done")


def test_host_memory_cap():
    # One 4 KiB guest page: the program's own; a store to another page
    # needs a second one, which the cap refuses.
    m = pto.Machine(memory_cap=4096)
    m.load(pto.assemble(STORE_OUT_OF_RANGE.replace("0x2000", "0x3000")))
    r = m.run(max_steps=10)
    assert r.reason == "host-limit" and not r.passed
    with pytest.raises(pto.HostMemoryError):
        m.memory.write(0x5000, b"x")
    assert isinstance(pto.HostMemoryError("x"), pto.Error)


def test_host_request_ends_the_run_as_passed(source_dir):
    # examples/cases/host_exit_group: exit_group(7) (a7 = 94, a0 = 7) as a
    # type-1 service request from ACR 2, the fourth attempt.
    case = source_dir / "examples" / "cases" / "host_exit_group"
    p = pto.assemble((case / "source.S").read_text(), linker_script=case / "case.ld")
    m = pto.Machine(profile="reference", memory_bytes=65536)
    m.load(p)
    m.sysreg["CORE_STATE"] = 2  # CORE_STATE[3:0] is the current ACR
    r = m.run(stop_symbol="cross_model_stop", max_steps=4, return_pc="cross_model_stop", host_request=(94, 7, 1))
    assert r.reason == "host-request" and r.passed
    assert r.steps == 4
    assert r.fault.name == "Fault_ServiceRequest"
    assert (m.gpr["a0"], m.gpr["a7"]) == (7, 94)
    with pytest.raises(ValueError, match="return_pc"):
        m.run(host_request=(94, 7, 1))
