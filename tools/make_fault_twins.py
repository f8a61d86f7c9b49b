#!/usr/bin/env python3
"""Write the negative twins of scalar fault vectors whose legal variant the
rule determines (docs/conformance.md "Negative twins").

Input : tests/data/spec_scalar_exec.json (tools/extract_exec_vectors.py) and
        the catalog's scalar-forms.json (``--catalog``).
Output: tests/data/spec_fault_twins.json, run by
        tests/unit/runner_spec_vectors_test.cpp (AVS/SpecFaultTwin.*).

A twin is the vector's steps up to its first faulting exec with the value
the rule reads made legal, then the same instruction word, expected
Executed, then the observable effect the spec asserts for that instruction.
Nothing is taken from the model's output: the effect comes from the spec
point's own successful run of the instruction (the last Executed exec of the
same vector, after the trap was recovered) and from the catalog's contract
facts, moved to the twin's address and registers as described per family.

Families (the rule each one legalises):

* AGU ``*-FAULT-001`` (``ValidateScalarAGUFault_<MN>``): the first exec
  accesses 0x1000, one byte past the bounded model memory, and must raise
  Fault_DataPage (contract: "a later permission or bounded-memory failure
  raises Fault_DataPage at the original address"; ProbeDataAccess and
  DataAccessPermitted, asl/scalar/model/agu/memory.asl).  Twin: the address
  base (the register written inside ``[...]`` in the form's assembly, or
  TPC for a PC-relative form) is 0x100 lower, so the same word accesses
  0xF00: aligned for every size and pair, inside memory, ring 0.  Memory
  there holds what the point stored before its own successful run (moved by
  the same distance), so read values carry over.  Expected after the exec:
  the point's Fault_None, TPC advance, memory event count and every event
  field (address moved; agent: the twin's capturing agent; a store's
  write_value is the low size_bytes of its data register, contract
  "stores ... little-endian"), and every register or queue entry the point
  asserts: a source (not a RegDst field of the form, or a queue entry the
  run leaves as it was) holds the twin's own value, a loaded destination
  the loaded value, a pre-index address write-back the moved address; a
  post-index write-back is not asserted (it adds the form's offset, which
  differs between the two runs).
  Prefetch points (PRF*) never fault (their exec is Executed): no twin.

* SCALAR ``*-READINESS-001``: a relative source (Reg5 code 24..27 = T#1..T#4,
  28..31 = U#1..U#4, or C.SLLI/C.SRLI's implicit T#1) names a queue entry
  that is not valid after reset, so the instruction raises
  Fault_IllegalInstruction (ScalarSourceSelectorLegal /
  TemporaryQueueSourceAvailable, ScalarImplicitSourceOperandsLegal;
  asl/scalar/model/types/operands.asl).  Twin: before the exec, push k
  values (T#k: k pushes to T; U#k to U), so the entry is valid.  Expected:
  Fault_None, TPC advanced by the word's length when the point set TPC, the
  destination (GPR, or a T/U push for the compressed forms and Reg5 codes
  30/31) holding the value the mnemonic's contract state_effects give for
  those sources (ALU_RESULT below, written from the contracts), and the
  relative sources not consumed (every pushed value still at its index,
  one further along after a push to the same queue).

* FSU ``*-RSVD-001``: SrcType 2 and 3 are reserved
  (InstructionContractSourceTypeLegal_<MN>: '00' or '01';
  ScalarFPSourceTypeCode, asl/scalar/model/fsu/profile.asl).  Twin: the
  point's faulting word with SrcType 3 (else 2; for a conversion the one
  with DstType 0) and bit 1 cleared: 3 -> 1 (FP32, carrier bits 31:0) or
  2 -> 0 (FP64), with the sources the point set before that exec.
  The sticky flags are cleared before the legal exec (the points preset
  all five, which would hide any flag).  Expected: Fault_None, TPC + 4,
  NumericStatusFlags() = the flags the run produces, and RegDst as the spec computes it for the run the points make,
  under the pto-v0 reference profile (MachineConfig::reference()): the
  portable model's ScalarFPEncodingCompare (canonical 0/1), ScalarFPMinMax
  (signed zeros ordered by the model) and FABS (ExecuteDecodedFPUnary);
  the reference profile's carrier arithmetic (asl/arch/profile/
  reference-profile.asl: ADD/SUB/MUL modulo 2^64, DIV/RECIP unsigned
  division or all-ones with DZ for a zero carrier, EXP + 1, SQRT and the
  conversions identity, fused product +/- addend); then
  NormalizeScalarFPResult / NormalizeScalarIntegerResult, and
  NormalizeScalarIntegerSource for SCVTF/UCVTF (asl/scalar/model/dispatch/
  fsu.asl).  No rounding mode or subnormal handling enters: the profile
  is integer arithmetic on carriers.  Each result is checked against the
  mnemonic's TYPE-001 point, which runs the same legal word from the same
  seeds: the tool stops when they differ.

* SYS ``SSR{GET,SET,SWAP}`` and ``HL.SSR{GET,SET}`` ``-ACCESS-001`` /
  ``-UNKNOWN-001``: the SSR_ID names a write-only (EOIEI, 0xF0A, for a
  read), read-only (TIME, 0x10, for a write or swap) or unknown (0x2)
  register (ReadSystemRegisterAddress, SystemRegisterWritePermitted,
  SystemRegisterSwapPermitted; asl/scalar/model/sys/registers.asl).  Twin:
  SSR_ID 0x0001, GLOBAL_PTR, the catalog's read-write base register next to
  0x2, holding a known value set before the exec.  Expected (the same
  functions): a read publishes it to RegDst, a write stores SrcL in it, a
  swap does both with the old value; no trap is entered.

* Encoded-field points (FIELD_TWINS): a reserved field value; the twin
  clears the bit that makes it reserved (ACRE RRA_Type 2 -> 0, C.SSRGET
  SSRID 2 -> 0, LSRGET LSR_ID 3 -> 2, ACRC RST_Type 3 -> 2 at ACR2 and
  1 -> 0 at ACR1; ACRC at ACR0 runs at ACR1 instead) and expects the
  effect the ASL gives for the legal value.  ACRC and ACRE keep their own
  trap: ACRC's is the service request itself (Fault_ServiceRequest with
  the saved context, epoch and operand), ACRE with no saved context raises
  Fault_ExecutionStateCheck.

* Condition-setter points (SETC_TWINS): the block already holds a
  condition or commit target, or there is no block; the twin leaves out
  the earlier setter (or opens the block the point's sibling vector opens)
  and expects the commit argument / BARG effects the contract gives.

* MCOPY/MSET (BLOCK_TWINS, tests/data/spec_block_exec.json): a reserved
  relative selector (code 24, reserved for RegSrc0; the twin uses GPR 8,
  bit 4 cleared: all GPRs are zero, so a zero-length command), an overlap
  (the twin's destination is the source plus the length) or a wrapping
  destination (the twin's is 0x200).  Expected, from the contracts: the
  bytes copied forward, _LastMemoryCommandAddress/Size = destination and
  length, the reservation kept when the write does not overlap it, TPC + 4.

* C.BSTART.{STD,FP} (BLOCK_TWINS): a reserved BrType (3 -> 1, FALL) or an
  IND start with no retiring target (the twin begins a STD Direct block
  first); expected as the spec's own C.BSTART BRTYPE execution point
  asserts for the legal word.

* Tile ``*-LB0-001`` (tests/data/spec_bundle_exec.json; written to
  tests/data/spec_bundle_fault_twins.json and run by
  tests/unit/bundle_spec_vectors_test.cpp, AVS/SpecBundleFaultTwin.*): the
  elementwise bundle has no B.DIM LB0, so the destination's ValidCol is not
  explicit and the operation raises Fault_TileLegality
  (BundleDestinationValidColumns, asl/block/model/dispatch/destination-shape.asl;
  "requires explicit nonzero LB0 ValidCol").  Twin: B.DIM LB0 = the
  sources' valid columns, written after the BSTART as the spec's
  *-DEFAULTS-001 execution points write it.  Where the point defines only
  part of a source's valid region, the twin also writes the other valid
  elements (a source must be completely defined, as TABS-DEFINED-001
  shows), so these twins make two changes.  Expected: the destination of
  binding 0 with the sources' valid shape and each element the contract's
  U64 result (TADD modular sum, TMAX/TMIN unsigned order, TABS and TRELU
  the unsigned identity, TNEG negation modulo 2^64, TNOT the complement),
  the sources unchanged.

* Tile ``T{ABS,NEG,NOT,RELU}-CAPACITY-001`` (bundle): the B.IOT's SizeCode 1
  (TileSizeCodeBytes: 128 bytes) cannot hold the destination (1 x 17 U64
  valid, LB2 = 32 physical columns: 256 bytes), Fault_TileAllocation.
  Twin: SizeCode 2 (256 bytes).  Expected: binding 0's destination 1 x 17
  with each element the contract's U64 result of the written source.
  (TCMP-CAPACITY defines no source element and TFMA-CAPACITY configures no
  source tile, so their legal runs are not determined: no twin.)

* Tile ``T{MAX,MIN,ABS,NEG,NOT,RELU}-SCHEMA-001`` (bundle): the sources and
  the destination are split over two B.IOT records; the closed elementwise
  schema wants "destination and both sources in one terminal B.IOT"
  (asl/block/model/dispatch/tile-schema.asl), Fault_TileLegality.  Twin: the
  two records replaced by the one terminal B.IOT the spec's own points use
  for this schema (0x0018de13: T1 -> a new 128-byte destination, or
  0x0818ce13: T1, T2 -> one, both with L).  Expected: binding 0's
  destination 1 x 1 with the contract's U64 result.

* ``C.B.DIMI`` DUP / PLACE (bundle): a second write of the same loop bound
  (LB1, written by C.B.DIMI, then B.DIM ->LB1), or a C.B.DIMI with no
  active block header (SetBundleDimension's guards, as the hand-written
  B.DIM twins in fault_twins_test.cpp).  Twin: the B.DIM writes LB0 (same
  value, the catalog's ->LB0 form), or the STD fallthrough block the point's
  second half opens is opened first.  Expected: the dimensions written
  (both bounds; LB0 = imm8 present).

* SYS operand values (OPERAND_TWINS): the rule rejects one value of a
  source register, the twin sets the nearest legal value and expects the
  contract's effect, written here by hand from asl/scalar/model/sys/semantics.asl.

* Further bundle points, one function each (its docstring names the rule,
  the legalisation and the ASL the effect comes from): TCI-DIRECTION and
  TTRI-ORIENT (generation_twin), TQUANT-ZERO-SCALE (tquant_twin),
  MGATHER/MSCATTER[-MASK]-FAULT (indexed_memory_twin), MGATHER-CAS-FAULT
  (cas_twin), MGATHER-{MASK,CAS}-SCHEMA and MGATHER-MASK-PRED
  (gather_schema_twin, gather_predicate_twin), TLOAD-PREFLIGHT
  (tload_preflight_twin), TPREFETCH-FAULT (recovered_run_twin),
  TCMP-CAPACITY (tcmp_capacity_twin), GMOV-READINESS (gmov_readiness_twin),
  BSTART-TEPL-RESERVED (tepl_twin, written to spec_fault_twins.json: the
  block step runner reads BARG), BSTART-SYS-RESERVED (sys_fixup_twin, in
  BLOCK_TWINS), and the CUBE and Shared-use points of MATRIX_TWINS:
  TGEMV-CUBE-M (gemv_m_twin), TMATMUL-MISSING-FPATR (missing_fpatr_twin),
  TMATMUL-SHARED-UNDEF (shared_undef_twin), TMATMUL-MX-SHARED-GROUP
  (mx_shared_group_twin) and B.IOS-VEC-USE (ios_vec_use_twin), whose
  results are the reference profile's raw-carrier matrix products.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALAR = ROOT / "tests/data/spec_scalar_exec.json"
BLOCK = ROOT / "tests/data/spec_block_exec.json"
BUNDLE = ROOT / "tests/data/spec_bundle_exec.json"
OUT = ROOT / "tests/data/spec_fault_twins.json"
BUNDLE_OUT = ROOT / "tests/data/spec_bundle_fault_twins.json"
SHARED_CATALOG = Path("/work/shared/pto-spec-0.58.3/catalog/scalar-forms.json")
CATALOG = SHARED_CATALOG if SHARED_CATALOG.exists() else Path("/work/spec/spec/catalog/scalar-forms.json")

BOUNDED_FAULT_ADDRESS = 0x1000  # PTO_MODEL_MEMORY_BYTES: the first byte past memory
BASE_SHIFT = -0x100             # the twin's base is this much lower: address 0xF00
MASK64 = (1 << 64) - 1


def hex64(v: int) -> str:
    return f"0x{v & MASK64:016x}"


class Catalog:
    def __init__(self, path: Path):
        self.forms = [f for f in json.loads(path.read_text())["forms"] if f["status"] == "accepted"]

    def form_of(self, bits: int, length: int) -> dict:
        found = [f for f in self.forms if f["length_bits"] == length and any(
            bits & int(e["mask"], 16) == int(e["match"], 16) for e in f["encoding"])]
        if len(found) != 1:
            raise ValueError(f"{len(found)} forms match {bits:#x}/{length}")
        return found[0]

    @staticmethod
    def field(form: dict, bits: int, name: str) -> int | None:
        for fl in form["fields"]:
            if fl["name"].lower() == name.lower():
                v = 0
                for p in fl["pieces"]:
                    v |= ((bits >> p["instruction_lsb"]) & ((1 << p["width"]) - 1)) << p["value_lsb"]
                return v
        return None


def asm_operands(form: dict) -> tuple[str | None, list[str]]:
    """(base, data sources) named by the assembly: the first register inside
    [...] is the address base; the operands before '[' of a store are its
    data, in order (``c.swi t#1, [srcL, simm]``, ``hl.sbip SrcD, SrcD1, [...]``)."""
    asm = form["asm"]
    m = re.search(r"\[\s*([A-Za-z][A-Za-z0-9#]*)", asm)
    base = m.group(1) if m and not m.group(1).startswith("<") else None
    head = asm.split("[", 1)[0].split(None, 1)
    data = [t.strip() for t in head[1].split(",") if t.strip()] if len(head) > 1 else []
    return base, data


def faulting_exec(steps: list) -> int:
    return next(i for i, s in enumerate(steps)
                if s["op"] == "exec" and s.get("expect_status", "").endswith("_Rejected"))


def segment_start(steps: list, i: int) -> int:
    while i > 0 and steps[i]["op"] != "reset":
        i -= 1
    return i


def last_set(steps: list, reg: int) -> int | None:
    """Index of the last set_gpr of `reg` in `steps`."""
    found = [i for i, s in enumerate(steps) if s["op"] == "set_gpr" and s["reg"] == reg]
    return found[-1] if found else None


def queue_value(steps: list, code: int) -> int | None:
    """The value of Reg5 source code 24..31 (T#1..T#4, U#1..U#4) after `steps`
    (push_t/push_u shift the queue; set_queue writes an entry)."""
    q = {"t": [None] * 4, "u": [None] * 4}
    for s in steps:
        if s["op"] == "reset":
            q = {"t": [None] * 4, "u": [None] * 4}
        elif s["op"] in ("push_t", "push_u"):
            name = s["op"][-1]
            q[name] = [int(s["value"], 16)] + q[name][:3]
        elif s["op"] == "set_queue":
            q[s["queue"]][s["index"]] = int(s["value"], 16)
    name, index = ("t", code - 24) if code < 28 else ("u", code - 28)
    return q[name][index]


def register_value(steps: list, code: int) -> int | None:
    if code == 0:
        return 0
    if code >= 24:
        return queue_value(steps, code)
    i = last_set(steps, code)
    return int(steps[i]["value"], 16) if i is not None else None


def operand_code(form: dict, bits: int, token: str) -> int:
    if token.lower() == "t#1":
        return 24
    code = Catalog.field(form, bits, token)
    if code is None:
        raise ValueError(f"no field {token} in {form['mnemonic']}")
    return code


def sign_extend(v: int, width: int) -> int:
    return v - (1 << width) if v >> (width - 1) & 1 else v


def effective_address(form: dict, bits: int, steps: list, base_code: int) -> int:
    """The first address a non-PC-relative AGU form accesses (contract
    state_effects: the base plus the sign-extended displacement times
    2^offset_scale, or plus LSL(Modify(SrcR, SrcRType), shamt), the shift
    being offset_scale for a form without shamt); a post-index
    form accesses the base itself)."""
    agu = form["agu"]
    base = register_value(steps, base_code)
    if agu["update_mode"] == "PostIndex":
        return base
    if agu["address_kind"] == "Register":
        offset = register_value(steps, Catalog.field(form, bits, "SrcR"))
        kind = Catalog.field(form, bits, "SrcRType") or 0
        offset = [offset, sign_extend(offset & 0xFFFFFFFF, 32), offset & 0xFFFFFFFF, -offset][kind]
        shamt = Catalog.field(form, bits, "shamt")
        offset <<= agu["offset_scale"] if shamt is None else shamt
    else:
        imm = next(f for f in form["fields"] if f["name"].startswith("simm"))
        offset = sign_extend(Catalog.field(form, bits, imm["name"]), imm["width"]) << agu["offset_scale"]
    return (base + offset) & MASK64


def agu_twin(v: dict, catalog: Catalog) -> dict | None:
    steps = v["steps"]
    if not any(s["op"] == "exec" and s.get("expect_status", "").endswith("_Rejected") for s in steps):
        return None  # prefetch: the point's exec never faults
    e1 = faulting_exec(steps)
    fault_address = next(int(s["value"], 16) for s in steps[e1:] if s["op"] == "expect_fault_address")
    if fault_address != BOUNDED_FAULT_ADDRESS:
        raise ValueError(f"{v['avs_id']}: first fault at {fault_address:#x}")
    bits, length = int(steps[e1]["bits"], 16), steps[e1]["length_bits"]
    form = catalog.form_of(bits, length)
    agu = form["agu"]
    e_legal = max(i for i, s in enumerate(steps)
                  if s["op"] == "exec" and s["expect_status"].endswith("_Executed"))
    legal_start = segment_start(steps, e_legal)
    legal_pre = steps[legal_start:e_legal]
    legal_post = []
    for s in steps[e_legal + 1:]:
        if s["op"] == "reset":
            break
        legal_post.append(s)
    legal_events = [s for s in legal_post if s["op"] == "expect_mem_event" and s["field"] == "address"]
    legal_address = int(legal_events[0]["value"], 16)

    prefix = [dict(s) for s in steps[:e1]]
    base_token, data_tokens = asm_operands(form)
    if agu["address_kind"] == "PCRelative":
        base_code = None
        i = max(i for i, s in enumerate(prefix) if s["op"] == "set_tpc")
        prefix[i]["value"] = hex64(int(prefix[i]["value"], 16) + BASE_SHIFT)
        # the point's own "TPC unchanged before the exec" check follows the move
        for s in prefix[i + 1:]:
            if s["op"] == "expect_tpc":
                s["value"] = prefix[i]["value"]
    else:
        base_code = operand_code(form, bits, base_token)
        if not 1 <= base_code <= 23:
            raise ValueError(f"{v['avs_id']}: base code {base_code}")
        # A pair reports the element that leaves memory: its first address
        # may be fault_address - size_bytes.
        first = effective_address(form, bits, prefix, base_code)
        pair_start = fault_address - agu["size_bytes"] if agu["action"].endswith("Pair") else fault_address
        if first not in (fault_address, pair_start):
            raise ValueError(f"{v['avs_id']}: accesses {first:#x}, faults at {fault_address:#x}")
        fault_address = first
        i = last_set(prefix, base_code)
        prefix[i]["value"] = hex64(int(prefix[i]["value"], 16) + BASE_SHIFT)
    twin_address = fault_address + BASE_SHIFT
    move = twin_address - legal_address

    # Memory at the twin's address holds what the point stored before its
    # successful run, moved by the same distance (raw bytes: no event).
    seed = []
    for s in legal_pre:
        if s["op"] == "store":
            value = int(s["value"], 16)
            for k in range(s["size"]):
                seed.append({"op": "write_mem", "addr": hex64(int(s["addr"], 16) + move + k), "size": 1,
                             "value": f"0x{(value >> (8 * k)) & 0xFF:02x}"})
        elif s["op"] == "write_mem":
            seed.append({**s, "addr": hex64(int(s["addr"], 16) + move)})
    start = max(i for i, s in enumerate(prefix) if s["op"] == "mem_events_start")
    agent = prefix[start]["agent"]
    prefix[start:start] = seed

    tpc0 = int(next(s for s in reversed(prefix) if s["op"] == "set_tpc")["value"], 16)
    legal_tpc0 = int(next(s for s in reversed(legal_pre) if s["op"] == "set_tpc")["value"], 16)
    dest_codes = {Catalog.field(form, bits, f["name"]) for f in form["fields"] if f["name"].startswith("RegDst")}
    data_codes = [operand_code(form, bits, t) for t in data_tokens] if agu["action"].startswith("Store") else []
    size_mask = (1 << (8 * agu["size_bytes"])) - 1

    exec_step = {k: val for k, val in steps[e1].items() if k != "expect_fault"}
    exec_step["expect_status"] = "ScalarExecution_Executed"
    post = []
    for s in legal_post:
        op = s["op"]
        if op in ("expect_fault", "expect_mem_event_count"):
            post.append(s)
        elif op == "expect_tpc":
            post.append({**s, "value": hex64(int(s["value"], 16) - legal_tpc0 + tpc0)})
        elif op == "expect_mem_event":
            t = dict(s)
            if s["field"] == "address":
                t["value"] = hex64(int(s["value"], 16) + move)
            elif s["field"] == "agent":
                t["value"] = agent
            elif s["field"] == "write_value":
                t["value"] = hex64(register_value(prefix, data_codes[s["index"]]) & size_mask)
            post.append(t)
        elif op == "expect_gpr" or op == "expect_queue":
            t = carried_register(s, legal_pre, prefix, legal_address, move, agu, dest_codes)
            if t is not None:
                post.append(t)
    return {
        "avs_id": v["avs_id"], "source": v["source"], "family": "AGU bounded memory",
        "rule": "ProbeDataAccess/DataAccessPermitted (asl/scalar/model/agu/memory.asl): address + size <= PTO_MODEL_MEMORY_BYTES",
        "legalisation": f"address base {hex64(BASE_SHIFT & MASK64)} lower: the access is at {twin_address:#x}",
        "steps": prefix + [exec_step] + post,
    }


def carried_register(s: dict, legal_pre: list, prefix: list, legal_address: int, move: int, agu: dict,
                     dest_codes: set[int]) -> dict | None:
    """A register/queue assertion of the point's successful run, as it holds
    in the twin (see the module docstring); None when it does not carry."""
    code = s["reg"] if s["op"] == "expect_gpr" else (24 if s["queue"] == "t" else 28) + s["index"]
    expected = int(s["value"], 16)
    written = code in dest_codes or (code >= 24 and register_value(legal_pre, code) != expected)
    if not written:  # a source: the twin's own value
        own = register_value(prefix, code)
        return None if own is None else {**s, "value": hex64(own)}
    if abs(expected - legal_address) <= 0x100:  # an address written back
        return None if agu["update_mode"] == "PostIndex" else {**s, "value": hex64(expected + move)}
    return s  # a loaded value: memory holds the same bytes


PUSHED = {"t": [0x8123456789ABCDE0 | i for i in range(1, 5)],   # T#1..T#4 (T#k = PUSHED["t"][k-1])
          "u": [0x7FEDCBA987654320 | i for i in range(1, 5)]}   # U#1..U#4


def mask(width: int) -> int:
    return (1 << width) - 1


def sext(v: int, width: int) -> int:
    return sign_extend(v & mask(width), width) & MASK64


def field_bits(x: int, m: int, n: int) -> int:
    """The N-bit field of x beginning at bit M, wrapping from bit 63 to 0."""
    return sum(((x >> ((m + j) % 64)) & 1) << j for j in range(n))


def field_mask(m: int, n: int) -> int:
    return sum(1 << ((m + j) % 64) for j in range(n))


def clz(f: int, n: int) -> int:
    return n - f.bit_length()


def ctz(f: int, n: int) -> int:
    return n if f == 0 else (f & -f).bit_length() - 1


def rev(f: int, n: int) -> int:
    if n % 8:
        return 0
    return int.from_bytes(f.to_bytes(n // 8, "little"), "big")


def bfi(base: int, ins: int, first: int, last: int) -> int:
    for j in range((last - first) % 64 + 1):
        bit = (first + j) % 64
        base = (base & ~(1 << bit)) | (((ins >> j) & 1) << bit)
    return base


def ccatw(hi: int, lo: int, shamt: int) -> tuple[int, int]:
    v = (((hi & mask(32)) << 32) | (lo & mask(32))) >> shamt if shamt < 64 else 0
    return sext(v, 32), sext(v >> 32, 32)


# Results of the READINESS mnemonics from their contract state_effects
# (asl/scalar/alu/<MN>.asl): f(L, R, P, fld) -> one result or (Dst0, Dst1),
# with L/R/P the SrcL/SrcR/SrcP values (T#1 for the implicit source) and
# fld(name) a decoded field.  BCNT/BIC/BIS/BXS/BXU/CLZ/CTZ: N = imml + 1,
# M = imms; REV: N = imml + 1, M = immr; BFI: interval immr..imms.
def _fw(fld):
    return fld("imms"), fld("imml") + 1


ALU_RESULT = {
    "BCNT": lambda L, R, P, fld: bin(field_bits(L, *_fw(fld))).count("1"),
    "BIC": lambda L, R, P, fld: L & ~field_mask(*_fw(fld)) & MASK64,
    "BIS": lambda L, R, P, fld: L | field_mask(*_fw(fld)),
    "BXS": lambda L, R, P, fld: sext(field_bits(L, *_fw(fld)), _fw(fld)[1]),
    "BXU": lambda L, R, P, fld: field_bits(L, *_fw(fld)),
    "CLZ": lambda L, R, P, fld: clz(field_bits(L, *_fw(fld)), _fw(fld)[1]),
    "CTZ": lambda L, R, P, fld: ctz(field_bits(L, *_fw(fld)), _fw(fld)[1]),
    "REV": lambda L, R, P, fld: rev(field_bits(L, fld("immr"), fld("imml") + 1), fld("imml") + 1),
    "C.ADD": lambda L, R, P, fld: (L + R) & MASK64,
    "C.SUB": lambda L, R, P, fld: (L - R) & MASK64,
    "C.AND": lambda L, R, P, fld: L & R,
    "C.OR": lambda L, R, P, fld: L | R,
    "C.ADDI": lambda L, R, P, fld: (L + sext(fld("simm5"), 5)) & MASK64,
    "C.SLLI": lambda L, R, P, fld: (L << fld("uimm5")) & MASK64,
    "C.SRLI": lambda L, R, P, fld: L >> fld("uimm5"),
    "CSEL": lambda L, R, P, fld: L if P != 0 else R,  # SrcRType 0 only (checked)
    "HL.ADDI": lambda L, R, P, fld: (L + fld("uimm24")) & MASK64,
    "HL.SUBI": lambda L, R, P, fld: (L - fld("uimm24")) & MASK64,
    "HL.ANDI": lambda L, R, P, fld: L & sext(fld("simm24"), 24),
    "HL.ORI": lambda L, R, P, fld: L | sext(fld("simm24"), 24),
    "HL.XORI": lambda L, R, P, fld: L ^ sext(fld("simm24"), 24),
    "HL.ADDIW": lambda L, R, P, fld: sext(L + fld("uimm24"), 32),
    "HL.SUBIW": lambda L, R, P, fld: sext(L - fld("uimm24"), 32),
    "HL.ANDIW": lambda L, R, P, fld: sext(L & sext(fld("simm24"), 24), 32),
    "HL.ORIW": lambda L, R, P, fld: sext(L | sext(fld("simm24"), 24), 32),
    "HL.XORIW": lambda L, R, P, fld: sext(L ^ sext(fld("simm24"), 24), 32),
    "HL.BFI": lambda L, R, P, fld: bfi(L, R, fld("immr"), fld("imms")),
    "HL.CCAT": lambda L, R, P, fld: ((R >> fld("shamt")) | (L << (64 - fld("shamt"))) & MASK64
                                     if fld("shamt") else R, L >> fld("shamt") if fld("shamt") < 64 else 0),
    "HL.CCATW": lambda L, R, P, fld: ccatw(L, R, fld("shamt")),
}
IMPLICIT_T1 = {"C.SLLI", "C.SRLI"}  # ScalarImplicitSourceOperandsLegal


def queue_of(code: int) -> tuple[str, int]:
    return ("t", code - 24) if code < 28 else ("u", code - 28)


def readiness_twin(v: dict, catalog: Catalog) -> dict:
    steps = v["steps"]
    e1 = faulting_exec(steps)
    bits, length = int(steps[e1]["bits"], 16), steps[e1]["length_bits"]
    form = catalog.form_of(bits, length)
    mn = form["mnemonic"]

    def fld(name: str) -> int:
        value = Catalog.field(form, bits, name)
        if value is None:
            raise ValueError(f"{mn}: no field {name}")
        return value

    sources = {n: Catalog.field(form, bits, n) for n in ("SrcL", "SrcR", "SrcP")}
    if mn in IMPLICIT_T1:
        sources["SrcL"] = 24
    if mn == "CSEL" and fld("SrcRType") != 0:
        raise ValueError("CSEL with a SrcR modifier")
    relative = [c for c in sources.values() if c is not None and c >= 24]
    depth = {"t": 0, "u": 0}
    for c in relative:
        q, i = queue_of(c)
        depth[q] = max(depth[q], i + 1)
    prefix = [dict(s) for s in steps[:e1]]
    for q in ("t", "u"):
        for i in reversed(range(depth[q])):  # the oldest first: T#k is pushed first
            prefix.append({"op": f"push_{q}", "value": hex64(PUSHED[q][i])})

    def value(code):  # a GPR the point does not set holds its reset value, 0
        if code is None:
            return 0
        got = register_value(prefix, code)
        return 0 if got is None and code < 24 else got

    result = ALU_RESULT[mn](value(sources["SrcL"]), value(sources["SrcR"]), value(sources["SrcP"]), fld)
    results = list(result) if isinstance(result, tuple) else [result]
    if mn.startswith("C."):
        dests = [31]  # ->t (WriteCompressedTResult)
    else:
        dests = [Catalog.field(form, bits, n) for n in (("RegDst0", "RegDst1") if len(results) == 2 else ("RegDst",))]

    exec_step = {k: val for k, val in steps[e1].items() if k != "expect_fault"}
    exec_step["expect_status"] = "ScalarExecution_Executed"
    post = [{"op": "expect_fault", "fault": "Fault_None"}]
    tpcs = [s for s in prefix if s["op"] == "set_tpc"]
    if tpcs:
        post.append({"op": "expect_tpc", "value": hex64(int(tpcs[-1]["value"], 16) + length // 8)})
    queues = {q: [PUSHED[q][i] for i in range(depth[q])] for q in ("t", "u")}
    for code, r in zip(dests, results):
        if 1 <= code <= 23:
            post.append({"op": "expect_gpr", "reg": code, "value": hex64(r)})
        elif code in (30, 31):
            q = "t" if code == 31 else "u"
            queues[q] = [r] + queues[q][:3]
    for q, entries in queues.items():
        for i, x in enumerate(entries):
            post.append({"op": "expect_queue", "queue": q, "index": i, "value": hex64(x)})
    return {
        "avs_id": v["avs_id"], "source": v["source"], "family": "SCALAR relative-source readiness",
        "rule": "ScalarSourceSelectorLegal/TemporaryQueueSourceAvailable (asl/scalar/model/types/operands.asl)",
        "legalisation": ", ".join(f"{depth[q]} pushes to {q.upper()}" for q in ("t", "u") if depth[q]),
        "steps": prefix + [exec_step] + post,
    }


FP_FORMATS = {0: ("FP64", 64), 1: ("FP32", 32)}  # SrcType -> (ScalarFPSourceTypeCode '00000' / '00001', width)
DZ = 0x2                                         # NumericStatusFlags bit 1: divide by zero
FP_FLAGS_MASK = 0x1F                             # NumericStatusFlags: CORE_STATE[36:32]
CORE_STATE_FLAGS_SHIFT = 32


def fp_source(value: int, fmt: int) -> int:
    """NormalizeScalarFPSource / NormalizeScalarFPResult for data type 0 or 1:
    the FP32 carrier is ZeroExtend(value[31:0])."""
    return value & mask(FP_FORMATS[fmt][1])


def fp_sign(v: int, fmt: int) -> int:
    return (v >> (FP_FORMATS[fmt][1] - 1)) & 1


def fp_is_zero(v: int, fmt: int) -> bool:
    """ScalarFP32IsZero / ScalarFP64IsZero: +0 or -0 of the format."""
    return v & mask(FP_FORMATS[fmt][1] - 1) == 0


def fp_is_nan(v: int, fmt: int) -> bool:
    width = FP_FORMATS[fmt][1]
    exp_bits = 8 if fmt == 1 else 11
    frac_bits = width - 1 - exp_bits
    return (v >> frac_bits) & mask(exp_bits) == mask(exp_bits) and v & mask(frac_bits) != 0


def fp_order_key(v: int, fmt: int) -> int:
    """ScalarFP32OrderKey / ScalarFP64OrderKey."""
    width = FP_FORMATS[fmt][1]
    return ~v & mask(width) if fp_sign(v, fmt) else v ^ (1 << (width - 1))


def fp_less(l: int, r: int, fmt: int) -> bool:
    """ScalarFPEncodingLess (no NaN input)."""
    return not (fp_is_zero(l, fmt) and fp_is_zero(r, fmt)) and fp_order_key(l, fmt) < fp_order_key(r, fmt)


def fp_equal(l: int, r: int, fmt: int) -> bool:
    """ScalarFPEncodingEqual (no NaN input)."""
    return l == r or (fp_is_zero(l, fmt) and fp_is_zero(r, fmt))


# ScalarFPEncodingCompare (asl/scalar/model/fsu/profile.asl), no NaN input
FSU_COMPARE = {
    "FEQ": fp_equal, "FEQS": fp_equal,
    "FNE": lambda l, r, f: not fp_equal(l, r, f), "FNES": lambda l, r, f: not fp_equal(l, r, f),
    "FLT": fp_less, "FLTS": fp_less,
    "FGE": lambda l, r, f: not fp_less(l, r, f), "FGES": lambda l, r, f: not fp_less(l, r, f),
}


def fp_min_max(mn: str, l: int, r: int, fmt: int) -> int:
    """ScalarFPMinMax, with at most one NaN input (it returns the other)."""
    if fp_is_nan(l, fmt) or fp_is_nan(r, fmt):
        return r if fp_is_nan(l, fmt) else l
    if fp_is_zero(l, fmt) and fp_is_zero(r, fmt):
        negative = fp_sign(l, fmt) & fp_sign(r, fmt) if mn == "FMAX" else fp_sign(l, fmt) | fp_sign(r, fmt)
        return negative << (FP_FORMATS[fmt][1] - 1)
    less = fp_less(l, r, fmt)
    return (l if less else r) if mn == "FMIN" else (r if less else l)


def carrier_divide(dividend: int, divisor: int, fmt: int) -> tuple[int, int]:
    """The reference profile's FDIV/FRECIP: all-ones and DZ for a zero
    carrier (ScalarFPCarrierIsZero), else DivideWordUnsigned."""
    return (MASK64, DZ) if fp_is_zero(divisor, fmt) else (dividend // divisor, 0)


# The pto-v0 reference profile (asl/arch/profile/reference-profile.asl), which
# the spec's points run: carrier arithmetic modulo 2^64, returning (Word, flags)
# before NormalizeScalarFPResult.  MultiplyWord keeps the low 64 bits.
REFERENCE_BINARY = {  # ScalarFPBinaryProfile
    "FADD": lambda l, r, f: ((l + r) & MASK64, 0),
    "FSUB": lambda l, r, f: ((l - r) & MASK64, 0),
    "FMUL": lambda l, r, f: ((l * r) & MASK64, 0),
    "FDIV": carrier_divide,
}
REFERENCE_UNARY = {  # ScalarFPUnaryProfile (FABS is ExecuteDecodedFPUnary's own)
    "FSQRT": lambda v, f: (v, 0),
    "FEXP": lambda v, f: ((v + 1) & MASK64, 0),
    "FRECIP": lambda v, f: carrier_divide(MASK64, v, f),
    "FABS": lambda v, f: (v & mask(FP_FORMATS[f][1] - 1), 0),
}
REFERENCE_FUSED = {  # ScalarFPFusedProfile(addend, left, right)
    "FMADD": lambda p, a: p + a, "FMSUB": lambda p, a: p - a,
    "FNMADD": lambda p, a: -(p + a), "FNMSUB": lambda p, a: -(p - a),
}


def conversion_result(mn: str, fmt: int, value: int, dst_type: int) -> int | None:
    """ExecuteDecodedFPConvert with the reference profile's identity
    conversions (ScalarFPConvertProfile, ScalarFPToIntegerProfile,
    ScalarIntegerToFPProfile return the normalised source): the source
    normalised for SrcType `fmt`, then the destination type's normalisation.
    Only destination type 0 (FP64 / U64 carrier: the value itself) is written."""
    if dst_type != 0:
        return None
    if mn == "SCVTF" and fmt == 1:  # ScalarSignedIntegerSourceTypeCode '01' = '01001': SignExtend(value[31:0])
        return sext(value & mask(32), 32) & MASK64
    return fp_source(value, fmt)


def fsu_result(mn: str, fmt: int, sources: dict) -> tuple[int, int] | None:
    """(RegDst, produced flags) after the legal run under the reference
    profile, or None when the spec does not fix it here (a NaN pair, a
    conversion to another type)."""
    s = {k: fp_source(v, fmt) for k, v in sources.items() if k != "DstType"}
    if mn in FSU_COMPARE:  # ExecuteDecodedFPCompare: no NaN input, so no flag
        return None if any(fp_is_nan(v, fmt) for v in s.values()) else (int(FSU_COMPARE[mn](s["SrcL"], s["SrcR"], fmt)), 0)
    if mn in ("FMIN", "FMAX"):  # no NaN operand: no signalling NaN flag
        return None if any(fp_is_nan(v, fmt) for v in s.values()) else (fp_min_max(mn, s["SrcL"], s["SrcR"], fmt), 0)
    if mn in REFERENCE_BINARY:
        value, flags = REFERENCE_BINARY[mn](s["SrcL"], s["SrcR"], fmt)
    elif mn in REFERENCE_UNARY:
        value, flags = REFERENCE_UNARY[mn](s["SrcL"], fmt)
    elif mn in REFERENCE_FUSED:
        value, flags = REFERENCE_FUSED[mn]((s["SrcL"] * s["SrcR"]) & MASK64, s["SrcA"]) & MASK64, 0
    else:
        converted = conversion_result(mn, fmt, sources["SrcL"], sources["DstType"])
        return None if converted is None else (converted, 0)
    return fp_source(value, fmt), flags


def with_field(form: dict, bits: int, name: str, value: int) -> int:
    for fl in form["fields"]:
        if fl["name"] == name:
            for p in fl["pieces"]:
                piece = (value >> p["value_lsb"]) & mask(p["width"])
                bits = (bits & ~(mask(p["width"]) << p["instruction_lsb"])) | (piece << p["instruction_lsb"])
            return bits
    raise ValueError(f"no field {name}")


def type_point_result(type_point: dict | None, legal: int, dest: int, prefix: list) -> int | None:
    """RegDst that the mnemonic's TYPE-001 point (the same word with a legal
    SrcType, run from the same seeds) asserts after `legal`, or None when
    that point has no such exec."""
    if type_point is None:
        return None
    steps = type_point["steps"]
    for i, s in enumerate(steps):
        if s["op"] == "exec" and int(s["bits"], 16) == legal:
            seeds = [(t["reg"], t["value"]) for t in steps[segment_start(steps, i):i] if t["op"] == "set_gpr"]
            if all(register_value(prefix, reg) == int(val, 16) for reg, val in seeds):
                return next((int(t["value"], 16) for t in steps[i + 1:] if t["op"] == "expect_gpr" and t["reg"] == dest), None)
    return None


def fsu_twin(v: dict, catalog: Catalog, type_point: dict | None) -> dict | None:
    """The point's faulting exec with SrcType 3 (its last; else SrcType 2)
    made legal by clearing bit 1: 3 -> 1 (FP32), 2 -> 0 (FP64); for a
    conversion the exec whose DstType is 0 (legal)."""
    steps = v["steps"]
    rejected = [i for i, s in enumerate(steps) if s["op"] == "exec" and s["expect_status"].endswith("_Rejected")]
    forms = {i: catalog.form_of(int(steps[i]["bits"], 16), steps[i]["length_bits"]) for i in rejected}
    by_type = {Catalog.field(forms[i], int(steps[i]["bits"], 16), "SrcType"): i for i in reversed(rejected)
               if not Catalog.field(forms[i], int(steps[i]["bits"], 16), "DstType")}
    e = by_type.get(3, by_type.get(2))
    bits, length = int(steps[e]["bits"], 16), steps[e]["length_bits"]
    form = forms[e]
    mn = form["mnemonic"]
    fmt = Catalog.field(form, bits, "SrcType") & 1
    prefix = [dict(s) for s in steps[:e]]
    sources = {name: register_value(prefix, Catalog.field(form, bits, name))
               for name in ("SrcL", "SrcR", "SrcA") if Catalog.field(form, bits, name) is not None}
    sources["DstType"] = Catalog.field(form, bits, "DstType") or 0
    computed = None if None in sources.values() else fsu_result(mn, fmt, sources)
    dest = Catalog.field(form, bits, "RegDst")
    if computed is None or not 1 <= dest <= 23:
        return None
    result, produced = computed
    legal = with_field(form, bits, "SrcType", fmt)
    asserted = type_point_result(type_point, legal, dest, prefix)
    if asserted is not None and asserted != result:
        raise ValueError(f"{v['avs_id']}: reference profile gives {result:#x}, {type_point['avs_id']} asserts {asserted:#x}")
    exec_step = {k: val for k, val in steps[e].items() if k != "expect_fault"}
    exec_step.update(bits=f"{legal:#0{length // 4 + 2}x}", expect_status="ScalarExecution_Executed")
    # The points preset every sticky flag (CORE_STATE[36:32] = 0x1f), which
    # would hide any flag the legal run raises or fails to raise: the twin
    # clears them first (the rest of CORE_STATE as the point set it), so
    # NumericStatusFlags() afterwards is exactly what the run produced.
    core_state = int(next(s for s in reversed(prefix) if s["op"] == "set_core_state")["value"], 16)
    flags_clear = {"op": "set_core_state", "value": hex64(core_state & ~(FP_FLAGS_MASK << CORE_STATE_FLAGS_SHIFT))}
    tpc = int(next(s for s in reversed(prefix) if s["op"] == "set_tpc")["value"], 16)
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_gpr", "reg": dest, "value": hex64(result)},
            {"op": "expect_fp_flags", "value": f"{produced:#x}"},
            {"op": "expect_tpc", "value": hex64(tpc + length // 8)}]
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "FSU reserved source type",
            "rule": f"InstructionContractSourceTypeLegal_{mn}: SrcType '00' or '01'",
            "legalisation": f"SrcType {fmt | 2} -> {fmt} ({FP_FORMATS[fmt][0]}), sticky flags cleared first",
            "steps": prefix + [flags_clear, exec_step] + post}


SSR_LEGAL_ID = 0x0001            # GLOBAL_PTR (catalog system-registers.json: base, RW)
SSR_KNOWN_VALUE = 0x6060606060606060


def ssr_twin(v: dict, catalog: Catalog) -> dict:
    steps = v["steps"]
    e1 = faulting_exec(steps)
    bits, length = int(steps[e1]["bits"], 16), steps[e1]["length_bits"]
    form = catalog.form_of(bits, length)
    prefix = [dict(s) for s in steps[:e1]]
    prefix.append({"op": "set_base_sysreg", "field": "global_ptr", "value": hex64(SSR_KNOWN_VALUE)})
    exec_step = {k: val for k, val in steps[e1].items() if k != "expect_fault"}
    exec_step.update(bits=f"{with_field(form, bits, 'SSR_ID', SSR_LEGAL_ID):#0{length // 4 + 2}x}",
                     expect_status="ScalarExecution_Executed")
    source, dest = Catalog.field(form, bits, "SrcL"), Catalog.field(form, bits, "RegDst")
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_trap_context", "ring": 0, "field": "valid", "value": False}]
    if dest is not None:  # a read: RegDst receives the old value
        post.append({"op": "expect_gpr", "reg": dest, "value": hex64(SSR_KNOWN_VALUE)})
    written = register_value(prefix, source) if source is not None else SSR_KNOWN_VALUE
    post.append({"op": "expect_base_sysreg", "field": "global_ptr", "value": hex64(written)})
    old = Catalog.field(form, bits, "SSR_ID")
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "SYS system-register address",
            "rule": "ReadSystemRegisterAddress / SystemRegisterWritePermitted / SystemRegisterSwapPermitted",
            "legalisation": f"SSR_ID {old:#x} -> {SSR_LEGAL_ID:#x} (GLOBAL_PTR)", "steps": prefix + [exec_step] + post}


def is_ssr_point(avs_id: str) -> bool:
    return re.fullmatch(r"PTO-AVS-SYS-(HL-)?SSR(GET|SET|SWAP)-(ACCESS|UNKNOWN)-001", avs_id) is not None


def exec_executed(step: dict, bits: int | None = None) -> dict:
    out = {k: val for k, val in step.items() if k != "expect_fault"}
    out["expect_status"] = "ScalarExecution_Executed"
    if bits is not None:
        out["bits"] = f"{bits:#0{step['length_bits'] // 4 + 2}x}"
    return out


# id -> (field, legal value, rule, steps added before the exec, expected steps after it)
FIELD_TWINS = {
    # ACRE: RRA_Type one-of {0, 1}.  With the field legal, ACRE still raises
    # Fault_ExecutionStateCheck: the point saved no context to enter
    # (PTO-AVS-SYS-ACRE-MISSING-001), so the twin keeps that trap.
    "PTO-AVS-SYS-ACRE-RSVD-001": ("RRA_Type", 0, "catalog constraint RRA_Type one-of {0, 1}", [], [
        {"op": "expect_fault", "fault": "Fault_ExecutionStateCheck"},
        {"op": "expect_gpr", "reg": 3, "value": hex64(0x333)}]),
    # C.SSRGET: SSRID one-of {0, 1, 16}; 0 reads THREAD_PTR and pushes it to T
    # (ExecuteCompressedSystemRegisterGet, WriteCompressedTResult).
    "PTO-AVS-SYS-C-SSRGET-RSVD-001": ("SSRID", 0, "catalog constraint SSRID one-of {0, 1, 16}", [
        {"op": "set_base_sysreg", "field": "thread_ptr", "value": hex64(SSR_KNOWN_VALUE)}], [
        {"op": "expect_fault", "fault": "Fault_None"},
        {"op": "expect_queue", "queue": "t", "index": 0, "value": hex64(SSR_KNOWN_VALUE)},
        {"op": "expect_gpr", "reg": 3, "value": hex64(0x333)}]),
    # LSRGET: CurrentBARGWordApplicable accepts LSR_ID 0, 1 (with a candidate
    # word) and 2; 2 reads PackCurrentBARGControlWord: a SYS block (kind
    # code 0010, no candidate word, no control attributes) packs 0x2.
    "PTO-AVS-SYS-LSRGET-RSVD-001": ("LSR_ID", 2, "CurrentBARGWordApplicable: LSR_ID 0, 1 or 2", [], [
        {"op": "expect_fault", "fault": "Fault_None"},
        {"op": "expect_gpr", "reg": 3, "value": hex64(0x2)}]),
}


def acrc_effect(source_ring: int, request: int) -> list:
    """ArchitectureCloseRequest / RaiseServiceRequest (asl/arch/memory-model/
    fault-precision.asl) for a permitted request from a SYS block body at
    TPC 0x180: ACRC's own trap Fault_ServiceRequest at that TPC, the context
    saved at ServiceRequestTarget (1 for request 1, else 0) resuming at TPC + 4,
    the terminal pending, the request epoch advanced (7 -> 8) and the
    request type in operand bits 3:0 (0x555 before)."""
    target = 1 if request == 1 else 0
    return [{"op": "expect_fault", "fault": "Fault_ServiceRequest"},
            {"op": "expect_fault_address", "value": hex64(0x180)},
            {"op": "expect_trap_context", "ring": target, "field": "valid", "value": True},
            {"op": "expect_trap_context", "ring": target, "field": "source_acr", "value": source_ring},
            {"op": "expect_trap_context", "ring": target, "field": "tpc", "value": hex64(0x184)},
            {"op": "expect_bundle_state", "field": "system_block_terminal_pending", "value": True},
            {"op": "expect_bookkeeping", "field": "architecture_request_epoch", "value": 8},
            {"op": "expect_bookkeeping", "field": "control_request_operand", "value": hex64(0x550 | request)}]


# ServiceRequestPermitted (asl/arch/system-registers/access-control.asl):
# ring 1 may request 0 or 2, rings 2..3 any request <= 2, ring 0 none.
FIELD_TWINS.update({
    "PTO-AVS-SYS-ACRC-REQUEST-001": ("RST_Type", 2, "ServiceRequestPermitted: ring >= 2 requests <= 2", [],
                                     acrc_effect(2, 2)),
    "PTO-AVS-SYS-ACRC-RING1-001": ("RST_Type", 0, "ServiceRequestPermitted: ring 1 requests 0 or 2", [],
                                   acrc_effect(1, 0)),
})


def acrc_ring0_twin(v: dict) -> dict:
    """ACRC at ACR0: no request is permitted from ring 0; the twin runs the
    same word (request 0) at ring 1, the smallest ring that may request."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    i = max(i for i, s in enumerate(prefix) if s["op"] == "set_acr")
    prefix[i]["ring"] = 1
    step = dict(steps[e1])
    step.pop("expect_fault", None)
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "encoded field value",
            "rule": "ServiceRequestPermitted: ring 0 requests nothing", "legalisation": "ACR1 instead of ACR0",
            "steps": prefix + [step] + acrc_effect(1, 0)}


def field_twin(v: dict, catalog: Catalog) -> dict:
    name, legal, rule, setup, post = FIELD_TWINS[v["avs_id"]]
    steps = v["steps"]
    e1 = faulting_exec(steps)
    bits, length = int(steps[e1]["bits"], 16), steps[e1]["length_bits"]
    form = catalog.form_of(bits, length)
    old = Catalog.field(form, bits, name)
    step = exec_executed(steps[e1], with_field(form, bits, name, legal))
    if post[0]["fault"] != "Fault_None":  # the instruction's own trap
        step["expect_status"] = steps[e1]["expect_status"]
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "encoded field value", "rule": rule,
            "legalisation": f"{name} {old} -> {legal}", "steps": steps[:e1] + setup + [step] + post}


def setc_without_first_setter(v: dict) -> list:
    """The point's steps without its first (executed) condition setter and
    the assertions that follow it, up to the rejected one."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    first = next(i for i, s in enumerate(steps) if s["op"] == "exec")
    return steps[:first] + [s for s in steps[first + 1:e1] if not s["op"].startswith("expect")]


STD_CONDITIONAL_BLOCK = {"op": "begin_bundle", "start_pc": None, "kind": "BundleKind_Standard",
                         "transfer": "BundleTransfer_Conditional", "target": hex64(0x80),
                         "sequential": hex64(0x180), "return_target": hex64(0), "taken": False}


def setc_twin(v: dict) -> dict:
    steps = v["steps"]
    e1 = faulting_exec(steps)
    avs = v["avs_id"]
    if avs == "PTO-AVS-SCALAR-C-SETC-TGT-DUP-001":
        # One commit-target setter per block (IsCommitTargetWritable): without
        # the first C.SETC.TGT, the second (SrcL 27 = T#4) needs T#4 ready,
        # as in PTO-AVS-SCALAR-C-SETC-TGT-READY-001, whose legal run it repeats.
        prefix = setc_without_first_setter(v) + [{"op": "push_t", "value": hex64(0x810 + 0x10 * i)} for i in range(4)]
        post = [{"op": "expect_barg", "field": "bpcn", "value": hex64(0x810)},
                {"op": "expect_bundle_state", "field": "commit_target_set", "value": True}]
        rule, legal = "IsCommitTargetWritable: one commit target per block", "no earlier C.SETC.TGT; T#4 ready"
    elif avs == "PTO-AVS-SCALAR-C-SETC-TGT-READY-001":
        # SrcL 27 = T#4 is not ready after reset (ScalarSourceSelectorLegal):
        # the twin pushes four values first, as the point's own reissue does,
        # and expects what that reissue asserts (BPCN = T#4, target set).
        prefix = steps[:e1] + [{"op": "push_t", "value": hex64(0x810 + 0x10 * i)} for i in range(4)]
        post = [{"op": "expect_barg", "field": "bpcn", "value": hex64(0x810)},
                {"op": "expect_bundle_state", "field": "commit_target_set", "value": True}]
        rule, legal = "ScalarSourceSelectorLegal: T#4 available", "four pushes to T"
    elif avs == "PTO-AVS-SCALAR-HL-SETC-NEI-DUPLICATE-002":
        # One condition setter per block: without the earlier HL.SETC.EQI,
        # HL.SETC.NEI x1 (0), 0 computes 0 != 0 = 0 into the commit argument
        # and BARG.TAKEN (HL.SETC.NEI contract state_effects).
        prefix = setc_without_first_setter(v)
        post = [{"op": "expect_commit_argument", "value": hex64(0)},
                {"op": "expect_barg", "field": "taken", "value": False}]
        rule, legal = "one block condition per block (condition already set)", "no earlier HL.SETC.EQI"
    else:  # PTO-AVS-SCALAR-HL-SETC-EQI-PLACE-002
        # A condition setter needs an active STD block body: the twin opens
        # the block PTO-AVS-SCALAR-HL-SETC-NEI-DUPLICATE-002 opens, where the
        # same word (x1 = 0 == 0) sets the commit argument and TAKEN to 1.
        prefix = steps[:e1] + [STD_CONDITIONAL_BLOCK, {"op": "enter_bundle_body"}]
        post = [{"op": "expect_commit_argument", "value": hex64(1)},
                {"op": "expect_barg", "field": "taken", "value": True},
                {"op": "expect_gpr", "reg": 1, "value": hex64(0)}]
        rule, legal = "ScalarOperationApplicable: an active STD block body", "in a STD conditional block body"
    post = [{"op": "expect_fault", "fault": "Fault_None"}] + post
    return {"avs_id": avs, "source": v["source"], "family": "condition setter", "rule": rule,
            "legalisation": legal, "steps": prefix + [exec_executed(steps[e1])] + post}


def setc_target_twin(v: dict) -> dict:
    """C.SETC.TGT snapshots an odd target (0x901) and the block's commit
    raises Fault_InstructionPC (the commit target must be 2-byte aligned).
    Twin: x1 = 0x900; the commit then succeeds: no fault, the block is no
    longer active and TPC is the committed target (a taken Direct block)."""
    steps = [dict(s) for s in v["steps"]]
    stop = next(i for i, s in enumerate(steps) if s["op"] == "stop_bundle")
    steps[last_set(steps[:stop], 1)]["value"] = hex64(0x900)
    body = [({**s, "value": hex64(0x900)} if s["op"] == "expect_barg" and s["field"] == "bpcn" else s)
            for s in steps[:stop + 1]]
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_tpc", "value": hex64(0x900)},
            {"op": "expect_bundle_state", "field": "active", "value": False}]
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "condition setter",
            "rule": "block commit: the commit target is 2-byte aligned (Fault_InstructionPC)",
            "legalisation": "x1 0x901 -> 0x900", "steps": body + post}


SETC_TWINS = {"PTO-AVS-SCALAR-C-SETC-TGT-DUP-001", "PTO-AVS-SCALAR-C-SETC-TGT-READY-001", "PTO-AVS-SCALAR-HL-SETC-NEI-DUPLICATE-002",
              "PTO-AVS-SCALAR-HL-SETC-EQI-PLACE-002"}


def command_executed(step: dict, bits: int | None = None) -> dict:
    out = exec_executed(step, bits)
    out["expect_status"] = "CommandExecution_Executed"
    return out


def memory_command_post(tpc: int, address: int, size: int) -> list:
    return [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_tpc", "value": hex64(tpc + 4)},
            {"op": "expect_last_memory_command_address", "value": hex64(address)},
            {"op": "expect_last_memory_command_size", "value": hex64(size)}]


def fallthrough_block_started(pc: int, kind: str, bpcn: int, taken: bool) -> list:
    """Expectations after a FALL block start at pc executed: no fault, the
    bundle active, BPC = pc, TPC = pc + 4 and BARG's kind, transfer, BPCN
    and taken bit."""
    return [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_bundle_state", "field": "active", "value": True},
            {"op": "expect_bpc", "value": hex64(pc)},
            {"op": "expect_tpc", "value": hex64(pc + 4)},
            {"op": "expect_barg", "field": "block_type", "value": kind},
            {"op": "expect_barg", "field": "transfer_type", "value": "BundleTransfer_Fallthrough"},
            {"op": "expect_barg", "field": "taken", "value": taken},
            {"op": "expect_barg", "field": "bpcn", "value": hex64(bpcn)}]


def tpc_before(steps: list) -> int:
    return int(next(s for s in reversed(steps) if s["op"] == "set_tpc")["value"], 16)


def selector_twin(v: dict, catalog: Catalog) -> tuple[list, str, str]:
    """MCOPY/MSET with RegSrc0 = 24 (reserved: RegSrc fields one-of 0..23):
    RegSrc0 = 8, all GPRs zero after reset: a zero-length command at 0."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    bits = int(steps[e1]["bits"], 16)
    form = catalog.form_of(bits, steps[e1]["length_bits"])
    if Catalog.field(form, bits, "RegSrc0") != 24 or any(s["op"] == "set_gpr" for s in steps[:e1]):
        raise ValueError(f"{v['avs_id']}: not a RegSrc0 = 24 point with zero GPRs")
    prefix = steps[:e1]
    return (prefix + [command_executed(steps[e1], with_field(form, bits, "RegSrc0", 8))]
            + memory_command_post(tpc_before(prefix), 0, 0),
            "catalog constraint RegSrc0 one-of 0..23", "RegSrc0 24 -> 8")


def moved_destination_twin(v: dict, destination: int) -> list:
    """MCOPY with x2 (RegSrc0, the destination) moved so that the
    destination interval neither wraps nor overlaps the source."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    prefix[last_set(prefix, 2)]["value"] = hex64(destination)
    source, length = register_value(prefix, 3), register_value(prefix, 4)
    memory = {}
    for s in prefix:
        if s["op"] == "write_mem":
            memory[int(s["addr"], 16)] = int(s["value"], 16)
    copied = [{"op": "expect_mem", "addr": hex64(destination + k), "size": 1,
               "value": f"0x{memory.get(source + k, 0):02x}"} for k in range(length)]
    reservation = [s for s in prefix if s["op"] == "set_reservation"]
    kept = [{"op": "expect_reservation", "field": "valid", "value": True}] if reservation else []
    return (prefix + [command_executed(steps[e1])] + memory_command_post(tpc_before(prefix), destination, length)
            + copied + kept)


def c_bstart_kind(bits: int) -> str:
    return "BundleKind_Floating" if bits & 0x80 else "BundleKind_Standard"


def c_bstart_reserved_twin(v: dict, catalog: Catalog) -> tuple[list, str, str]:
    """C.BSTART.{STD,FP} BrType one-of {1 FALL, 5 IND, 7 RET}: the point's
    exec with BrType 3 becomes 1 (bit 1 cleared), a fallthrough block.
    Expected as PTO-AVS-BLOCK-C-BSTART-{STD,FP}-BRTYPE-001 assert for that
    word: BARG kind and Fallthrough, BPCN = TPC + 2 (the FP point's check)."""
    steps = v["steps"]
    e = next(i for i, s in enumerate(steps) if s["op"] == "exec"
             and Catalog.field(catalog.form_of(int(s["bits"], 16), 16), int(s["bits"], 16), "BrType") == 3)
    bits = int(steps[e]["bits"], 16)
    form = catalog.form_of(bits, 16)
    prefix = steps[:e]
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_barg", "field": "block_type", "value": c_bstart_kind(bits)},
            {"op": "expect_barg", "field": "transfer_type", "value": "BundleTransfer_Fallthrough"},
            {"op": "expect_barg", "field": "bpcn", "value": hex64(tpc_before(prefix) + 2)}]
    return (prefix + [command_executed(steps[e], with_field(form, bits, "BrType", 1))] + post,
            "catalog constraint BrType one-of {1, 5, 7}", "BrType 3 -> 1 (FALL)")


def c_bstart_indirect_twin(v: dict, catalog: Catalog) -> tuple[list, str, str]:
    """C.BSTART IND needs a retiring STD-or-FP BARG target
    (RetiringBundleBPCNAvailable): the twin first begins the STD Direct
    block PTO-AVS-BLOCK-C-BSTART-FP-BRTYPE-001 begins (target 0x440), whose
    IND start then asserts kind, Indirect and BPCN = that target."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    tpc = tpc_before(steps[:e1])
    block = {"op": "begin_bundle", "start_pc": None, "kind": "BundleKind_Standard",
             "transfer": "BundleTransfer_Direct", "target": hex64(0x440), "sequential": hex64(tpc + 2),
             "return_target": hex64(tpc + 2), "taken": False}
    bits = int(steps[e1]["bits"], 16)
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_barg", "field": "block_type", "value": c_bstart_kind(bits)},
            {"op": "expect_barg", "field": "transfer_type", "value": "BundleTransfer_Indirect"},
            {"op": "expect_barg", "field": "bpcn", "value": hex64(0x440)}]
    return (steps[:e1] + [block, command_executed(steps[e1])] + post,
            "RetiringBundleBPCNAvailable: a retiring STD/FP block with a target", "a STD Direct block retiring first")


def sys_fixup_twin(v: dict, catalog: Catalog) -> tuple[list, str, str]:
    """BSTART.SYS FALL with a nonzero simm17: the catalog constraint simm17
    one-of {0} (a nonzero Fixup payload is reserved outside PTO, asl/arch/
    overview/encoding-ownership.asl) rejects it, Fault_IllegalInstruction.
    Twin: the point's first word with simm17 = 0, the form's one legal word
    (0x00001081).  Expected (ExecuteDecodedBundleStart, BeginBundleAt for the
    form's System kind and Fallthrough transfer): the block active, BPC =
    the word's address, TPC = address + 4, BARG kind System, Fallthrough,
    not taken, BPCN zero (a SYS block keeps the canonical non-selecting
    state)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    bits = int(steps[e1]["bits"], 16)
    form = catalog.form_of(bits, steps[e1]["length_bits"])
    prefix = steps[:e1]
    pc = tpc_before(prefix)
    post = fallthrough_block_started(pc, "BundleKind_System", bpcn=0, taken=False)
    return (prefix + [command_executed(steps[e1], with_field(form, bits, "simm17", 0))] + post,
            "catalog constraint simm17 one-of {0} (BSTART.SYS FALL)", f"simm17 {Catalog.field(form, bits, 'simm17'):#x} -> 0")


BLOCK_TWINS = {
    "PTO-AVS-BLOCK-C-BSTART-STD-RSVD-001": c_bstart_reserved_twin,
    "PTO-AVS-BLOCK-C-BSTART-FP-RSVD-001": c_bstart_reserved_twin,
    "PTO-AVS-BLOCK-C-BSTART-STD-IND-SOURCE-001": c_bstart_indirect_twin,
    "PTO-AVS-BLOCK-C-BSTART-FP-IND-SOURCE-001": c_bstart_indirect_twin,
    "PTO-AVS-BLOCK-BSTART-SYS-RESERVED-001": sys_fixup_twin,
    "PTO-AVS-BLOCK-MCOPY-GPR-001": selector_twin,
    "PTO-AVS-BLOCK-MSET-GPR-001": selector_twin,
    # [0x100, 0x108) onto itself -> destination 0x108, adjacent and disjoint
    "PTO-AVS-BLOCK-MCOPY-OVERLAP-001": lambda v, c: (
        moved_destination_twin(v, 0x108), "MCOPY: nonzero-length intervals disjoint", "destination 0x100 -> 0x108"),
    # a destination interval wrapping past 2^64 -> 0x200, inside memory, disjoint
    "PTO-AVS-BLOCK-MCOPY-RANGE-001": lambda v, c: (
        moved_destination_twin(v, 0x200), "MCOPY: nonzero-length intervals non-wrapping",
        "destination 0xffffffffffffffff -> 0x200"),
}


def block_twin(v: dict, catalog: Catalog) -> dict:
    steps, rule, legal = BLOCK_TWINS[v["avs_id"]](v, catalog)
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "block command", "rule": rule,
            "legalisation": legal, "steps": steps}


U64 = (1 << 64) - 1
# BSTART.TEPL Function -> the U64 result of one element from its sources
TILE_RESULT = {
    "TADD": lambda a, b: (a + b) & U64, "TMAX": max, "TMIN": min,
    "TABS": lambda a: a, "TRELU": lambda a: a, "TNEG": lambda a: -a & U64, "TNOT": lambda a: ~a & U64,
}
FILL_VALUES = {1: 0x7, 2: 0x2}  # a value for each unwritten valid element of tile 1 / tile 2


def lb0_twin(v: dict, commands: Catalog) -> dict:
    steps = v["steps"]
    avs = v["avs_id"]
    mn = avs.split("-")[3]
    tiles = {s["index"]: s for s in steps if s["op"] == "configure_tile"}
    if any(t["data_type"] != "U64" for t in tiles.values()):
        raise ValueError(f"{avs}: not U64")
    shapes = {(t["valid_rows"], t["valid_columns"]) for t in tiles.values()}
    if len(shapes) != 1:
        raise ValueError(f"{avs}: sources of different valid shapes")
    rows, columns = shapes.pop()
    start = next(i for i, s in enumerate(steps) if s["op"] == "exec")
    e1 = faulting_exec(steps)
    values = {(s["index"], s["row"], s["column"]): int(s["value"], 16)
              for s in steps[:start] if s["op"] == "write_tile_element"}
    fills = []
    for index in sorted(tiles):
        for r in range(rows):
            for c in range(columns):
                if (index, r, c) not in values:
                    values[(index, r, c)] = FILL_VALUES[index]
                    fills.append({"op": "write_tile_element", "index": index, "row": r, "column": c,
                                  "value": hex64(FILL_VALUES[index])})
    dim_form = next(f for f in commands.forms if f["mnemonic"] == "B.DIM" and f["asm"].endswith("->LB0"))
    dim = with_field(dim_form, int(dim_form["encoding"][0]["match"], 16), "uimm17", columns)
    b_dim = {"op": "exec", "entry": "command", "bits": f"{dim:#010x}", "length_bits": 32,
             "expect_status": "CommandExecution_Executed"}
    stop = dict(steps[e1])
    stop.pop("expect_fault", None)
    stop["expect_status"] = "CommandExecution_Executed"
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_tile", "binding": 0, "field": "valid_rows", "value": rows},
            {"op": "expect_tile", "binding": 0, "field": "valid_columns", "value": columns}]
    for r in range(rows):
        for c in range(columns):
            result = TILE_RESULT[mn](*[values[(i, r, c)] for i in sorted(tiles)])
            post.append({"op": "expect_tile_element", "binding": 0, "row": r, "column": c, "value": hex64(result)})
    post += [{"op": "expect_tile_element", "index": i, "row": r, "column": c, "value": hex64(x)}
             for (i, r, c), x in sorted(values.items())]
    legal = f"B.DIM LB0 = {columns}" + (f"; {len(fills)} unwritten source element(s) written" if fills else "")
    return {"avs_id": avs, "source": v["source"], "family": "tile LB0",
            "rule": "BundleDestinationValidColumns: explicit nonzero LB0 ValidCol",
            "legalisation": legal,
            "steps": steps[:start] + fills + [steps[start], b_dim] + steps[start + 1:e1] + [stop] + post}


def capacity_twin(v: dict, commands: Catalog) -> dict:
    steps = v["steps"]
    avs = v["avs_id"]
    mn = avs.split("-")[3]
    (tile,) = [s for s in steps if s["op"] == "configure_tile"]
    rows, columns = tile["valid_rows"], tile["valid_columns"]
    values = {(s["row"], s["column"]): int(s["value"], 16) for s in steps if s["op"] == "write_tile_element"}
    if tile["data_type"] != "U64" or len(values) != rows * columns:
        raise ValueError(f"{avs}: not a completely defined U64 source")
    e1 = faulting_exec(steps)
    body = []
    for s in steps[:e1]:
        t = dict(s)
        if s["op"] == "exec":
            bits = int(s["bits"], 16)
            form = commands.form_of(bits, 32)
            if form["mnemonic"] == "B.IOT":
                if Catalog.field(form, bits, "SizeCode") != 1:
                    raise ValueError(f"{avs}: SizeCode is not 1")
                t["bits"] = f"{with_field(form, bits, 'SizeCode', 2):#010x}"
        body.append(t)
    stop = dict(steps[e1])
    stop.pop("expect_fault", None)
    stop["expect_status"] = "CommandExecution_Executed"
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_tile", "binding": 0, "field": "valid_rows", "value": rows},
            {"op": "expect_tile", "binding": 0, "field": "valid_columns", "value": columns}]
    post += [{"op": "expect_tile_element", "binding": 0, "row": r, "column": c,
              "value": hex64(TILE_RESULT[mn](values[(r, c)]))} for (r, c) in sorted(values)]
    return {"avs_id": avs, "source": v["source"], "family": "tile capacity",
            "rule": "destination capacity: TileSizeCodeBytes(SizeCode) holds the destination",
            "legalisation": "B.IOT SizeCode 1 -> 2 (128 -> 256 bytes)", "steps": body + [stop] + post}


# The terminal B.IOT of the closed elementwise schema, as the spec's
# *-DEFAULTS-001 (one source) and TADD-MISSING-LB0-001 (two sources) use it.
TERMINAL_B_IOT = {1: 0x0018DE13, 2: 0x0818CE13}


def schema_twin(v: dict, commands: Catalog) -> dict:
    steps = v["steps"]
    avs = v["avs_id"]
    mn = avs.split("-")[3]
    tiles = {s["index"]: s for s in steps if s["op"] == "configure_tile"}
    values = {s["index"]: int(s["value"], 16) for s in steps if s["op"] == "write_tile_element"}
    if any(t["data_type"] != "U64" or (t["valid_rows"], t["valid_columns"]) != (1, 1) for t in tiles.values()):
        raise ValueError(f"{avs}: not 1 x 1 U64 sources")
    word = TERMINAL_B_IOT[len(tiles)]
    form = commands.form_of(word, 32)
    fields = {f["name"]: Catalog.field(form, word, f["name"]) for f in form["fields"]}
    expected = {"L": 1, "DstTile": 0, "SrcTile0": 1} | ({"SrcTile1": 2} if len(tiles) == 2 else {})
    if any(fields.get(k) != x for k, x in expected.items()):
        raise ValueError(f"{word:#x} is not the terminal binding of T1..T{len(tiles)}")
    e1 = faulting_exec(steps)
    bindings = [i for i, s in enumerate(steps[:e1]) if s.get("rewritten_from") == "AddBundleTileBinding"]
    merged = {**steps[bindings[0]], "bits": f"{word:#010x}"}
    body = [merged if i == bindings[0] else s for i, s in enumerate(steps[:e1]) if i not in bindings[1:]]
    stop = dict(steps[e1])
    stop.pop("expect_fault", None)
    stop["expect_status"] = "CommandExecution_Executed"
    result = TILE_RESULT[mn](*[values[i] for i in sorted(tiles)])
    post = [{"op": "expect_fault", "fault": "Fault_None"},
            {"op": "expect_tile", "binding": 0, "field": "valid_rows", "value": 1},
            {"op": "expect_tile", "binding": 0, "field": "valid_columns", "value": 1},
            {"op": "expect_tile_element", "binding": 0, "row": 0, "column": 0, "value": hex64(result)}]
    post += [{"op": "expect_tile_element", "index": i, "row": 0, "column": 0, "value": hex64(x)}
             for i, x in sorted(values.items())]
    return {"avs_id": avs, "source": v["source"], "family": "tile binding schema",
            "rule": "closed elementwise schema: destination and sources in one terminal B.IOT",
            "legalisation": f"the two B.IOT records -> {word:#010x}", "steps": body + [stop] + post}


def b_dim_form(commands: Catalog, bound: int) -> dict:
    return next(f for f in commands.forms if f["mnemonic"] == "B.DIM" and f["asm"].endswith(f"->LB{bound}"))


def dimi_twin(v: dict, commands: Catalog) -> dict:
    steps = v["steps"]
    avs = v["avs_id"]
    e1 = faulting_exec(steps)
    bits, length = int(steps[e1]["bits"], 16), steps[e1]["length_bits"]
    form = commands.form_of(bits, length)
    stop = {k: x for k, x in steps[e1].items() if k != "expect_fault"}
    stop["expect_status"] = "CommandExecution_Executed"
    post = [{"op": "expect_fault", "fault": "Fault_None"}]
    if avs.endswith("-DUP-001"):
        # C.B.DIMI wrote LB1 (imm8); the rejected B.DIM ->LB1 writes LB0 instead.
        first = next(s for s in steps[:e1] if s["op"] == "exec")
        dimi = commands.form_of(int(first["bits"], 16), first["length_bits"])
        nest = Catalog.field(dimi, int(first["bits"], 16), "LoopNest")
        lb0 = b_dim_form(commands, 0)
        value = Catalog.field(form, bits, "uimm17")
        stop["bits"] = f"{with_field(lb0, int(lb0['encoding'][0]['match'], 16), 'uimm17', value):#010x}"
        post += [{"op": "expect_dimension", "index": 0, "value": hex64(value)},
                 {"op": "expect_dimension", "index": nest,
                  "value": hex64(Catalog.field(dimi, int(first["bits"], 16), "imm8"))}]
        prefix, rule, legal = steps[:e1], "SetBundleDimension: one write per loop bound", "B.DIM ->LB1 becomes ->LB0"
    else:
        tpc = tpc_before(steps[:e1])
        block = {"op": "begin_bundle", "start_pc": None, "kind": "BundleKind_Standard",
                 "transfer": "BundleTransfer_Fallthrough", "target": hex64(tpc + 2), "sequential": hex64(tpc + 2),
                 "return_target": hex64(tpc + 2), "taken": False}
        nest = Catalog.field(form, bits, "LoopNest")
        post += [{"op": "expect_dimension_present", "index": nest, "value": True},
                 {"op": "expect_dimension", "index": nest, "value": hex64(Catalog.field(form, bits, "imm8"))}]
        prefix, rule, legal = steps[:e1] + [block], "SetBundleDimension: an active block header", "a STD block opened first"
    return {"avs_id": avs, "source": v["source"], "family": "block attribute", "rule": rule,
            "legalisation": legal, "steps": prefix + [stop] + post}


def bundle_dimensions(steps: list, commands: Catalog) -> dict:
    """LB index -> value of the point's B.DIM writes (immediate, RegSrc x0)."""
    dims = {}
    for s in steps:
        if s["op"] == "exec" and s.get("rewritten_from") == "SetBundleDimension":
            bits = int(s["bits"], 16)
            form = commands.form_of(bits, 32)
            if Catalog.field(form, bits, "RegSrc") != 0:
                raise ValueError("B.DIM with a register source")
            dims[int(form["asm"][-1])] = Catalog.field(form, bits, "uimm17")
    return dims


def tci_expectations(v: dict, commands: Catalog, start: int, descending: bool) -> list:
    """TCI (asl/tile/model/execution/generation.asl): one row of LB0 columns,
    column k = start + k (ascending) or start - k (descending) modulo the
    element width; U16 is the data type TCI-BUNDLE-001 asserts for this
    BSTART word.  The row below stays undefined (padding), as that point
    asserts."""
    columns = bundle_dimensions(v["steps"], commands)[0]
    step = -1 if descending else 1
    return ([{"op": "expect_tile", "binding": 0, "field": "data_type", "value": "TileDataType_U16"},
             {"op": "expect_tile", "binding": 0, "field": "valid_rows", "value": 1},
             {"op": "expect_tile", "binding": 0, "field": "valid_columns", "value": columns}]
            + [{"op": "expect_tile_element", "binding": 0, "row": 0, "column": k,
                "value": hex64((start + step * k) & mask(16))} for k in range(columns)]
            + [{"op": "expect_tile_element_defined", "binding": 0, "row": 1, "column": 0, "value": False}])


def ttri_expectations(v: dict, commands: Catalog, upper: bool, diagonal: int) -> list:
    """TTRI (generation.asl): LB1 rows x LB0 columns, typed one (FP16 0x3c00,
    TileTTRIOneEncoding; FP16 is what TTRI-BUNDLE-001 asserts for this BSTART
    word) where c >= r + diagonal (upper) or c <= r + diagonal (lower), else
    zero; column LB0 of the LB2-column row is padding, undefined."""
    dims = bundle_dimensions(v["steps"], commands)
    rows, columns = dims[1], dims[0]
    def one(r, c):
        return (c >= r + diagonal) if upper else (c <= r + diagonal)
    return ([{"op": "expect_tile", "binding": 0, "field": "data_type", "value": "TileDataType_FP16"},
             {"op": "expect_tile", "binding": 0, "field": "valid_rows", "value": rows},
             {"op": "expect_tile", "binding": 0, "field": "valid_columns", "value": columns}]
            + [{"op": "expect_tile_element", "binding": 0, "row": r, "column": c,
                "value": hex64(0x3C00 if one(r, c) else 0)} for r in range(rows) for c in range(columns)]
            + [{"op": "expect_tile_element_defined", "binding": 0, "row": 0, "column": columns, "value": False}])


def b_ior_field_change(steps: list, commands: Catalog, field: str, value: int) -> list:
    """The steps with the B.IOR's `field` set to `value`."""
    out = []
    for s in steps:
        t = dict(s)
        if s["op"] == "exec" and s.get("rewritten_from") == "SetBundleScalarBinding":
            bits = int(s["bits"], 16)
            t["bits"] = f"{with_field(commands.form_of(bits, 32), bits, field, value):#010x}"
        out.append(t)
    return out


def generation_twin(v: dict, commands: Catalog) -> dict:
    """TCI-DIRECTION / TTRI-ORIENT: the B.IOR's flag0 source (RegSrc1 = x2)
    holds 2; BundleOperationGPRBindingValuesLegal (asl/block/model/dispatch/
    scalar-schema.asl) accepts only 0 and 1.  Twin: x2 = 1 (descending TCI /
    upper TTRI; RegSrc0 = x0 gives start 0 / diagonal 0)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    prefix[last_set(prefix, 2)]["value"] = hex64(1)
    tci = "-TCI-" in v["avs_id"]
    effect = tci_expectations(v, commands, 0, True) if tci else ttri_expectations(v, commands, True, 0)
    return bundle_twin_record(v, prefix, steps[e1], effect, "tile generation operand",
                              "BundleOperationGPRBindingValuesLegal: flag0 is 0 or 1",
                              "x2 (flag0) = 1: " + ("descending" if tci else "upper"))


TQUANT_SCALE = 0x40000000  # FP32 2.0: positive, finite, nonzero (TileQuantizationScaleLegal)


def tquant_twin(v: dict, commands: Catalog) -> dict:
    """TQUANT-ZERO-SCALE: the B.IOR reads the scale from x0 (+0.0), which
    TileQuantizationScaleLegal (asl/tile/model/numeric/formats.asl) rejects.
    Twin: x1 = FP32 2.0 and the B.IOR's RegSrc0 = x1 (x0 is hardwired zero, so
    the selector has to change); the zero point stays x0 = 0.  Expected
    (TQUANT, reference TileProfileQuantize in asl/arch/profile/
    reference-quantization.asl): each FP32 source element x quantises to
    x * 2.0 + 0, exact for the point's 1.0, so no rounding mode enters; S8 is
    the destination type TQUANT-BUNDLE-001 asserts for this B.DATR; the
    source is unchanged."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    values = {(s["row"], s["column"]): int(s["value"], 16) for s in steps if s["op"] == "write_tile_element"}
    if set(values.values()) != {0x3F800000}:
        raise ValueError(f"{v['avs_id']}: the source is not all FP32 1.0")
    prefix = b_ior_field_change(steps[:e1], commands, "RegSrc0", 1)
    prefix.insert(1, {"op": "set_gpr", "reg": 1, "value": hex64(TQUANT_SCALE)})  # after the reset
    effect = ([{"op": "expect_tile", "binding": 0, "field": "data_type", "value": "TileDataType_S8"}]
              + [{"op": "expect_tile_element", "binding": 0, "row": r, "column": c, "value": hex64(2)} for r, c in sorted(values)]
              + [{"op": "expect_tile_element", "index": 1, "row": r, "column": c, "value": hex64(x)} for (r, c), x in sorted(values.items())])
    return bundle_twin_record(v, prefix, steps[e1], effect, "tile quantisation scale",
                              "TileQuantizationScaleLegal: a positive finite nonzero FP32 scale",
                              "x1 = FP32 2.0, B.IOR RegSrc0 x0 -> x1")


def bundle_twin_record(v: dict, prefix: list, rejected: dict, effect: list, family: str, rule: str, legal: str) -> dict:
    stop = {k: x for k, x in rejected.items() if k != "expect_fault"}
    stop["expect_status"] = "CommandExecution_Executed"
    return {"avs_id": v["avs_id"], "source": v["source"], "family": family, "rule": rule, "legalisation": legal,
            "steps": prefix + [stop, {"op": "expect_fault", "fault": "Fault_None"}] + effect}


def tepl_twin(v: dict, commands: Catalog) -> dict:
    """BSTART-TEPL-RESERVED: its second segment starts a TEPL bundle (Mode 0,
    Function 0) with DataType 15, which BundleDataTypeConcrete (asl/block/
    model/dispatch/descriptor-legality.asl) and the catalog's one-of reject.
    Twin: that segment with DataType 14 (a concrete code; one bit cleared).
    Expected (ExecuteDecodedBundleStart, asl/block/model/dispatch/start.asl;
    BeginBundleAt, lifecycle/begin.asl): the block is active, BPC is the
    BSTART's address, TPC and BARG.BPCN the fall-through (address + 4), the
    transfer Fallthrough (the form's assembly names no branch), taken (not
    Conditional), and the kind TileElement (a .TEPL form)."""
    steps = v["steps"]
    e = next(i for i, s in enumerate(steps) if s["op"] == "exec"
             and Catalog.field(commands.form_of(int(s["bits"], 16), 32), int(s["bits"], 16), "DataType") == 15)
    bits = int(steps[e]["bits"], 16)
    form = commands.form_of(bits, 32)
    prefix = [dict(s) for s in steps[segment_start(steps, e):e]]
    pc = tpc_before(prefix)
    stop = {k: x for k, x in steps[e].items() if k != "expect_fault"}
    stop.update(bits=f"{with_field(form, bits, 'DataType', 14):#010x}", expect_status="CommandExecution_Executed")
    post = fallthrough_block_started(pc, "BundleKind_TileElement", bpcn=pc + 4, taken=True)
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "tile BSTART descriptor",
            "rule": "BundleOperationDescriptorLegal / BundleDataTypeConcrete: DataType 15 is reserved",
            "legalisation": "DataType 15 -> 14", "steps": prefix + [stop] + post}


# id -> (gather?, index tile, data tile (scatter source), predicate tile, element
# bytes).  Element bytes: the scatter sources are U16; the gathers' BSTART
# words carry DataType 26, the code of MGATHER-SIGNED-001, whose lanes load
# 2 bytes.
INDEXED_TWINS = {
    "PTO-AVS-BLOCK-MGATHER-FAULT-001": (True, 0, None, None, 2),
    "PTO-AVS-BLOCK-MGATHER-MASK-FAULT-001": (True, 0, None, 1, 2),
    "PTO-AVS-BLOCK-MSCATTER-FAULT-001": (False, 2, 1, None, 2),
    "PTO-AVS-BLOCK-MSCATTER-MASK-FAULT-001": (False, 2, 1, 3, 2),
}
GATHER_SEEDS = [0x2211, 0x4433, 0x6655, 0x8877]  # memory seeded at the gathered lanes, in lane order


def tile_writes(steps: list, index: int) -> dict:
    return {(s["row"], s["column"]): int(s["value"], 16) for s in steps
            if s["op"] == "write_tile_element" and s["index"] == index}


def enabled_lanes(steps: list, index_tile: int, predicate_tile: int | None) -> list:
    """(row, column, index) of every valid lane, row-major; with a predicate
    tile only the lanes whose bit is set."""
    bits = {(s["row"], s["column"]): s["value"] for s in steps
            if s["op"] == "write_tile_predicate_bit" and s["index"] == predicate_tile}
    return [(r, c, x) for (r, c), x in sorted(tile_writes(steps, index_tile).items())
            if predicate_tile is None or bits[(r, c)]]


def memory_after(steps: list) -> dict:
    """Byte address -> value after the steps' ``store`` ops (little-endian)."""
    memory = {}
    for s in steps:
        if s["op"] == "store":
            for k in range(s["size"]):
                memory[int(s["addr"], 16) + k] = (int(s["value"], 16) >> (8 * k)) & 0xFF
    return memory


def shift_base(prefix: list, base: dict) -> int:
    """Moves the base register step `base` and every seeding store of `prefix`
    BASE_SHIFT lower, so the accesses land where the point's seeds land;
    returns the twin's base."""
    legal_base = int(base["value"], 16) + BASE_SHIFT
    base["value"] = hex64(legal_base)
    for s in prefix:
        if s["op"] == "store":
            s["addr"] = hex64(int(s["addr"], 16) + BASE_SHIFT)
    return legal_base


def indexed_memory_twin(v: dict) -> dict:
    """MGATHER / MSCATTER ``[-MASK]-FAULT-001``: base x2 (PE 0) = 0xFFE and U32
    byte displacements put an enabled lane at 0x1000, past the bounded memory
    (ProbeTileMemoryAccess, RaiseDataAccessFault in MGATHER, MGATHER_MASK,
    MSCATTER, MSCATTER_MASK, asl/tile/model/memory/gather-scatter.asl).
    Twin: the base 0x100 lower, memory seeded before moved with it.
    Expected (the same functions; TileMemoryByteDisplacementAddress adds the
    index to the base): each enabled lane accesses base + index, one memory
    event per lane.  A gather loads the lanes in row-major order (the event
    addresses are asserted) into the destination elements; the twin seeds
    memory at its lanes first so the values are known, and the point's own
    seed, moved, is stored after them.  A scatter's commit order is
    ARBITRARY (CommitScatterLanes), so only the event count and the stored
    bytes (source element, little-endian, distinct addresses) are asserted."""
    gather, index_tile, data_tile, predicate_tile, size = INDEXED_TWINS[v["avs_id"]]
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    legal_base = shift_base(prefix, next(s for s in prefix if s["op"] == "set_pe_gpr" and s["pe"] == 0 and s["reg"] == 2))
    lanes = [(r, c, legal_base + x) for r, c, x in enabled_lanes(steps, index_tile, predicate_tile)]
    post = [{"op": "expect_mem_event_count", "count": len(lanes)}]
    if gather:
        prefix[1:1] = [{"op": "store", "addr": hex64(a), "size": size, "value": hex64(x)}
                       for (_, _, a), x in zip(lanes, GATHER_SEEDS)]  # after the reset
        memory = memory_after(prefix)
        post += [{"op": "expect_mem_event", "index": i, "field": "address", "value": hex64(a)} for i, (_, _, a) in enumerate(lanes)]
        post += [{"op": "expect_tile_element", "binding": 0, "row": r, "column": c,
                  "value": hex64(sum(memory.get(a + k, 0) << (8 * k) for k in range(size)))} for r, c, a in lanes]
        post.append({"op": "mem_events_stop"})
    else:
        data = tile_writes(steps, data_tile)
        post.append({"op": "mem_events_stop"})
        post += [{"op": "load", "addr": hex64(a), "size": size, "expect_value": hex64(data[(r, c)])} for r, c, a in lanes]
    return bundle_twin_record(v, prefix, steps[e1], post, "indexed tile memory",
                              "ProbeTileMemoryAccess: every enabled lane inside the bounded memory before any access",
                              f"x2 (PE 0) {legal_base - BASE_SHIFT:#x} -> {legal_base:#x}")


CAS_MISMATCH_SEED = 0x0017  # memory at the second lane: differs from that lane's expected value


def cas_twin(v: dict) -> dict:
    """MGATHER-CAS-FAULT: base x2 (PE 0) = 0xFFE, U32 byte displacements 0 and
    2 (tile 0), so the second lane's read probe is at 0x1000, past memory
    (MGATHER_CAS, asl/tile/model/memory/atomics.asl).  Twin: the base 0x100
    lower, the point's seed moved with it; the second lane's memory seeded
    with a value unequal to its expected element, so one lane succeeds and
    one fails.  Expected (MGATHER_CAS; the B.IOTs bind indices tile 0 and
    expected tile 1, then replacement tile 2, tlsu-mgather-cas.asl): each
    destination lane holds the old memory value; a lane whose old value
    equals its expected element stores its replacement, the other leaves
    memory unchanged; one atomic event per lane (serialisation order is
    ARBITRARY, so only the count)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    legal_base = shift_base(prefix, next(s for s in prefix if s["op"] == "set_pe_gpr" and s["pe"] == 0 and s["reg"] == 2))
    lanes = [(r, c, legal_base + x) for r, c, x in enabled_lanes(steps, 0, None)]
    prefix.insert(1, {"op": "store", "addr": hex64(lanes[1][2]), "size": 2, "value": hex64(CAS_MISMATCH_SEED)})
    memory = memory_after(prefix)
    expected, replacement = tile_writes(steps, 1), tile_writes(steps, 2)
    post = [{"op": "expect_mem_event_count", "count": len(lanes)}, {"op": "mem_events_stop"}]
    for r, c, a in lanes:
        old = memory.get(a, 0) | memory.get(a + 1, 0) << 8
        post.append({"op": "expect_tile_element", "binding": 0, "row": r, "column": c, "value": hex64(old)})
        after = replacement[(r, c)] & 0xFFFF if old == expected[(r, c)] & 0xFFFF else old
        post.append({"op": "load", "addr": hex64(a), "size": 2, "expect_value": hex64(after)})
    return bundle_twin_record(v, prefix, steps[e1], post, "indexed tile memory",
                              "ProbeTileMemoryAccess: every lane's read and write probe inside the bounded memory",
                              f"x2 (PE 0) {legal_base - BASE_SHIFT:#x} -> {legal_base:#x}; second lane's memory seeded")


SCHEMA_BASE = 0x200          # x2 (PE 0) of the added base binding: the address the points seed
B_IOR_BASE_X2 = "0x00010013"  # B.IOR RegSrc0 = x2, as the MGATHER points bind their base
U8_SEED = 0x5A


def gather_one_byte_effect(v: dict, prefix: list) -> list:
    """A one-lane U8 gather (MGATHER_MASK or MGATHER_CAS, DataType 27, the
    code of MGATHER-MASK-GATHER-001, whose lanes load 1 byte) at base 0x200 +
    index 0: one memory event; the destination holds the old byte; a CAS
    whose old byte equals its expected element (tile 1) stores the
    replacement (tile 2)."""
    memory = memory_after(prefix)
    old = memory.get(SCHEMA_BASE, 0)
    post = [{"op": "expect_mem_event_count", "count": 1},
            {"op": "expect_mem_event", "index": 0, "field": "address", "value": hex64(SCHEMA_BASE)},
            {"op": "mem_events_stop"},
            {"op": "expect_tile_element", "binding": 0, "row": 0, "column": 0, "value": hex64(old)}]
    if "-CAS-" in v["avs_id"]:
        expected, replacement = tile_writes(v["steps"], 1)[(0, 0)], tile_writes(v["steps"], 2)[(0, 0)]
        post.append({"op": "load", "addr": hex64(SCHEMA_BASE), "size": 1,
                     "expect_value": hex64(replacement if old == expected else old)})
    return post


def gather_schema_twin(v: dict) -> dict:
    """MGATHER-MASK-SCHEMA / MGATHER-CAS-SCHEMA: no B.IOR, so the scalar base
    binding is missing (ExecuteBundleMGATHER{MASK,CAS}Operation:
    _BundleScalarBindings[[0]].valid).  Twin: B.IOR x2 after the B.IOTs and
    x2 (PE 0) = 0x200, memory there seeded unless the point seeds it."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    start = next(i for i, s in enumerate(steps) if s["op"] == "mem_events_start")
    ior = {"op": "exec", "entry": "command", "bits": B_IOR_BASE_X2, "length_bits": 32,
           "expect_status": "CommandExecution_Executed"}
    prefix = [dict(s) for s in steps[:start]] + [ior] + [dict(s) for s in steps[start:e1]]
    prefix.insert(1, {"op": "set_pe_gpr", "pe": 0, "reg": 2, "value": hex64(SCHEMA_BASE)})
    if not any(s["op"] == "store" for s in prefix):
        prefix.insert(1, {"op": "store", "addr": hex64(SCHEMA_BASE), "size": 1, "value": hex64(U8_SEED)})
    return bundle_twin_record(v, prefix, steps[e1], gather_one_byte_effect(v, prefix), "indexed tile memory schema",
                              "ExecuteBundleMGATHER{MASK,CAS}Operation: a valid scalar base binding (B.IOR)",
                              "B.IOR x2 added, x2 (PE 0) = 0x200")


def gather_predicate_twin(v: dict) -> dict:
    """MGATHER-MASK-PRED: the MaskTile (tile 1) is an ordinary U8 tile holding
    1; MGATHER.MASK needs packed predicate storage (TilePredicateValuesLegal).
    Twin: tile 1 configured as a predicate tile of the same shape with its
    bit set (the value 1 the point wrote), memory at the lane seeded."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = []
    for s in steps[:e1]:
        if s["op"] == "configure_tile" and s["index"] == 1:
            prefix.append({k: x for k, x in s.items() if k not in ("data_type", "layout", "location")}
                          | {"op": "configure_predicate_tile"})
        elif s["op"] == "write_tile_element" and s["index"] == 1:
            prefix.append({"op": "write_tile_predicate_bit", "index": 1, "row": s["row"], "column": s["column"],
                           "value": int(s["value"], 16) == 1})
        else:
            prefix.append(dict(s))
    prefix.insert(1, {"op": "store", "addr": hex64(SCHEMA_BASE), "size": 1, "value": hex64(U8_SEED)})
    return bundle_twin_record(v, prefix, steps[e1], gather_one_byte_effect(v, prefix), "indexed tile memory schema",
                              "MGATHER.MASK: MaskTile in packed predicate storage",
                              "tile 1 a predicate tile with its bit set")


TLOAD_SEED = 0xBB  # memory at the second element of the TLOAD twin


def tload_preflight_twin(v: dict, commands: Catalog) -> dict:
    """TLOAD-PREFLIGHT: base x2 = 0xFFC, LB0 = 2 four-byte elements, so the
    second element is at 0x1000, past memory; the whole access is probed
    before any load (Fault_DataPage, no event).  Twin: x2 0x100 lower, the
    point's seed moved with it, the second element's word seeded.  Expected:
    the bundle shape is TLOAD-STRIDE-001's first segment (same BSTART, B.IOT
    and B.IOR x2 base / x3 row stride), whose elements are the little-endian
    4-byte words at base + row * stride + column * 4; here one row."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    legal_base = shift_base(prefix, prefix[last_set(prefix, 2)])
    prefix.insert(1, {"op": "store", "addr": hex64(legal_base + 4), "size": 4, "value": hex64(TLOAD_SEED)})
    dims = bundle_dimensions(steps, commands)
    if dims.get(1, 1) != 1:
        raise ValueError(f"{v['avs_id']}: more than one row")
    memory = memory_after(prefix)
    post = [{"op": "expect_tile_element", "binding": 0, "row": 0, "column": c,
             "value": hex64(sum(memory.get(legal_base + 4 * c + k, 0) << (8 * k) for k in range(4)))}
            for c in range(dims[0])]
    post.append({"op": "mem_events_stop"})
    return bundle_twin_record(v, prefix, steps[e1], post, "tile memory",
                              "TLOAD preflight: every element inside the bounded memory before any access",
                              f"x2 {legal_base - BASE_SHIFT:#x} -> {legal_base:#x}")


def recovered_run_twin(v: dict) -> dict:
    """TPREFETCH-FAULT: PE 2's base x2 is all-ones, so the four-PE block
    attempt faults before any event (TPREFETCHCore probes every PE first,
    asl/tile/model/memory/gather-scatter.asl).  The point then sets PE 2's
    base to 0x200 and retries.  Twin: that base from the start, the one
    attempt executes; expected: the point's own successful retry (four
    prefetch events, one per PE in agent order), each at its PE's base (the
    element (0, 0) of TPREFETCHCore's strided walk)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    retry = next(i for i, s in enumerate(steps) if i > e1 and s["op"] == "set_pe_gpr")
    fix = steps[retry]
    prefix = [dict(s) for s in steps[:e1]]
    target = next(s for s in prefix if s["op"] == "set_pe_gpr" and (s["pe"], s["reg"]) == (fix["pe"], fix["reg"]))
    target["value"] = fix["value"]
    post = [dict(s) for s in steps[retry + 2:] if s["op"] not in ("expect_fault", "mem_events_stop")]
    # one element per PE (no B.DIM: LB0 = 1): its event is at that PE's base
    bases = {s["pe"]: s["value"] for s in prefix if s["op"] == "set_pe_gpr" and s["reg"] == fix["reg"]}
    post += [{"op": "expect_mem_event", "index": pe, "field": "address", "value": bases[pe]} for pe in sorted(bases)]
    post.append({"op": "mem_events_stop"})
    return bundle_twin_record(v, prefix, steps[e1], post, "tile memory",
                              "TPREFETCHCore: every PE's addresses inside the bounded memory before any event",
                              f"x{fix['reg']} (PE {fix['pe']}) = {int(fix['value'], 16):#x}, the point's retry value")


def tcmp_capacity_twin(v: dict, commands: Catalog) -> dict:
    """TCMP-CAPACITY: the B.IOT gives the predicate destination of LB1 x LB0 =
    64 x 128 comparisons SizeCode 1 (128 bytes, TileSizeCodeBytes), below
    PredicateTileStorageBytes = 64 * 128 / 8 = 1024 (the resolution's
    Fault_TileAllocation, destination-shape.asl).  Twin: the smallest
    SizeCode the whole operation accepts, 7 (8192 bytes): the packed check
    alone would take 1024, but ConfigurePredicateTileForMask gives the
    destination data type U8 (allocation.asl) and TileOperandsLegal_
    ExecuteTileCompare's TileLogicalShapeMatch needs TileDescriptorLegal,
    whose TileDescriptorConfigured also requires rows * columns <=
    TileLogicalElementCapacity(capacity, U8) = capacity bytes
    (descriptor-shape.asl); SizeCodes 4..6 fail there with
    Fault_TileLegality.  Expected: the destination published with the
    sources' geometry; the sources stay allocated.  The comparison values
    are not asserted: the point defines its sources without writing them."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    dims = bundle_dimensions(steps, commands)
    elements = dims[1] * dims[0]
    needed = max((elements + 7) // 8, elements)  # PredicateTileStorageBytes; U8 logical element capacity
    code = next(k for k in range(1, 13) if 64 << k >= needed)  # TileSizeCodeBytes(k) = 64 << k
    prefix = []
    for s in steps[:e1]:
        t = dict(s)
        if s["op"] == "exec" and s.get("rewritten_from") == "AddBundleTileBinding":
            bits = int(s["bits"], 16)
            form = next(f for f in commands.forms if f["asm"].endswith("->DstTile<SizeCode>") and f["mnemonic"] == "B.IOT"
                        and any(bits & int(e["mask"], 16) == int(e["match"], 16) for e in f["encoding"])
                        and Catalog.field(f, bits, "SrcTile1") is not None)
            t["bits"] = f"{with_field(form, bits, 'SizeCode', code):#010x}"
        prefix.append(t)
    post = [{"op": "expect_tile", "binding": 0, "field": "valid_rows", "value": dims[1]},
            {"op": "expect_tile", "binding": 0, "field": "valid_columns", "value": dims[0]},
            {"op": "expect_tile", "index": 1, "field": "allocated", "value": True},
            {"op": "expect_tile", "index": 2, "field": "allocated", "value": True}]
    return bundle_twin_record(v, prefix, steps[e1], post, "tile capacity",
                              "PredicateTileStorageBytes(rows, columns) <= TileSizeCodeBytes(SizeCode)",
                              f"B.IOT SizeCode 1 -> {code} ({64 << code} bytes)")


def gmov_readiness_twin(v: dict) -> dict:
    """GMOV-READINESS: the source is allocated on PEs 0..2 only (mask 0111);
    BundleGMOVCore4SourceReady (asl/block/model/dispatch/tlsu-gmov.asl)
    needs the whole Core4 (mask 1111) and defined contents.  Twin: the source
    configured with mask 1111.  Expected (ExecuteBundleGMOVOperation, GMOV
    in asl/tile/model/memory/shared-movement.asl; no B.IOR: peer 0 on every
    PE): the destination holds the source payload and its definedness; GMOV
    makes no memory access (no event)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    (source,) = [s for s in prefix if s["op"] == "configure_tile"]
    source["mask"] = 0b1111
    values = tile_writes(steps, source["index"])
    post = [{"op": "expect_mem_event_count", "count": 0}, {"op": "mem_events_stop"}]
    post += [{"op": "expect_tile_element", "binding": 0, "row": r, "column": c, "value": hex64(x)}
             for (r, c), x in sorted(values.items())]
    return bundle_twin_record(v, prefix, steps[e1], post, "GMOV readiness",
                              "BundleGMOVCore4SourceReady: the source allocated on all four PEs, contents defined",
                              "source allocation mask 0111 -> 1111")


def cube_tload_size_twin(v: dict, commands: Catalog) -> dict:
    """TLOAD-CUBE-TSIZE: a CUBE TLOAD of LB1 x LB0 = 13 x 19 FP16 elements in
    the N8 cell layout needs 768 bytes per PE; the B.IOT's SizeCode gives 512
    (TileSizeCodeBytes(3)), so the allocation faults (TSize is only a per-PE
    capacity limit, asl/tile/model/shape/cube-cell.asl).  Twin: the smallest
    SizeCode that holds the point's 768 bytes, 4 (1024 bytes).  Expected
    (BSTART.TLOAD, as TLOAD-CUBE-002 asserts for its bundle): the
    destination with LB1 valid rows and LB0 valid columns, and every valid element defined with the memory's value, zero
    after the reset (the point writes no memory)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    dims = bundle_dimensions(steps, commands)
    needed = 768  # the point's pass condition: a 768-byte FP16 N8 descriptor
    code = next(k for k in range(1, 13) if 64 << k >= needed)
    if any(s["op"] in ("store", "write_mem") for s in steps[:e1]):
        raise ValueError(f"{v['avs_id']}: memory written, the twin expects zeros")
    prefix = []
    for s in steps[:e1]:
        t = dict(s)
        if s["op"] == "exec":
            bits = int(s["bits"], 16)
            form = commands.form_of(bits, 32)
            if form["mnemonic"] == "B.IOT":
                if 64 << Catalog.field(form, bits, "SizeCode") >= needed:
                    raise ValueError(f"{v['avs_id']}: SizeCode already holds the destination")
                t["bits"] = f"{with_field(form, bits, 'SizeCode', code):#010x}"
        prefix.append(t)
    rows, columns = dims[1], dims[0]
    post = [{"op": "expect_tile", "binding": 0, "field": "valid_rows", "value": rows},
            {"op": "expect_tile", "binding": 0, "field": "valid_columns", "value": columns}]
    for r, c in ((0, 0), (rows - 1, columns - 1)):
        post += [{"op": "expect_tile_payload", "binding": 0, "row": r, "column": c, "value": hex64(0)},
                 {"op": "expect_tile_element_defined", "binding": 0, "row": r, "column": c, "value": True}]
    return bundle_twin_record(v, prefix, steps[e1], post, "tile capacity",
                              "CUBE TLOAD: the per-PE cell bytes <= TileSizeCodeBytes(SizeCode)",
                              f"B.IOT SizeCode -> {code} ({64 << code} bytes)")


def own_retry_twin(v: dict) -> dict:
    """SHARED-TSTORE-MASK-LEGALITY: a TSTORE of a Shared source whose BSTART
    PE mask differs from the Shared tile's installed mask faults with
    Fault_TileLegality; the point then retries the same bundle with one
    BSTART word changed (the mask that matches) and it executes.  Twin: that
    retry run alone from the point's setup (no faulting attempt first);
    expected: what the point asserts after its retry (the stored byte)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    first = next(i for i, s in enumerate(steps) if s["op"] == "exec")
    clear = next(i for i, s in enumerate(steps) if i > e1 and s["op"] == "clear_fault")
    attempt = steps[first:e1 + 1]
    e2 = next(i for i, s in enumerate(steps) if i > clear and s["op"] == "exec"
              and s["bits"] == steps[e1]["bits"])
    retry = steps[clear + 1:e2 + 1]
    changed = [(a["bits"], b["bits"]) for a, b in zip(attempt, retry) if a["bits"] != b["bits"]]
    if len(attempt) != len(retry) or len(changed) != 1:
        raise ValueError(f"{v['avs_id']}: the retry is not the attempt with one word changed")
    prefix = [dict(s) for s in steps[:first]] + [dict(s) for s in retry[:-1]]
    post = [dict(s) for s in steps[e2 + 1:] if s["op"] != "expect_fault"]
    old, new = changed[0]
    return bundle_twin_record(v, prefix, steps[e1], post, "Shared mask",
                              "the BSTART PE mask covers the Shared tile's installed mask",
                              f"BSTART {old} -> {new}, the point's own retry word")


# id -> (register, legal value, rule, expected steps after the exec)
TFMA_SOURCE_VALUE = {  # the twin's source element k = row * Col + column, per source tile
    1: lambda k: (0x9E3779B97F4A7C15 * (k + 1)) & MASK64,  # left multiplicand: wraps
    2: lambda k: k + 3,                                     # right multiplicand
    3: lambda k: ~k & MASK64,                               # addend
}


def tfma_capacity_twin(v: dict, commands: Catalog) -> dict:
    """TFMA-CAPACITY: a U64 TFMA (BSTART DataType 24) of LB1 x LB0 = 2 x 128
    (LB2 Col 128) whose destination B.IOT has SizeCode 1: 128 bytes cannot
    hold 2 * 128 * 8 = 2048 (TileDescriptorShapeLegal in
    ResolveBundleTileDestinationsWithShapeAndType, destination-shape.asl:
    Fault_TileAllocation before allocation).  The point configures no
    source, so the twin needs two changes: SizeCode 1 -> 5 (2048 bytes), and
    the sources 1 (left), 2 (right), 3 (addend) of the B.IOTs configured as
    the destination will be (TileOperandsLegal_TFMA: the same 2048-byte
    2 x 128 U64 RowMajor descriptor, PE_MASK 1111 as the bindings) with
    every valid element written (defined).  Expected (TFMA,
    TileFixedFusedMultiplyAddValue for an integer type,
    asl/tile/model/execution/fused-multiply-add.asl): each element
    left * right + addend modulo 2^64; the destination is tile 0, the first
    free register of hand 0; the sources unchanged."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    dims = bundle_dimensions(steps, commands)
    rows, columns = dims[1], dims[0]
    if dims[2] != columns:
        raise ValueError(f"{v['avs_id']}: Col differs from ValidCol")
    needed = rows * columns * 8
    code = next(k for k in range(1, 13) if 64 << k >= needed)  # TileSizeCodeBytes(k) = 64 << k
    elements = [(r, c) for r in range(rows) for c in range(columns)]
    sources = []
    for index, value in TFMA_SOURCE_VALUE.items():
        sources.append({"op": "configure_tile", "index": index, "mask": 0b1111, "capacity": 64 << code, "rows": rows,
                        "columns": columns, "valid_rows": rows, "valid_columns": columns, "data_type": "U64",
                        "layout": "RowMajor", "location": "Any"})
        sources += [{"op": "write_tile_element", "index": index, "row": r, "column": c,
                     "value": hex64(value(r * columns + c))} for r, c in elements]
    prefix = [dict(steps[0])] + sources + [dict(s) for s in steps[1:e1]]
    # the last binding: the addend, L and the destination (the only form that decodes it)
    last = prefix[max(i for i, s in enumerate(prefix) if s.get("rewritten_from") == "AddBundleTileBinding")]
    bits = int(last["bits"], 16)
    last["bits"] = f"{with_field(commands.form_of(bits, 32), bits, 'SizeCode', code):#010x}"
    left, right, addend = TFMA_SOURCE_VALUE[1], TFMA_SOURCE_VALUE[2], TFMA_SOURCE_VALUE[3]
    post = [{"op": "expect_tile", "index": 0, "field": "valid_rows", "value": rows},
            {"op": "expect_tile", "index": 0, "field": "valid_columns", "value": columns}]
    post += [{"op": "expect_tile_element", "index": 0, "row": r, "column": c,
              "value": hex64(left(k) * right(k) + addend(k))} for r, c in elements for k in [r * columns + c]]
    post += [{"op": "expect_tile_element", "index": 3, "row": r, "column": c, "value": hex64(addend(r * columns + c))}
             for r, c in (elements[0], elements[-1])]
    return bundle_twin_record(v, prefix, steps[e1], post, "tile capacity",
                              "TileDescriptorShapeLegal(TileSizeCodeBytes(SizeCode), Col, rows, columns, U64)",
                              f"B.IOT SizeCode 1 -> {code} ({64 << code} bytes); sources 1..3 configured and written")


TSTORE_SHAPE_COLUMNS = 2  # the twin's LB0 (ValidCol) and LB2 (physical Col)


def tstore_shape_twin(v: dict, commands: Catalog) -> dict:
    """TSTORE-SHAPE: a full-PE TSTORE (Function 1, DataType 24 = U64) of the
    unallocated Shared S99 with LB0 = LB2 = 32768 columns and LB1 = 9 rows:
    no SizeCode holds that shape (MinimumTileCapacityBytesForShape = 0), so
    SharedTileReadSchemaLegal rejects it with Fault_TileLegality before any
    store.  Twin: LB0 and LB2 = 2 (9 x 2 U64 = 144 bytes: capacity 256).
    Expected (BSTART.TSTORE: an unallocated Shared source is no exception,
    its elements read UndefinedSharedTileWord(S, e) = ZeroExtend(S) XOR e,
    asl/tile/model/state/shared-registers.asl; TSTOREShared,
    asl/tile/model/memory/shared-movement.asl): every element (row, column)
    of the valid 9 x 2 rectangle, e = TileStorageIndex = row * Col + column,
    stored by the PE whose region holds it (PE mask 1111: all of them) at
    base 0 (no B.IOR) + row * 16 (dense row stride ceil(Col * 64 / 8)) +
    column * 8; S99 stays without a descriptor and the binding is consumed
    (as TSTORE-UNDEF-001 asserts for its 1 x 1 store)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    dims = bundle_dimensions(steps, commands)
    shared_id = next(s["index"] for s in steps if s["op"] == "expect_shared_tile")
    prefix = []
    for s in steps[:e1]:
        t = dict(s)
        if s["op"] == "exec" and s.get("rewritten_from") == "SetBundleDimension":
            bits = int(s["bits"], 16)
            bound = int(commands.form_of(bits, 32)["asm"][-1])
            if bound != 1:
                t["bits"] = f"{with_field(b_dim_form(commands, bound), bits, 'uimm17', TSTORE_SHAPE_COLUMNS):#010x}"
        prefix.append(t)
    rows, columns = dims[1], TSTORE_SHAPE_COLUMNS
    row_stride = columns * 8
    post = [{"op": "expect_mem", "addr": hex64(row * row_stride + column * 8), "size": 8,
             "value": hex64(shared_id ^ (row * columns + column))}
            for row in range(rows) for column in range(columns)]
    post += [{"op": "expect_shared_tile", "index": shared_id, "field": "descriptor_valid", "value": False},
             {"op": "expect_shared_binding", "index": 0, "field": "consumed", "value": True}]
    return bundle_twin_record(v, prefix, steps[e1], post, "tile shape",
                              "SharedTileReadSchemaLegal: MinimumTileCapacityBytesForShape(Col, rows, columns) != 0",
                              f"B.DIM LB0 and LB2 {dims[0]} -> {columns} (LB1 {rows} kept)")


def encode(commands: Catalog, mnemonic: str, asm: str | None = None, **fields: int) -> int:
    """The catalog form's match bits with the named fields set (every other field zero)."""
    (form,) = [f for f in commands.forms if f["mnemonic"] == mnemonic and (asm is None or f["asm"] == asm)]
    bits = int(form["encoding"][0]["match"], 16)
    for name, value in fields.items():
        bits = with_field(form, bits, name, value)
    return bits


def command_step(bits: int, rewritten_from: str | None = None) -> dict:
    step = {"op": "exec", "entry": "command", "bits": f"{bits:#010x}", "length_bits": 32}
    if rewritten_from:
        step["rewritten_from"] = rewritten_from
    step["expect_status"] = "CommandExecution_Executed"
    return step


def retargeted_start(commands: Catalog, step: dict, mnemonic: str) -> dict:
    """The BSTART step with another tile BSTART form of the same DataType."""
    bits = int(step["bits"], 16)
    data_type = Catalog.field(commands.form_of(bits, 32), bits, "DataType")
    return dict(step, bits=f"{encode(commands, mnemonic, DataType=data_type):#010x}")


def product(left: list, right: list) -> int:
    """The reference profile's TileProfileMatrixAccumulate over one row and
    column (asl/arch/profile/reference-profile.asl): accumulator +
    MultiplyWord(left, right) on the raw carriers, modulo 2^64, from zero."""
    total = 0
    for a, b in zip(left, right):
        total = (total + a * b) & MASK64
    return total


GEMV_A = [0x1234, 0x00F7]  # the twin's FP16 carriers of A (2 x 1): rows 0 and 1
GEMV_B = 0x0103            # and of B (1 x 1)


def gemv_m_twin(v: dict, commands: Catalog) -> dict:
    """TGEMV-CUBE-M: a TGEMV bundle (the M = 1 specialisation of Local CUBE
    Matrix execution) with B.DIM LB0 = M = 2 over a CUBE_M16 FP16 A of 2 x 1
    and a CUBE_N8 B of 1 x 1; ExecuteBundleTMATMULOperation
    (asl/block/model/dispatch/cube-tmatmul.asl) raises Fault_TileLegality
    for TileMatrixFunctionIsGEMV(function) && m != 1.  Twin: the same bundle
    started by BSTART.TMATMUL (the same DataType; the rule's other conjunct),
    which takes any M.  (M = 1 with a one-row A is TGEMV-EXEC-001's bundle.)
    The point only marks the operands' valid regions defined; the twin writes
    them (the same definedness) with the carriers above so the product shows.
    Expected: a new FP32 destination (TileOrdinaryMatrixAccumulatorType of
    FP16: TileMatrixAccumulatorDataType, asl/tile/model/definedness/
    elements.asl) of M x N = 2 x 1 in the Local A's layout CUBE_M16
    (BundleMatrixCooperativeMLayout), each element the reference profile's
    sum of raw-carrier products (MatrixProductResultFromTiles, asl/tile/
    model/execution/cube.asl; B.FPATR all zero: MatrixPostQuantBaseWithFlags
    returns the value, no flags), the sources allocated and unchanged, and
    the numeric status flags unchanged."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    values = {1: {(0, 0): GEMV_A[0], (1, 0): GEMV_A[1]}, 2: {(0, 0): GEMV_B}}
    prefix = []
    for s in steps[:e1]:
        if s["op"] == "mark_tile_defined":
            prefix += [{"op": "write_tile_element", "index": s["index"], "row": r, "column": c, "value": hex64(x)}
                       for (r, c), x in sorted(values[s["index"]].items())]
        elif s["op"] == "exec" and commands.form_of(int(s["bits"], 16), 32)["mnemonic"] == "BSTART.TGEMV":
            prefix.append(retargeted_start(commands, s, "BSTART.TMATMUL"))
        else:
            prefix.append(dict(s))
    snapshot = next(s["snapshot"] for s in prefix if s["op"] == "expect_fp_flags")
    m = bundle_dimensions(steps, commands)[0]
    post = [{"op": "expect_tile", "destination_ordinal": 0, "field": f, "value": x}
            for f, x in (("data_type", "TileDataType_FP32"), ("layout", "TileLayout_CUBE_M16"),
                         ("valid_rows", m), ("valid_columns", 1))]
    post += [{"op": "expect_tile_element", "destination_ordinal": 0, "row": r, "column": 0,
              "value": hex64(product([GEMV_A[r]], [GEMV_B]))} for r in range(m)]
    post += [{"op": "expect_tile_element", "index": i, "row": r, "column": c, "value": hex64(x)}
             for i, cells in values.items() for (r, c), x in sorted(cells.items())]
    post.append({"op": "expect_fp_flags", "value": {"snapshot": snapshot, "offset": 0}})
    return bundle_twin_record(v, prefix, steps[e1], post, "CUBE matrix",
                              "ExecuteBundleTMATMULOperation: TileMatrixFunctionIsGEMV(function) && m != 1",
                              "BSTART.TGEMV -> BSTART.TMATMUL (same DataType, M = 2 kept); operands written")


FPATR_A, FPATR_B = 0xFEDC, 0xBA  # the twin's U16 Local A and U8 Shared B


def missing_fpatr_twin(v: dict, commands: Catalog) -> dict:
    """TMATMUL-MISSING-FPATR: a participating TMATMUL (U16 x U8 by B.DATR)
    with a Shared B (S31) and a Local A but no B.FPATR:
    ExecuteBundleTMATMULOperation raises Fault_BundleControl
    (!_BundleFixedPointAttributes.valid).  Twin: the B.FPATR the spec's own
    TMATMUL-SHARED-001 sends for the same words (all fields zero) right
    after the BSTART.  That alone leaves the bundle rejected by the next
    rules (the point's Local A is a 1 x 1 RowMajor tile with nothing
    written: TileMatrixLocalMOperandSchemaLegal wants a CUBE M layout, and
    both operands must be defined), so the twin also takes TMATMUL-SHARED-001's
    operands: A configured CUBE_M16 (ConfigureCubeTileForMask, 1 x 1, mask
    1111) and both A and the tile installed as S31 written.  Expected (as
    TMATMUL-SHARED-001 asserts for its bundle): Fault_None, the Shared
    binding consumed, a new U32 destination (TileMatrixAccumulatorDataType of
    the unsigned U16) holding A * B (reference profile: raw-carrier product),
    S31 still installed (a read does not release it)."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = []
    shared_id = None
    for s in steps[:e1]:
        if s["op"] == "configure_tile" and s["index"] == 1:
            prefix.append({"op": "configure_cube_tile", "index": 1, "mask": 0b1111, "capacity": s["capacity"],
                           "valid_rows": 1, "valid_columns": 1, "data_type": s["data_type"], "layout": "CUBE_M16",
                           "location": "Matrix", "expect_configured": True})
            prefix.append({"op": "write_tile_element", "index": 1, "row": 0, "column": 0, "value": hex64(FPATR_A)})
        elif s["op"] == "install_shared_tile":
            shared_id = s["shared_id"]
            prefix.append({"op": "write_tile_element", "index": s["index"], "row": 0, "column": 0,
                           "value": hex64(FPATR_B)})
            prefix.append(dict(s))
        elif s["op"] == "exec" and commands.form_of(int(s["bits"], 16), 32)["mnemonic"] == "BSTART.TMATMUL":
            prefix += [dict(s), command_step(encode(commands, "B.FPATR"), "SetBundleFixedPointAttributeState")]
        else:
            prefix.append(dict(s))
    post = [{"op": "expect_shared_binding", "index": 0, "field": "consumed", "value": True},
            {"op": "expect_tile", "binding": 0, "field": "data_type", "value": "TileDataType_U32"},
            {"op": "expect_tile_element", "binding": 0, "row": 0, "column": 0,
             "value": hex64(product([FPATR_A], [FPATR_B]))},
            {"op": "expect_shared_tile", "index": shared_id, "field": "descriptor_valid", "value": True}]
    return bundle_twin_record(v, prefix, steps[e1], post, "CUBE matrix",
                              "ExecuteBundleTMATMULOperation: _BundleFixedPointAttributes.valid (a B.FPATR)",
                              "B.FPATR (all zero) after the BSTART; A CUBE_M16 and both operands written "
                              "(TMATMUL-SHARED-001's operands)")


UNDEF_B = 0x0205  # the twin's FP16 carrier of the Shared B


def shared_undef_twin(v: dict, commands: Catalog) -> dict:
    """TMATMUL-SHARED-UNDEF: a TMATMUL (FP16) with a Local CUBE_M16 A (2)
    and a Shared B naming S77, which holds no descriptor: the undefined
    register reads as UndefinedSharedTileWord, legal for a TLSU read, but
    SharedTileCooperativeMatrixReady (asl/block/model/dispatch/
    shared-cube-matrix.asl) rejects it, Fault_TileLegality.  Twin: S77
    installed first (InstallSharedTile, mask 1111) from a 1 x 1 FP16
    RowMajor Matrix tile holding B, the descriptor shape TMATMUL-SHARED-001
    installs for its Shared B.  Expected: Fault_None, a new FP32 destination
    holding A * B (reference profile: raw-carrier product), the Shared binding
    consumed and S77 still installed."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    shared_id = next(s["index"] for s in steps if s["op"] == "expect_shared_tile")
    (left,) = [s for s in steps[:e1] if s["op"] == "configure_cube_tile"]
    (a,) = [int(s["value"], 16) for s in steps[:e1] if s["op"] == "write_tile_element"]
    holder = left["index"] + 1
    install = [{"op": "configure_tile", "index": holder, "mask": 1, "capacity": 128, "rows": 1, "columns": 1,
                "valid_rows": 1, "valid_columns": 1, "data_type": left["data_type"], "layout": "RowMajor",
                "location": "Matrix"},
               {"op": "write_tile_element", "index": holder, "row": 0, "column": 0, "value": hex64(UNDEF_B)},
               {"op": "install_shared_tile", "shared_id": shared_id, "index": holder, "mask": 0b1111}]
    first = next(i for i, s in enumerate(steps) if s["op"] == "exec")
    prefix = [dict(s) for s in steps[:first]] + install + [dict(s) for s in steps[first:e1]]
    post = [{"op": "expect_tile", "destination_ordinal": 0, "field": "data_type", "value": "TileDataType_FP32"},
            {"op": "expect_tile_element", "destination_ordinal": 0, "row": 0, "column": 0,
             "value": hex64(product([a], [UNDEF_B]))},
            {"op": "expect_shared_binding", "index": 0, "field": "consumed", "value": True},
            {"op": "expect_shared_tile", "index": shared_id, "field": "descriptor_valid", "value": True}]
    return bundle_twin_record(v, prefix, steps[e1], post, "CUBE matrix",
                              "SharedTileCooperativeMatrixReady: the Shared primary is installed",
                              f"S{shared_id} installed from a 1 x 1 {left['data_type']} RowMajor Matrix tile holding B")


MX_K = 32                                     # LB2: one MX scale block
MX_LEFT = [k + 1 for k in range(MX_K)]        # E4M3 carriers of the Local A (1 x K)
MX_RIGHT = [k % 4 + 1 for k in range(MX_K)]   # E5M2 carriers of the Shared B (K x 1)
MX_LEFT_SCALE, MX_RIGHT_SCALE = 3, 5          # E8M0 carriers of the two scales


def mx_shared_group_twin(v: dict, commands: Catalog) -> dict:
    """TMATMUL-MX-SHARED-GROUP: a TMATMULMX (E4M3 x E5M2 by B.DATR) whose
    only operand binding is one B.IOS (S60): E5M2 needs a scale
    (TileMXInputTypeNeedsScale), so the Shared right group is matrix and
    scale, and one Shared source is no complete group
    (TileMatrixSharedSourceCountLegal, BundleMatrixSharedSchemasLegal),
    Fault_TileLegality.  No single word makes it legal: the point binds no
    Local destination either.  Twin: the group completed the way the spec's
    own TMATMUL-MX-SHARED-RIGHT-001 completes the same BSTART, B.DATR and
    B.FPATR words: B.DIM LB2 = K = 32 before the B.IOS, the right scale as
    S61 after S60, and the terminal B.IOT with the Local A (1 x 32 E4M3
    CUBE_M16) and its E8M0 scale (1 x 1) and the destination; S60 installed
    from a 32 x 1 E5M2 RowMajor Matrix tile and S61 from a 1 x 1 E8M0 one.
    Expected (TMATMULMXSharedWithOptionalScales, MatrixMXProductResultFromTiles
    with both scales present; reference profile
    TileProfileMatrixScaledAccumulate: sum + (left * left_scale) *
    (right * right_scale) on raw carriers, one scale block for K = 32):
    Fault_None, a new 1 x 1 FP32 destination holding that sum, both Shared
    bindings consumed."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    (ios,) = [s for s in steps[:e1] if s.get("rewritten_from") == "BindBundleSharedIO"]
    ios_bits = int(ios["bits"], 16)
    ios_form = commands.form_of(ios_bits, 32)
    right_id = Catalog.field(ios_form, ios_bits, "SharedTID")
    scale_id = right_id + 1
    tiles = [{"op": "configure_cube_tile", "index": 0, "mask": 0b1111, "capacity": 512, "valid_rows": 1,
              "valid_columns": MX_K, "data_type": "E4M3", "layout": "CUBE_M16", "location": "Matrix",
              "expect_configured": True}]
    for index, capacity, rows, columns, data_type in ((1, 128, 1, 1, "E8M0"), (10, 512, MX_K, 1, "E5M2"),
                                                     (11, 128, 1, 1, "E8M0")):
        tiles.append({"op": "configure_tile", "index": index, "mask": 1, "capacity": capacity, "rows": rows,
                      "columns": columns, "valid_rows": rows, "valid_columns": columns, "data_type": data_type,
                      "layout": "RowMajor", "location": "Matrix"})
    writes = [(0, 0, k, MX_LEFT[k]) for k in range(MX_K)] + [(10, k, 0, MX_RIGHT[k]) for k in range(MX_K)]
    writes += [(1, 0, 0, MX_LEFT_SCALE), (11, 0, 0, MX_RIGHT_SCALE)]
    tiles += [{"op": "write_tile_element", "index": i, "row": r, "column": c, "value": hex64(x)} for i, r, c, x in writes]
    tiles += [{"op": "install_shared_tile", "shared_id": right_id, "index": 10, "mask": 0b1111},
              {"op": "install_shared_tile", "shared_id": scale_id, "index": 11, "mask": 0b1111}]
    b_dim = command_step(encode(commands, "B.DIM", "B.DIM RegSrc, uimm, ->LB2", uimm17=MX_K), "SetBundleDimension")
    pe_mode = Catalog.field(ios_form, ios_bits, "PEMode")
    scale_ios = command_step(with_field(ios_form, ios_bits, "SharedTID", scale_id), "BindBundleSharedIO")
    local = command_step(encode(commands, "B.IOT", "B.IOT SrcTile0, SrcTile1, mask=PE_MASK, <last>, ->DstTile<SizeCode>",
                                SrcTile0=0, SrcTile1=1, L=1, SizeCode=1, PEMode=pe_mode), "AddBundleTileBinding")
    i = steps.index(ios)
    prefix = [dict(steps[0])] + tiles + [dict(s) for s in steps[1:i]] + [b_dim, dict(ios), scale_ios, local]
    prefix += [dict(s) for s in steps[i + 1:e1]]
    total = 0
    for left, right in zip(MX_LEFT, MX_RIGHT):
        total = (total + (left * MX_LEFT_SCALE) * (right * MX_RIGHT_SCALE)) & MASK64
    post = [{"op": "expect_tile", "destination_ordinal": 0, "field": "data_type", "value": "TileDataType_FP32"},
            {"op": "expect_tile", "destination_ordinal": 0, "field": "valid_rows", "value": 1},
            {"op": "expect_tile", "destination_ordinal": 0, "field": "valid_columns", "value": 1},
            {"op": "expect_tile_element", "destination_ordinal": 0, "row": 0, "column": 0, "value": hex64(total)},
            {"op": "expect_shared_binding", "index": 0, "field": "consumed", "value": True},
            {"op": "expect_shared_binding", "index": 1, "field": "consumed", "value": True}]
    return bundle_twin_record(v, prefix, steps[e1], post, "CUBE matrix",
                              "TileMatrixSharedSourceCountLegal / BundleMatrixSharedSchemasLegal: whole Shared groups",
                              f"the right group completed (S{scale_id} scale), B.DIM LB2 = {MX_K}, a Local A, its "
                              "scale and the destination bound (TMATMUL-MX-SHARED-RIGHT-001's operands)")


def ios_vec_use_twin(v: dict, commands: Catalog) -> dict:
    """B.IOS-VEC-USE: a participating B.IOS source (S70, mask 1111) in a VEC
    (BSTART.TEPL, U64) block: no VEC operation consumes a Shared binding, so
    ExecuteBundleTileOperationLocally... raises Fault_TileLegality
    (BundleSharedBindingsUnconsumed, asl/block/model/dispatch/
    tile-execution.asl), before any Shared state changes.  Twin: the block
    started by BSTART.TSTORE with the same DataType, the Shared consumer
    dispatched before that rule (BundleSharedTLSUSelected), as
    TSTORE-UNDEF-001 runs it.  Expected: Fault_None; S70 has no descriptor,
    so TSTOREShared stores its 1 x 1 U64 element 0 as
    UndefinedSharedTileWord(70, 0) = 70 XOR 0 (asl/tile/model/state/
    shared-registers.asl) at base 0 (no B.IOR); the next word untouched;
    S70 still without a descriptor, the binding consumed."""
    steps = v["steps"]
    e1 = faulting_exec(steps)
    (ios,) = [s for s in steps[:e1] if s.get("rewritten_from") == "BindBundleSharedIO"]
    ios_bits = int(ios["bits"], 16)
    shared_id = Catalog.field(commands.form_of(ios_bits, 32), ios_bits, "SharedTID")
    prefix = [retargeted_start(commands, s, "BSTART.TSTORE")
              if s["op"] == "exec" and commands.form_of(int(s["bits"], 16), 32)["mnemonic"] == "BSTART.TEPL"
              else dict(s) for s in steps[:e1]]
    post = [{"op": "expect_mem", "addr": hex64(0), "size": 8, "value": hex64(shared_id ^ 0)},
            {"op": "expect_mem", "addr": hex64(8), "size": 8, "value": hex64(0)},
            {"op": "expect_shared_tile", "index": shared_id, "field": "descriptor_valid", "value": False},
            {"op": "expect_shared_binding", "index": 0, "field": "consumed", "value": True}]
    return bundle_twin_record(v, prefix, steps[e1], post, "Shared binding use",
                              "BundleSharedBindingsUnconsumed: a VEC block does not discard a Shared binding",
                              "BSTART.TEPL -> BSTART.TSTORE (same DataType, the same B.IOS)")


MATRIX_TWINS = {
    "PTO-AVS-BLOCK-TGEMV-CUBE-M-003": gemv_m_twin,
    "PTO-AVS-BLOCK-TMATMUL-MISSING-FPATR-001": missing_fpatr_twin,
    "PTO-AVS-BLOCK-TMATMUL-SHARED-UNDEF-020": shared_undef_twin,
    "PTO-AVS-BLOCK-TMATMUL-MX-SHARED-GROUP-001": mx_shared_group_twin,
    "PTO-AVS-BLOCK-B-IOS-VEC-USE-001": ios_vec_use_twin,
}


OPERAND_TWINS = {
    # ArchitectureAssert: a zero operand raises Fault_Assert; nonzero "performs
    # no effect other than successful retirement" (no trap entered).
    "PTO-AVS-SYS-ASSERT-ZERO-001": (5, 1, "ArchitectureAssert: IsZero(value) raises Fault_Assert", [
        {"op": "expect_fault", "fault": "Fault_None"},
        {"op": "expect_trap_context", "ring": 0, "field": "valid", "value": False},
        {"op": "expect_bookkeeping", "field": "architecture_request_epoch", "value": 7},
        {"op": "expect_gpr", "reg": 5, "value": hex64(1)}]),
    # ExecuteMaintenance, Maintenance_TLB_IA: operand[63:16] must be zero
    # (0x10000 -> 0); success advances the TLB epoch and records the
    # operation and its operand.
    "PTO-AVS-SYS-TLB-IA-OPERAND-001": (5, 0, "ExecuteMaintenance: TLB.IA operand[63:16] != 0 is illegal", [
        {"op": "expect_fault", "fault": "Fault_None"},
        {"op": "expect_bookkeeping", "field": "tlb_epoch", "value": 8},
        {"op": "expect_bookkeeping", "field": "last_maintenance_operation", "value": "Maintenance_TLB_IA"},
        {"op": "expect_bookkeeping", "field": "last_maintenance_operand", "value": hex64(0)},
        {"op": "expect_trap_context", "ring": 0, "field": "valid", "value": False}]),
}


def operand_twin(v: dict) -> dict:
    reg, legal, rule, post = OPERAND_TWINS[v["avs_id"]]
    steps = v["steps"]
    e1 = faulting_exec(steps)
    prefix = [dict(s) for s in steps[:e1]]
    prefix[last_set(prefix, reg)]["value"] = hex64(legal)
    exec_step = {k: val for k, val in steps[e1].items() if k != "expect_fault"}
    exec_step["expect_status"] = "ScalarExecution_Executed"
    return {"avs_id": v["avs_id"], "source": v["source"], "family": "SYS operand value", "rule": rule,
            "legalisation": f"x{reg} = {legal:#x}", "steps": prefix + [exec_step] + post}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--catalog", type=Path, default=CATALOG)
    ap.add_argument("--check", action="store_true", help="fail when the output file is stale")
    args = ap.parse_args(argv)
    catalog = Catalog(args.catalog)
    twins = []
    vectors = {v["avs_id"]: v for v in json.loads(SCALAR.read_text())}
    for v in vectors.values():
        if v["kind"] == "fault" and v["avs_id"].startswith("PTO-AVS-AGU-") and v["avs_id"].endswith("-FAULT-001"):
            t = agu_twin(v, catalog)
            if t is not None:
                twins.append(t)
        elif v["kind"] == "fault" and v["avs_id"].endswith("-READINESS-001") and v["avs_id"].startswith("PTO-AVS-SCALAR-"):
            twins.append(readiness_twin(v, catalog))
        elif v["kind"] == "fault" and v["avs_id"].startswith("PTO-AVS-FSU-") and v["avs_id"].endswith("-RSVD-001"):
            t = fsu_twin(v, catalog, vectors.get(v["avs_id"].replace("-RSVD-001", "-TYPE-001")))
            if t is not None:
                twins.append(t)
        elif v["kind"] == "fault" and is_ssr_point(v["avs_id"]):
            twins.append(ssr_twin(v, catalog))
        elif v["avs_id"] in FIELD_TWINS:
            twins.append(field_twin(v, catalog))
        elif v["avs_id"] == "PTO-AVS-SYS-ACRC-RING0-001":
            twins.append(acrc_ring0_twin(v))
        elif v["avs_id"] == "PTO-AVS-SCALAR-C-SETC-TGT-TARGET-001":
            twins.append(setc_target_twin(v))
        elif v["avs_id"] in SETC_TWINS:
            twins.append(setc_twin(v))
        elif v["avs_id"] in OPERAND_TWINS:
            twins.append(operand_twin(v))
    commands = Catalog(args.catalog.with_name("command-forms.json"))
    for v in json.loads(BLOCK.read_text()):
        if v["avs_id"] in BLOCK_TWINS:
            twins.append(block_twin(v, commands))
    bundle_twins = [lb0_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                    if v["kind"] == "fault" and re.fullmatch(r"PTO-AVS-TILE-T[A-Z]+-(MISSING-)?LB0-001", v["avs_id"])]
    bundle_twins += [capacity_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["kind"] == "fault" and re.fullmatch(r"PTO-AVS-TILE-T(ABS|NEG|NOT|RELU)-CAPACITY-001", v["avs_id"])]
    bundle_twins += [dimi_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] in ("PTO-AVS-BLOCK-C-B-DIMI-DUP-001", "PTO-AVS-BLOCK-C-B-DIMI-PLACE-001")]
    bundle_twins += [schema_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["kind"] == "fault"
                     and re.fullmatch(r"PTO-AVS-TILE-T(MAX|MIN|ABS|NEG|NOT|RELU)-SCHEMA-001", v["avs_id"])]
    bundle_twins += [generation_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] in ("PTO-AVS-TILE-TCI-DIRECTION-001", "PTO-AVS-TILE-TTRI-ORIENT-001")]
    bundle_twins += [tquant_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-TILE-TQUANT-ZERO-SCALE-001"]
    bundle_twins += [indexed_memory_twin(v) for v in json.loads(BUNDLE.read_text()) if v["avs_id"] in INDEXED_TWINS]
    bundle_twins += [cas_twin(v) for v in json.loads(BUNDLE.read_text()) if v["avs_id"] == "PTO-AVS-BLOCK-MGATHER-CAS-FAULT-001"]
    bundle_twins += [gather_schema_twin(v) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] in ("PTO-AVS-BLOCK-MGATHER-MASK-SCHEMA-001", "PTO-AVS-BLOCK-MGATHER-CAS-SCHEMA-001")]
    bundle_twins += [gather_predicate_twin(v) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-BLOCK-MGATHER-MASK-PRED-001"]
    bundle_twins += [tload_preflight_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-BLOCK-TLOAD-PREFLIGHT-001"]
    bundle_twins += [recovered_run_twin(v) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-BLOCK-TPREFETCH-FAULT-001"]
    bundle_twins += [tcmp_capacity_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-TILE-TCMP-CAPACITY-001"]
    bundle_twins += [gmov_readiness_twin(v) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-BLOCK-GMOV-READINESS-001"]
    bundle_twins += [cube_tload_size_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-BLOCK-TLOAD-CUBE-TSIZE-006"]
    bundle_twins += [tfma_capacity_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-TILE-TFMA-CAPACITY-001"]
    bundle_twins += [tstore_shape_twin(v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-BLOCK-TSTORE-SHAPE-001"]
    bundle_twins += [own_retry_twin(v) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] == "PTO-AVS-BLOCK-SHARED-TSTORE-MASK-LEGALITY-001"]
    bundle_twins += [MATRIX_TWINS[v["avs_id"]](v, commands) for v in json.loads(BUNDLE.read_text())
                     if v["avs_id"] in MATRIX_TWINS]
    # a bundle vector whose twin asserts BARG: run by the block step runner
    twins += [tepl_twin(v, commands) for v in json.loads(BUNDLE.read_text())
              if v["avs_id"] == "PTO-AVS-BLOCK-BSTART-TEPL-RESERVED-001"]
    outputs = {OUT: twins, BUNDLE_OUT: bundle_twins}
    if args.check:
        stale = [p for p, t in outputs.items() if not p.exists() or p.read_text() != json.dumps(t, indent=1) + "\n"]
        for p in stale:
            print(f"{p.relative_to(ROOT)} is stale: run tools/make_fault_twins.py", file=sys.stderr)
        return 1 if stale else 0
    for p, t in outputs.items():
        p.write_text(json.dumps(t, indent=1) + "\n")
        print(f"{len(t)} twins -> {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
