#!/usr/bin/env python3
"""Convert the spec's generated SYS/AMO validators into the step tables of
tests/unit/spec_points_scalar_model_test.cpp.

Some scalar-model test points only call a validator that the spec generates
(``scripts/generate-asl-decoders --kind monolithic``), for instance
ValidateCanonicalScalarSYSEffects.  Each such validator is a straight-line
list of cases: reset the profile, set up state, execute one raw encoding and
assert on the outcome.  This script runs the generator (as
tools/extract_exec_vectors.py does), finds the validators listed in TABLES,
and rewrites every statement as one ``sysv::Step`` (an ``Op`` plus up to five
integer arguments; the vocabulary is the ``sysv::Op`` enum of the test and
``sysv::run_steps`` gives each op its meaning on our machine).

Output: ``tests/unit/generated/spec_sys_validator_tables.inc``, included by
the test inside ``namespace sysv``.  A statement the rules below do not know
stops the script with an error, so a changed validator is noticed instead of
being translated partly.

Run from anywhere:  python3 tools/extract_sys_validator_tables.py [--spec DIR]
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True
_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("extract_exec_vectors", _HERE / "extract_exec_vectors.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

# (generated validator, C++ table name), in output order.
TABLES = (
    ("ValidateCanonicalScalarSYSMaintenanceLegalityTotality", "kMaintLegality"),
    ("ValidateCanonicalScalarSYSMaintenanceSelectorTotality", "kMaintSelector"),
    ("ValidateCanonicalScalarSYSRequestTotality", "kRequest"),
    ("ValidateCanonicalScalarSYSTrapAndRecoveryTotality", "kTrapRecovery"),
    ("ValidateCanonicalScalarSYSSelectorReadWriteAliases", "kSelectorAliases"),
    ("ValidateSystemRegisterResetAndAccess", "kSysregResetAccess"),
    ("ValidateCanonicalScalarSYSEffects", "kSysEffects"),
    ("ValidateCanonicalScalarAMOEffects", "kAmoEffects"),
)

# Named constants the validators use as values; their numbers are read from
# the spec's ASL sources (``constant NAME = value;``).
NAMED_CONSTANTS = ("PTO_MODEL_MEMORY_EVENTS", "PTO_MODEL_MAX_TILE_CAPACITY_BYTES", "PTO_XLEN")

LINE_WIDTH = 116  # wrap the emitted rows near this column


class Converter:
    def __init__(self, generated: str, constants: dict[str, int]):
        self.generated = generated
        self.constants = constants

    # -- values ---------------------------------------------------------
    def value(self, text: str) -> int:
        """Number of a validator operand: a literal, a bit string, a named
        constant, Ones{N}, or Zeros{N} plus a sum of literals / constants."""
        e = text.strip()
        if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", e):
            return int(e, 0)
        if e in self.constants:
            return self.constants[e]
        m = re.fullmatch(r"'([01]+)'", e)
        if m:
            return int(m.group(1), 2)
        m = re.fullmatch(r"Ones\{(\w+)\}", e)
        if m:
            return (1 << self.width(m.group(1))) - 1
        m = re.fullmatch(r"Zeros\{\w+\}((?: \+ \w+)*)", e)
        if m:
            terms = re.findall(r"\+ (\w+)", m.group(1))
            return sum(self.value(t) for t in terms)
        raise SystemExit(f"unknown value expression: {e}")

    def width(self, text: str) -> int:
        return int(text) if text.isdigit() else self.constants[text]

    # -- statements -----------------------------------------------------
    def body(self, name: str) -> str:
        m = re.search(r"^func " + name + r"\(\)\nbegin\n(.*?)^end;", self.generated, re.S | re.M)
        if not m:
            raise SystemExit(f"validator {name} not found in the generated ASL")
        return m.group(1)

    @staticmethod
    def statements(body: str) -> list[str]:
        """One string per statement (multi-line statements joined), comments
        and blank lines dropped."""
        out, pending = [], ""
        for raw in body.splitlines():
            line = raw.strip()
            if not line or line.startswith("//"):
                continue
            pending = (pending + " " + line).strip()
            if pending.endswith(";"):
                out.append(pending)
                pending = ""
        return out

    @staticmethod
    def unroll(stmts: list[str]) -> list[str]:
        """Unroll the DMA loops (``for dma_event|dma_byte = lo to hi do``):
        the loop variable becomes each literal in turn."""
        out: list[str] = []
        loop = None
        for s in stmts:
            m = re.match(r"for (dma_event|dma_byte) = (\d+) to (\d+) do (.*)$", s)
            if m:
                loop = (m.group(1), int(m.group(2)), int(m.group(3)), [m.group(4)])
                continue
            if loop is None:
                out.append(s)
                continue
            if s != "end;":
                loop[3].append(s)
                continue
            var, lo, hi, inner = loop
            for i in range(lo, hi + 1):
                for t in inner:
                    t = re.sub(r"NaturalToWord\(" + var + r" as integer \{[^}]*\}\)", str(i), t)
                    t = t.replace(f"[[{var}]]", f"[[{i}]]")
                    out.append(re.sub(rf"\b{var}\b", str(i), t))
            loop = None
        return out

    def convert(self, name: str) -> list[list]:
        steps: list[list] = []
        pending_exec: dict[str, int] = {}
        v = self.value
        for s in self.unroll(self.statements(self.body(name))):
            for pattern, action in RULES:
                m = re.fullmatch(pattern, s)
                if m:
                    break
            else:
                raise SystemExit(f"{name}: no rule for statement: {s}")
            if action is None:
                continue
            if action == "exec":
                pending_exec[m.group(1)] = len(steps)
                steps.append(["Exec", int(m.group(2), 2), int(m.group(3)), None])
            elif action == "exec_status":
                steps[pending_exec.pop(m.group(1))][3] = m.group(2)
            else:
                steps.extend(action(m, v))
        for st in steps:
            if st[0] == "Exec" and st[3] is None:
                raise SystemExit(f"{name}: executed encoding {st[1]:#x} without a status assertion")
        return steps


def _one(op, *groups):
    """Rule action: step ``op`` with the listed match groups as arguments;
    ``int`` groups are decimal numbers, ``val`` groups value expressions,
    and a str prefix turns a group into an enum reference."""
    def action(m, v):
        args = []
        for i, kind in enumerate(groups, start=1):
            g = m.group(i)
            if kind == "int":
                args.append(int(g))
            elif kind == "val":
                args.append(v(g))
            else:
                args.append(kind + g)
        return [[op, *args]]
    return action


def _const(op, *args):
    return lambda m, v: [[op, *args]]


Q = r"\[\[(\d+)\]\]"
EV = r"_MemoryEvents" + Q
RULES = [
    (r"ResetProfileState\(\);", _const("Reset")),
    (r"SetCurrentACR\((\d+)\);", _one("SetAcr", "int")),
    (r"ClearFault\(\);", _const("ClearFault")),
    (r"WriteTPC\((.*)\);", _one("WriteTpc", "val")),
    (r"WriteBPC\((.*)\);", _one("WriteBpc", "val")),
    (r"BeginBundle\(BundleKind_(\w+), BundleTransfer_(\w+), (.*?), (.*?), (.*?), (TRUE|FALSE)\);",
     lambda m, v: [["Begin", "Kind::" + m.group(1), "Transfer::" + m.group(2), v(m.group(3)), v(m.group(4)),
                    v(m.group(5)), m.group(6) == "TRUE"]]),
    (r"EnterBundleBody\(\);", _const("Enter")),
    (r"WriteGPR\((\d+), (.*)\);", _one("WriteGpr", "int", "val")),
    (r"_TQueue" + Q + r" = (.*);", _one("SetTQ", "int", "val")),
    (r"_UQueue" + Q + r" = (.*);", _one("SetUQ", "int", "val")),
    (r"_(T|U)QueueValid" + Q + r" = TRUE;", None),  # SetTQ/SetUQ mark the entry valid
    (r"let (\w+) = ExecuteScalarInstruction\('([01]+)', (\d+)\);", "exec"),
    (r"assert (\w+) == ScalarExecution_(\w+);", "exec_status"),
    (r"assert _LastFault == Fault_(\w+);", _one("Fault", "Fault_")),
    (r"assert _TLBEpoch == (\d+);", _one("TlbEpoch", "int")),
    (r"assert _ArchitectureRequestEpoch == (\d+);", _one("ArchEpoch", "int")),
    (r"assert _LastMaintenanceOperation == Maintenance_(\w+);", _one("MaintOp", "Maint::")),
    (r"assert _LastMaintenanceOperand == (.*);", _one("MaintOperand", "val")),
    (r"assert _LastControlRequest == ExecutionControl_(\w+);", _one("CtrlReq", "Ctrl::")),
    (r"assert _ControlRequestOperand == (.*);", _one("CtrlOperand", "val")),
    (r"assert _ControlRequestOperand\[3:0\] == (.*);", _one("CtrlOperandLow4", "val")),
    (r"assert _BARG\.bpcn == (.*);", _one("Bpcn", "val")),
    (r"assert _ACRTrapNumber" + Q + r" == (.*);", _one("TrapNumber", "int", "val")),
    (r"assert _ACRTrapCause" + Q + r" == (.*);", _one("TrapCause", "int", "val")),
    (r"assert CurrentACR\(\) == (\d+);", _one("Acr", "int")),
    (r"assert _TrapContexts" + Q + r"\.tpc == (.*);", _one("CtxTpc", "int", "val")),
    (r"assert ReadTPC\(\) == (.*);", _one("Tpc", "val")),
    (r"assert ReadGPR\((\d+)\) == (.*);", _one("Gpr", "int", "val")),
    (r"SaveTrapContext\((\d+), (\d+)\);", _one("SaveCtx", "int", "int")),
    (r"WriteSystemRegisterAddress\((.*), (.*)\);", _one("WriteSysreg", "val", "val")),
    # Fill loops: register / queue entry i = base + i.
    (r"for scalar_sys_init = 0 to PTO_ABSOLUTE_GPR_COUNT - 1 do WriteGPR\(scalar_sys_init as GPRIndex, "
     r"Zeros\{PTO_XLEN\} \+ (\d+) \+ scalar_sys_init\);", _one("InitGprs", "int")),
    (r"for scalar_sys_init = 0 to PTO_TEMPORARY_QUEUE_DEPTH - 1 do _TQueue\[\[scalar_sys_init\]\] = "
     r"Zeros\{PTO_XLEN\} \+ (\d+) \+ scalar_sys_init;", _one("InitTQ", "int")),
    (r"_UQueue\[\[scalar_sys_init\]\] = Zeros\{PTO_XLEN\} \+ (\d+) \+ scalar_sys_init;", _one("InitUQ", "int")),
    (r"_(T|U)QueueValid\[\[scalar_sys_init\]\] = TRUE;", None),
    (r"end;", None),
    (r"_SystemRegisters\.thread_ptr = (.*);", _one("SetThreadPtr", "val")),
    (r"_SystemRegisters\.cycle = (.*);", _one("SetCycle", "val")),
    (r"let \w+ = ReadScalarRegisterOperand\((\d+)\);", _one("RecordSource", "int")),
    (r"let \w+ = _SystemRegisters\.cycle;", _const("RecordCycle")),
    (r"assert _SystemRegisters\.thread_ptr == scalar_sys_selector_source_\d+;", _const("ThreadPtrEqSource")),
    (r"assert _SystemRegisters\.cycle == scalar_sys_selector_cycle_\d+ \+ (\d+);", _one("CycleDelta", "int")),
    (r"assert _SystemRegisters\.cycle == (.*);", _one("Cycle", "val")),
    (r"assert _SystemRegisters\.thread_ptr == (.*);", _one("ThreadPtr", "val")),
    (r"assert _TQueue" + Q + r" == (.*);", _one("TQ", "int", "val")),
    (r"assert _UQueue" + Q + r" == (.*);", _one("UQ", "int", "val")),
    (r"assert ReadTemporaryQueue\(TRUE, (\d+)\) == (.*);", _one("TQ", "int", "val")),
    (r"assert ReadTemporaryQueue\(FALSE, (\d+)\) == (.*);", _one("UQ", "int", "val")),
    (r"_(TLBEpoch|ArchitectureRequestEpoch|InstructionCacheEpoch|DataCacheEpoch|BundleCacheEpoch) = (\d+);",
     lambda m, v: [["Set" + m.group(1), int(m.group(2))]]),
    (r"assert _(InstructionCacheEpoch|DataCacheEpoch|BundleCacheEpoch) == (\d+);",
     lambda m, v: [[m.group(1), int(m.group(2))]]),
    (r"_ReturnAddress = (.*);", _one("SetReturnAddress", "val")),
    (r"_CommitArgument = (.*);", _one("SetCommitArgument", "val")),
    (r"assert _ReturnAddress == (.*);", _one("ReturnAddress", "val")),
    (r"assert _CommitArgument == (.*);", _one("CommitArgument", "val")),
    (r"_ReservationValid = FALSE;", _const("ClearReservation")),
    (r"_ReservationValid = TRUE;", _const("SetReservation", 1)),
    (r"assert _ReservationValid;", _const("ReservationValid", 1)),
    (r"assert !_ReservationValid;", _const("ReservationValid", 0)),
    (r"_ReservationSize = (\d+);", _one("SetReservationSize", "int")),
    (r"_ReservationAddress = (.*);", _one("SetReservationAddress", "val")),
    (r"assert _ReservationSize == (\d+);", _one("ReservationSize", "int")),
    (r"assert _ReservationAddress == (.*);", _one("ReservationAddress", "val")),
    (r"StartMemoryEventCapture\((\d+)\);", _one("StartCapture", "int")),
    (r"StopMemoryEventCapture\(\);", _const("StopCapture")),
    (r"assert _TrapContexts" + Q + r"\.valid;", lambda m, v: [["CtxValid", int(m.group(1)), 1]]),
    (r"assert !_TrapContexts" + Q + r"\.valid;", lambda m, v: [["CtxValid", int(m.group(1)), 0]]),
    (r"assert _FaultAddress == (.*);", _one("FaultAddress", "val")),
    (r"assert _TrapContexts" + Q + r"\.source_acr == (\d+);", _one("CtxSource", "int", "int")),
    # Read-only check: read, remember, (write), read again, compare.
    (r"let readonly_before_\d+ = ReadSystemRegisterAddress\((.*)\);",
     lambda m, v: [["ReadSysreg", v(m.group(1))], ["SaveRead"]]),
    (r"(?:let \w+|-) = ReadSystemRegisterAddress\((.*)\);", _one("ReadSysreg", "val")),
    (r"assert readonly_after_\d+ == readonly_before_\d+;", _const("ReadEqSaved")),
    (r"assert (?:reset_value|written_value|scalar_sys_written_value|scalar_sys_swapped_value)\w* == (.*);",
     _one("ReadValue", "val")),
    (r"assert _ExtendedSystemRegisters" + Q + r" == (.*);", _one("Banked", "int", "val")),
    (r"let \w+ = ReadSystemRegister\(SystemRegister_THREAD_PTR\);", _const("ReadSysreg", 0)),
    (r"assert ReadBPC\(\) == (.*);", _one("Bpc", "val")),
    (r"assert _LastFenceSuccessor == (.*);", _one("FenceSucc", "val")),
    (r"assert _LastFencePredecessor == (.*);", _one("FencePred", "val")),
    (r"PushTemporaryQueue\(TRUE, (.*)\);", _one("PushTQ", "val")),
    (r"SelectMemoryEventAgent\((\d+)\);", _one("SelectAgent", "int")),
    (r"Store\((.*?), (\d), (.*)\);", _one("Store", "val", "int", "val")),
    (r"assert LoadTranslatedUnsigned\((.*?), (\d)\) == (.*);", _one("Mem", "val", "int", "val")),
    (r"assert ReadMemoryByte\((.*?)\) == (.*);", lambda m, v: [["Mem", v(m.group(1)), 1, v(m.group(2))]]),
    (r"assert _MemoryEventCount == (.*);", _one("EventCount", "val")),
    (r"assert " + EV + r"\.kind == MemoryEvent_Fence;", _one("EventIsFence", "int")),
    (r"assert " + EV + r"\.kind == MemoryEvent_(\w+);", _one("EventKind", "int", "EvKind::")),
    (r"assert " + EV + r"\.fence_successor == (.*);", _one("EventFenceSucc", "int", "val")),
    (r"assert " + EV + r"\.fence_predecessor == (.*);", _one("EventFencePred", "int", "val")),
    (r"assert " + EV + r"\.agent == (\d+);", _one("EventAgent", "int", "int")),
    (r"assert " + EV + r"\.order == MemoryOrder_(\w+);", _one("EventOrder", "int", "Order::")),
    (r"assert " + EV + r"\.write_performed;", lambda m, v: [["EventWrote", int(m.group(1)), 1]]),
    (r"assert !" + EV + r"\.write_performed;", lambda m, v: [["EventWrote", int(m.group(1)), 0]]),
    (r"assert " + EV + r"\.size_bytes == (\d+);", _one("EventSize", "int", "int")),
    (r"assert " + EV + r"\.read_value == (.*);", _one("EventRead", "int", "val")),
    (r"assert " + EV + r"\.write_value == (.*);", _one("EventWriteValue", "int", "val")),
]


# -- C++ output ----------------------------------------------------------
COMMON_SYS_BEGIN = ("Kind::System", "Transfer::Fallthrough", 0, 0x100, 0)


def cpp_arg(a) -> str:
    if isinstance(a, int):
        return hex(a) if a > 9 else str(a)
    if a.startswith("Fault_"):
        return "k" + a[len("Fault_"):]  # the test's kIllegalInstruction, ...
    if a.startswith(("Kind::", "Transfer::", "Maint::", "Ctrl::", "EvKind::", "Order::")):
        return f"U({a})"
    return a


def cpp_step(step: list) -> str:
    op, args = step[0], list(step[1:])
    if op == "Exec":
        args = [hex(args[0]), args[1], 1 if args[2] == "Executed" else 0]
    elif op == "Begin":
        if args[5]:
            raise SystemExit("BeginBundle with a taken transfer is not supported by run_steps")
        args = args[:5]
        if tuple(args) == COMMON_SYS_BEGIN:
            op, args = "BeginSys", []
        else:
            args = [args[0], args[1], hex(args[2]), hex(args[3]), hex(args[4])]
    return "{" + ", ".join([op] + [cpp_arg(a) for a in args]) + "}"


def cpp_table(name: str, steps: list[list]) -> str:
    """Rows of steps; each case (Reset) starts a new row."""
    lines = [f"const Step {name}[] = {{"]
    row = ""
    for st in steps:
        item = cpp_step(st)
        if row and (st[0] == "Reset" or len(row) + len(item) + 6 > LINE_WIDTH):
            lines.append("    " + row.rstrip())
            row = ""
        row += item + ", "
    if row:
        lines.append("    " + row.rstrip())
    lines.append("};")
    return "\n".join(lines)


def read_constants(spec: Path) -> dict[str, int]:
    """``constant NAME = <number or NAME>;`` definitions of the spec's ASL."""
    raw: dict[str, str] = {}
    for path in sorted((spec / "asl").rglob("*.asl")):
        for m in re.finditer(r"^constant (\w+) = (\w+);", path.read_text(), re.M):
            raw.setdefault(m.group(1), m.group(2))

    def resolve(name: str, depth: int = 0) -> int:
        text = raw[name]
        if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", text):
            return int(text, 0)
        if depth > 8:
            raise SystemExit(f"constant {name}: definition chain too long")
        return resolve(text, depth + 1)

    return {name: resolve(name) for name in NAMED_CONSTANTS}


def spec_revision(spec: Path) -> str:
    """Release version from specification.toml, plus the git commit when the
    spec is a git checkout."""
    toml = (spec / "specification.toml").read_text()
    m = re.search(r'^architecture_version = "([^"]+)"', toml, re.M)
    rev = m.group(1) if m else "unknown version"
    try:
        commit = subprocess.run(["git", "-C", str(spec), "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
        rev += f" (commit {commit})"
    except (OSError, subprocess.CalledProcessError):
        pass
    return rev


HEADER = """\
// Generated by tools/extract_sys_validator_tables.py from pto-spec {rev}
// (the validators of `scripts/generate-asl-decoders --kind monolithic`).
// DO NOT EDIT: rerun the script.  Included by
// tests/unit/spec_points_scalar_model_test.cpp inside namespace sysv, which
// defines Step, Op, U() and the fault constants used below.
"""


def main(argv=None) -> int:
    root = _HERE.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", type=Path, default=Path("/work/spec"))
    ap.add_argument("--generated", type=Path, default=None,
                    help="output of `generate-asl-decoders --kind monolithic` "
                         "(default: run the generator into a temporary directory)")
    ap.add_argument("--out", type=Path, default=root / "tests/unit/generated/spec_sys_validator_tables.inc")
    args = ap.parse_args(argv)

    generated = args.generated.read_text() if args.generated else base.run_generator(args.spec)
    conv = Converter(generated, read_constants(args.spec))
    parts = [HEADER.format(rev=spec_revision(args.spec))]
    for func, table in TABLES:
        steps = conv.convert(func)
        cases = sum(1 for s in steps if s[0] == "Reset")
        print(f"{table}: {len(steps)} steps, {cases} resets, from {func}")
        parts.append(f"// {func}\n" + cpp_table(table, steps) + "\n")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(parts))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
