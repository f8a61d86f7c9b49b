#!/usr/bin/env python3
"""Extract the spec's decode-positive AVS test points into a JSON data file.

Input
  * the read-only PTO ISA spec checkout (``--spec``, default /work/spec):
    every ``tests/asl/**/*.asl`` whose ``// PTO-TEST:`` header has
    ``"kind":"decode-positive"``;
  * the published catalogs (``--catalog-dir``): scalar-forms.json and
    command-forms.json.

Output (``--out``, default tests/data/spec_decode_positive.json): a JSON array,
one object per test point, sorted by ``source``::

  {
    "avs_id":      "PTO-AVS-...",            # header "id"
    "source":      "tests/asl/.../x.asl",    # test file, relative to the spec root
    "spec_source": "asl/.../X.asl",          # header "source" (owning ASL unit)
    "contract": {                            # optional: InstructionContract*_<MN>()
      "mnemonic": "...",                     # assertions of the point's unit
      "operation": "...",                    # ..Operation_<MN>() == *Operation_<x>
      "handler": "...",                      # ..Handler_<MN>() == *Handler_<x>
      "agu": {"action": "Store", ...},       # ..AGU<Fact>_<MN>() (catalog `agu` keys)
      "tile_operation": "TGEMV",             # ..TileOperation_<MN>() == TileOperation_<x>
      "cube_function": 16,                   # ..CubeFunction_<MN>()
      "shared_operands_allowed": false,      # ..SharedOperandsAllowed_<MN>()
      "alias_engine": "SFU"                  # ..AliasEngine_<MN>() == TileEngine_<x>
    },
    "assertions": [
      {
        "surface":             "scalar" | "command",
        "bits":                "0x...",      # instruction bits, lowest word first
                                             # (bit 0 = first bit fetched)
        "length_bits":         16|32|48|64,  # length argument passed by the test
        "expected_form_index": N | null,     # index the test expects from
                                             # DecodeScalarForm/DecodeCommandForm
        "expected_form_id":    "..." | null,
        "expected_mnemonic":   "...",
        "contract_mnemonic":   "...",        # optional, command surface only: the
                                             # mnemonic whose InstructionContract
                                             # the test says the form matches
                                             # (differs for engine aliases such as
                                             # BSTART.SFU / BSTART.VEC)
        "expect_executed":     true,         # optional: the test executes the
                                             # bits and requires success/no fault
        "fields":              {"Name": raw_unsigned_value, ...},  # optional, only
                                             # when the test asserts field values
        "expected_handler":    "...",        # optional: ScalarHandlerOfForm /
                                             # CommandHandlerOfForm(<index>) ==
                                             # *Handler_<name>
        "resolution":          "..."         # optional: how an indirectly named
                                             # expectation was resolved, one of
          # "form-id-from-catalog-position": the test states the form index and
          #     the mnemonic; form_id = catalog forms[index] (see below);
          # "form-id-from-index-stated-elsewhere": the test states only the form
          #     index; form_id taken from the index->form_id pair that the
          #     canonical decode tests state (== catalog position);
          # "mnemonic-from-header-source": the test names no form; the mnemonic
          #     is the stem of the header "source" unit (execution loop case).
      }, ...
    ]
  }

How the tests express a decode expectation (facts observed in the spec):
  * ``assert DecodeScalarForm(<48-bit literal>, <len>) == <index>;`` and
    ``assert DecodeCommandForm(<64-bit literal or Zeros{64} + 0xHEX>, <len>) ==
    <index>;``.  The bit literal is the instruction, bit 0 being the
    rightmost character; ``<len>`` is the instruction length in bits.
  * The generated decoder (scripts/generate-asl-decoders) numbers forms by
    their position in the catalog ``forms`` array (it enumerates the projected
    catalog, which is byte-identical to the published catalog JSON), and
    ``Decode*Form`` returns that position.  So ``expected_form_index`` is the
    catalog array position.
  * Scalar tests name the mnemonic with
    ``ScalarOperationOfForm(<index>) == ScalarOperation_<ID>`` where ``<ID>`` is
    the mnemonic with every run of non-alphanumerics replaced by ``_``; we map
    ``<ID>`` back to the unique catalog mnemonic.  Scalar tests never spell the
    form_id: it is resolved from the catalog position ``<index>`` (documented
    in ``resolution``) and cross-checked against the stated mnemonic.
  * Command tests name the form directly:
    ``CommandOperationOfForm(<index>) == CommandOperation_<form_id>``; the
    expected mnemonic is that form's catalog mnemonic.  When a test names only
    the index (e.g. the TMOV/TSTORE carrier tests), the form_id is resolved
    from the index->form_id pairs stated by other tests (and cross-checked
    with the catalog position).
  * ``DecodeScalarOperandRaw(<bits>, <index>, ScalarField_<Name>) == <48-bit>``
    asserts the raw (unsigned, zero-extended) value of a catalog field.
  * One decode-positive test (B.FPATR transpose) expresses decodability by a
    loop that executes ``Zeros{64} + BASE`` with a bit-slice set to the loop
    counter via ExecuteCommandInstruction and requires CommandExecution_Executed
    and Fault_None.  It names no form index/form_id; it is expanded into one
    assertion per loop iteration with ``expected_form_id: null``,
    ``expected_mnemonic`` taken from the header ``source`` unit, and
    ``expect_executed: true``.
  * Tests that contain no instruction bits at all are reported as not
    translated.

Handler and contract assertions become facts the decode test checks against
the model's form table and generated AGU table: ``*HandlerOfForm(<index>)``
(the decoded form's handler), ``InstructionContractHandler_<MN>()``,
``InstructionContractOperation_<MN>()``, ``InstructionContractAGU*_<MN>()``
and the BSTART tile-start facts ``InstructionContract{TileOperation,
CubeFunction,SharedOperandsAllowed,AliasEngine}_<MN>()`` (the started tile
operation, its CUBE function, whether its Matrix path admits Shared operands,
the engine an assembly alias admits).  Other contract metadata (Shared mask
rules) and non-decode helpers are ignored (counted).

Cross-check: every extracted assertion is re-decoded by an independent
priority decoder over the catalogs (same length; ordering = total mask
popcount descending, then form_id; a form matches when every encoding word
(word i = bits >> 32*i, width_bits wide) satisfies (word & mask) == match, or
any ``encoding_variants`` alternative does).  Field values are recomputed
from the catalog pieces.  Mismatches are printed and make the exit status 1.
Catalog form constraints are also evaluated and reported (informational).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HEADER_RE = re.compile(r"^//\s*PTO-TEST:\s*(\{.*\})\s*$", re.MULTILINE)


def asl_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


# --------------------------------------------------------------------------
# Catalog handling and the independent decoder
# --------------------------------------------------------------------------


class Catalog:
    def __init__(self, path: Path):
        data = json.loads(path.read_text())
        self.forms: list[dict] = data["forms"]
        self.by_id = {f["form_id"]: f for f in self.forms}
        self.index_of = {f["form_id"]: i for i, f in enumerate(self.forms)}
        self.mnemonic_by_asl_id: dict[str, set[str]] = {}
        for f in self.forms:
            self.mnemonic_by_asl_id.setdefault(asl_id(f["mnemonic"]), set()).add(
                f["mnemonic"]
            )

        def popcount(form: dict) -> int:
            return sum(int(p["mask"], 16).bit_count() for p in form["encoding"])

        self.order = sorted(self.forms, key=lambda f: (-popcount(f), f["form_id"]))

    @staticmethod
    def _matches(encoding: list[dict], bits: int) -> bool:
        for part in encoding:
            word = (bits >> (32 * part["index"])) & ((1 << part["width_bits"]) - 1)
            if word & int(part["mask"], 16) != int(part["match"], 16):
                return False
        return True

    def decode(self, bits: int, length: int) -> dict | None:
        for form in self.order:
            if form["length_bits"] != length:
                continue
            alternatives = [form["encoding"]] + [
                v["encoding"] for v in form.get("encoding_variants", [])
            ]
            if any(self._matches(enc, bits) for enc in alternatives):
                return form
        return None

    @staticmethod
    def field_value(form: dict, name: str, bits: int) -> int | None:
        for field in form["fields"]:
            if field["name"] == name:
                value = 0
                for piece in field["pieces"]:
                    raw = (bits >> piece["instruction_lsb"]) & ((1 << piece["width"]) - 1)
                    value |= raw << piece["value_lsb"]
                return value
        return None

    def constraint_violations(self, form: dict, bits: int) -> list[str]:
        out = []
        for c in form.get("constraints", []):
            value = self.field_value(form, c["field"], bits)
            if c["operator"] == "not-equal" and value == c["value"]:
                out.append(f"{c['field']}={value} (must not equal {c['value']})")
            elif c["operator"] == "one-of" and value not in c["values"]:
                out.append(f"{c['field']}={value} (must be one of {c['values']})")
        return out


# --------------------------------------------------------------------------
# Test parsing helpers
# --------------------------------------------------------------------------


def body_statements(text: str) -> list[str]:
    """Split the test text (comments removed) into ';'-terminated statements,
    with whitespace collapsed."""
    lines = [re.sub(r"//.*$", "", line) for line in text.splitlines()]
    joined = " ".join(lines)
    out = []
    for stmt in joined.split(";"):
        stmt = re.sub(r"\s+", " ", stmt).strip()
        # The first statement of a function body carries its signature.
        stmt = re.sub(r"^(?:pure |readonly )?func .*?\bbegin\s*", "", stmt)
        if stmt:
            out.append(stmt)
    return out


BITS_EXPR = r"(?:'[01]+'|Zeros\{\d+\}\s*\+\s*0x[0-9a-fA-F_]+)"


def eval_bits(expr: str) -> tuple[int, int]:
    """Return (value, declared width) of a bits expression used by the tests."""
    expr = expr.strip()
    if expr.startswith("'"):
        lit = expr.strip("'")
        return int(lit, 2), len(lit)
    m = re.fullmatch(r"Zeros\{(\d+)\}\s*\+\s*0x([0-9a-fA-F_]+)", expr)
    if m:
        width = int(m.group(1))
        value = int(m.group(2).replace("_", ""), 16)
        if value >= 1 << width:
            raise ValueError(f"literal does not fit bits({width})")
        return value, width
    raise ValueError(f"unsupported bits expression: {expr}")


def hex_bits(value: int, length: int) -> str:
    digits = max((length + 3) // 4, (value.bit_length() + 3) // 4, 1)
    return "0x" + format(value, f"0{digits}x")


RE_DECODE = re.compile(
    rf"^assert Decode(Scalar|Command)Form\(\s*({BITS_EXPR})\s*,\s*(\d+)\s*\)\s*==\s*(\d+)$"
)
RE_SCALAR_OP = re.compile(r"^assert ScalarOperationOfForm\((\d+)\)\s*==\s*ScalarOperation_(\w+)$")
RE_COMMAND_OP = re.compile(
    r"^assert CommandOperationOfForm\((\d+)\)\s*==\s*CommandOperation_(\w+)$"
)
RE_CONTRACT_MATCH = re.compile(
    r"^assert InstructionContractMatches_(\w+)\(\s*CommandOperationOfForm\((\d+)\)\s*\)$"
)
RE_HANDLER_OF_FORM = re.compile(r"^assert (?:Scalar|Command)HandlerOfForm\((\d+)\)\s*==\s*(?:Scalar|Command)Handler_(\w+)$")
RE_CONTRACT_FACT = re.compile(
    r"^assert InstructionContract(Operation|Handler|AGU\w+?|TileOperation|CubeFunction|SharedOperandsAllowed|AliasEngine)"
    r"_(\w+)\(\)\s*==\s*(\w+)$")
# The BSTART tile-start facts: the contract key and the enumeration prefix of
# the value (TileOperation_TGEMV, TileEngine_SFU; numbers and booleans bare).
TILE_START_FACTS = {"TileOperation": ("tile_operation", "TileOperation_"), "CubeFunction": ("cube_function", None),
                    "SharedOperandsAllowed": ("shared_operands_allowed", None),
                    "AliasEngine": ("alias_engine", "TileEngine_")}
# InstructionContractAGU<Fact> -> the catalog `agu` key and the enumeration
# prefix its value carries.
AGU_FACTS = {"AGUAction": ("action", "ScalarAGU_"), "AGUAddressKind": ("address_kind", "ScalarAGU_"),
             "AGUSizeBytes": ("size_bytes", None), "AGUOffsetScale": ("offset_scale", None),
             "AGUUpdateMode": ("update_mode", "AddressUpdate_"), "AGUSignedLoad": ("signed_load", None),
             "AGUPrefetchReturnsAddress": ("prefetch_returns_address", None)}


def contract_value(text: str, prefix: str | None):
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if text.isdigit():
        return int(text)
    if prefix and text.startswith(prefix):
        return text[len(prefix):]
    raise ValueError(f"contract value {text}")


RE_OPERAND_RAW = re.compile(
    rf"^assert DecodeScalarOperandRaw\(\s*({BITS_EXPR})\s*,\s*(\d+)\s*,\s*ScalarField_(\w+)\s*\)"
    rf"\s*==\s*('[01]+')$"
)

# B.FPATR-style loop: executes a base encoding with a slice set to the counter.
RE_EXEC_LOOP = re.compile(
    r"for (\w+) = (\d+) to (\d+) do .*?"
    r"var (\w+): bits\(64\) = Zeros\{64\} \+ 0x([0-9a-fA-F]+); "
    r"\4\[(\d+):(\d+)\] = Zeros\{(\d+)\} \+ \1; "
    r"let (\w+) = ExecuteCommandInstruction\(\4, (\d+)\); "
    r"assert \9 == CommandExecution_Executed; "
    r"assert _LastFault == Fault_None; ",
    re.DOTALL,
)


KEY_ORDER = (
    "surface",
    "bits",
    "length_bits",
    "expected_form_index",
    "expected_form_id",
    "expected_mnemonic",
    "contract_mnemonic",
    "expect_executed",
    "fields",
    "expected_handler",
    "resolution",
)


def ordered(entry: dict) -> dict:
    assert set(entry) <= set(KEY_ORDER), entry
    return {k: entry[k] for k in KEY_ORDER if k in entry}


class Extractor:
    def __init__(self, spec: Path, catalogs: dict[str, Catalog]):
        self.spec = spec
        self.catalogs = catalogs
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.ignored_statements = 0
        self.ignored_kinds: dict[str, int] = {}
        self.command_index_pairs: dict[int, set[str]] = {}

    # First pass over the canonical tests: collect index->form_id pairs that
    # the tests themselves state (used to resolve index-only command tests).
    def collect_index_pairs(self, texts: list[str]) -> None:
        for text in texts:
            for stmt in body_statements(text):
                m = RE_COMMAND_OP.match(stmt)
                if m:
                    self.command_index_pairs.setdefault(int(m.group(1)), set()).add(
                        m.group(2)
                    )

    def resolve_scalar_mnemonic(self, ident: str, where: str) -> str | None:
        names = self.catalogs["scalar"].mnemonic_by_asl_id.get(ident)
        if not names or len(names) != 1:
            self.problems.append(f"{where}: cannot resolve ScalarOperation_{ident}")
            return None
        return next(iter(names))

    def extract(self, rel: str, header: dict, text: str) -> tuple[dict | None, str | None]:
        stmts = body_statements(text)
        assertions: list[dict] = []
        scalar_ops: dict[int, str] = {}
        command_ops: dict[int, str] = {}
        contracts: dict[int, str] = {}
        fields: dict[tuple[int, int], dict[str, int]] = {}
        handlers: dict[int, str] = {}
        contract_facts: dict = {}
        omitted: dict[str, int] = {}  # assertions this point makes that no test checks, by helper
        recognized_decode = False

        for stmt in stmts:
            m = RE_DECODE.match(stmt)
            if m:
                surface = "scalar" if m.group(1) == "Scalar" else "command"
                value, _width = eval_bits(m.group(2))
                assertions.append(
                    {
                        "surface": surface,
                        "bits_value": value,
                        "length_bits": int(m.group(3)),
                        "expected_form_index": int(m.group(4)),
                    }
                )
                recognized_decode = True
                continue
            m = RE_SCALAR_OP.match(stmt)
            if m:
                scalar_ops[int(m.group(1))] = m.group(2)
                continue
            m = RE_COMMAND_OP.match(stmt)
            if m:
                command_ops[int(m.group(1))] = m.group(2)
                continue
            m = RE_CONTRACT_MATCH.match(stmt)
            if m:
                contracts[int(m.group(2))] = m.group(1)
                continue
            m = RE_HANDLER_OF_FORM.match(stmt)
            if m:
                handlers[int(m.group(1))] = m.group(2)
                continue
            m = RE_CONTRACT_FACT.match(stmt)
            if m and (m.group(1) in ("Operation", "Handler") or m.group(1) in AGU_FACTS
                      or m.group(1) in TILE_START_FACTS):
                fact, ident, value = m.groups()
                if contract_facts.setdefault("asl_id", ident) != ident:
                    self.problems.append(f"{rel}: contract facts of two operations")
                if fact == "Operation":
                    contract_facts["operation"] = re.sub(r"^(?:Scalar|Command)Operation_", "", value)
                elif fact == "Handler":
                    contract_facts["handler"] = re.sub(r"^(?:Scalar|Command)Handler_", "", value)
                elif fact in TILE_START_FACTS:
                    key, prefix = TILE_START_FACTS[fact]
                    contract_facts[key] = contract_value(value, prefix)
                else:
                    key, prefix = AGU_FACTS[fact]
                    contract_facts.setdefault("agu", {})[key] = contract_value(value, prefix)
                continue
            m = RE_OPERAND_RAW.match(stmt)
            if m:
                value, _ = eval_bits(m.group(1))
                raw, _ = eval_bits(m.group(4))
                fields.setdefault((value, int(m.group(2))), {})[m.group(3)] = raw
                continue
            if stmt.startswith("assert "):
                self.ignored_statements += 1
                name = re.match(r"assert !?\(?(\w+)", stmt)
                key = re.sub(r"_[A-Z0-9_]+$", "_*", name.group(1)) if name else stmt
                self.ignored_kinds[key] = self.ignored_kinds.get(key, 0) + 1
                omitted[key] = omitted.get(key, 0) + 1

        if not recognized_decode:
            joined = "; ".join(stmts) + "; "
            m = RE_EXEC_LOOP.search(joined)
            if m:
                return self.extract_exec_loop(rel, header, m), None
            return None, "no instruction bits in the test (asserts layout/attribute helpers only)"

        unit_mnemonic = Path(header["source"]).stem
        out_assertions = []
        for a in assertions:
            index = a["expected_form_index"]
            entry = {
                "surface": a["surface"],
                "bits": hex_bits(a["bits_value"], a["length_bits"]),
                "length_bits": a["length_bits"],
                "expected_form_index": index,
            }
            catalog = self.catalogs[a["surface"]]
            where = f"{rel} [{entry['bits']}/{a['length_bits']}]"
            if not 0 <= index < len(catalog.forms):
                self.problems.append(f"{where}: form index {index} outside catalog")
                return None, f"form index {index} outside catalog"
            if a["surface"] == "scalar":
                ident = scalar_ops.get(index)
                if ident is None:
                    self.problems.append(f"{where}: no ScalarOperationOfForm({index}) stated")
                    return None, "scalar mnemonic not stated"
                mnemonic = self.resolve_scalar_mnemonic(ident, where)
                if mnemonic is None:
                    return None, "unresolvable scalar mnemonic"
                form = catalog.forms[index]
                if form["mnemonic"] != mnemonic:
                    self.problems.append(
                        f"{where}: catalog position {index} is {form['mnemonic']} "
                        f"but test states {mnemonic}"
                    )
                entry["expected_form_id"] = form["form_id"]
                entry["expected_mnemonic"] = mnemonic
                entry["resolution"] = "form-id-from-catalog-position"
            else:
                form_id = command_ops.get(index)
                if form_id is None:
                    stated = self.command_index_pairs.get(index, set())
                    if len(stated) != 1:
                        self.problems.append(f"{where}: cannot resolve command form {index}")
                        return None, "command form index not resolvable"
                    form_id = next(iter(stated))
                    entry["resolution"] = "form-id-from-index-stated-elsewhere"
                if form_id not in catalog.by_id:
                    self.problems.append(f"{where}: unknown command form_id {form_id}")
                    return None, "unknown form_id"
                if catalog.index_of[form_id] != index:
                    self.problems.append(
                        f"{where}: form {form_id} is at catalog position "
                        f"{catalog.index_of[form_id]}, test says {index}"
                    )
                entry["expected_form_id"] = form_id
                entry["expected_mnemonic"] = catalog.by_id[form_id]["mnemonic"]
                contract = contracts.get(index)
                if contract is not None:
                    if asl_id(unit_mnemonic) == contract:
                        contract_mnemonic = unit_mnemonic
                    else:
                        names = catalog.mnemonic_by_asl_id.get(contract, set())
                        contract_mnemonic = next(iter(names)) if len(names) == 1 else None
                    if contract_mnemonic is None:
                        self.problems.append(f"{where}: cannot resolve contract {contract}")
                    else:
                        entry["contract_mnemonic"] = contract_mnemonic
            if index in handlers:
                entry["expected_handler"] = handlers[index]
            stated_fields = fields.pop((a["bits_value"], index), None)
            if stated_fields:
                form = catalog.by_id[entry["expected_form_id"]]
                named = {}
                for ident, value in stated_fields.items():
                    names = [f["name"] for f in form["fields"] if asl_id(f["name"]) == ident]
                    if len(names) != 1:
                        self.problems.append(f"{where}: field {ident} not in {form['form_id']}")
                        names = [ident]
                    named[names[0]] = value
                entry["fields"] = dict(sorted(named.items()))
            out_assertions.append(ordered(entry))
        for (value, index), _ in fields.items():
            self.problems.append(
                f"{rel}: field assertions for {hex(value)} form {index} without a "
                "matching Decode*Form assertion"
            )
        # tools/spec_coverage.py counts the point as full when every assertion
        # it makes is checked, else as partial with these omitted checks.
        point = {"avs_id": header["id"], "source": rel, "spec_source": header["source"], "complete": not omitted}
        if omitted:
            point["omitted_checks"] = dict(sorted(omitted.items()))
        if contract_facts:
            point["contract"] = self.contract_of(rel, contract_facts, out_assertions, unit_mnemonic)
        point["assertions"] = out_assertions
        return point, None

    def contract_of(self, rel: str, facts: dict, assertions: list[dict], unit_mnemonic: str) -> dict:
        """The point's InstructionContract*_<ID> facts under the mnemonic <ID>
        names: one of its decoded forms', or its unit's (an engine alias such
        as BSTART.SFU, whose forms decode as another mnemonic)."""
        ident = facts.pop("asl_id")
        names = {a["expected_mnemonic"] for a in assertions if asl_id(a["expected_mnemonic"]) == ident}
        if not names and asl_id(unit_mnemonic) == ident:
            names = {unit_mnemonic}
        if len(names) != 1:
            self.problems.append(f"{rel}: contract {ident} names none of the decoded mnemonics")
            return facts
        return {"mnemonic": next(iter(names)), **facts}

    def extract_exec_loop(self, rel: str, header: dict, m: re.Match) -> dict:
        lo, hi = int(m.group(2)), int(m.group(3))
        base = int(m.group(5), 16)
        msb, lsb = int(m.group(6)), int(m.group(7))
        width = int(m.group(8))
        length = int(m.group(10))
        if msb - lsb + 1 != width:
            self.problems.append(f"{rel}: slice width mismatch in loop")
        mnemonic = Path(header["source"]).stem
        out = []
        for counter in range(lo, hi + 1):  # ASL "for i = lo to hi" is inclusive
            mask = ((1 << width) - 1) << lsb
            value = (base & ~mask) | ((counter & ((1 << width) - 1)) << lsb)
            out.append(
                {
                    "surface": "command",
                    "bits": hex_bits(value, length),
                    "length_bits": length,
                    "expected_form_index": None,
                    "expected_form_id": None,
                    "expected_mnemonic": mnemonic,
                    "expect_executed": True,
                    "resolution": "mnemonic-from-header-source",
                }
            )
            out[-1] = ordered(out[-1])
        self.notes.append(f"{rel}: expanded execution loop into {len(out)} assertions")
        return {
            "avs_id": header["id"],
            "source": rel,
            "spec_source": header["source"],
            "assertions": out,
        }

    # ------------------------------------------------------------------
    def cross_check(self, point: dict) -> int:
        mismatches = 0
        for a in point["assertions"]:
            catalog = self.catalogs[a["surface"]]
            bits = int(a["bits"], 16)
            where = f"{point['source']} [{a['bits']}/{a['length_bits']}]"
            form = catalog.decode(bits, a["length_bits"])
            if form is None:
                self.problems.append(f"{where}: independent decoder found no form")
                mismatches += 1
                continue
            if a["expected_form_id"] is not None and form["form_id"] != a["expected_form_id"]:
                self.problems.append(
                    f"{where}: independent decoder -> {form['form_id']}, "
                    f"test expects {a['expected_form_id']}"
                )
                mismatches += 1
            if form["mnemonic"] != a["expected_mnemonic"]:
                self.problems.append(
                    f"{where}: independent decoder -> mnemonic {form['mnemonic']}, "
                    f"test expects {a['expected_mnemonic']}"
                )
                mismatches += 1
            for name, value in a.get("fields", {}).items():
                computed = catalog.field_value(form, name, bits)
                if computed != value:
                    self.problems.append(
                        f"{where}: field {name} = {computed} by catalog, test says {value}"
                    )
                    mismatches += 1
            violations = catalog.constraint_violations(form, bits)
            if violations:
                self.notes.append(
                    f"{where}: bits violate {form['form_id']} constraints: {violations}"
                )
        return mismatches


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", type=Path, default=Path("/work/spec"))
    parser.add_argument(
        "--catalog-dir",
        type=Path,
        default=None,
        help="default: /work/shared/pto-spec-0.58.3/catalog, else <spec>/spec/catalog",
    )
    parser.add_argument(
        "--out", type=Path, default=root / "tests/data/spec_decode_positive.json"
    )
    args = parser.parse_args(argv)

    if args.catalog_dir is None:
        shared = Path("/work/shared/pto-spec-0.58.3/catalog")
        args.catalog_dir = shared if shared.is_dir() else args.spec / "spec/catalog"
    catalogs = {
        "scalar": Catalog(args.catalog_dir / "scalar-forms.json"),
        "command": Catalog(args.catalog_dir / "command-forms.json"),
    }
    extractor = Extractor(args.spec, catalogs)

    tests = []
    all_texts = []
    for path in sorted((args.spec / "tests/asl").rglob("*.asl")):
        text = path.read_text()
        all_texts.append(text)
        headers = HEADER_RE.findall(text)
        if len(headers) != 1:
            continue
        header = json.loads(headers[0])
        if header.get("kind") != "decode-positive":
            continue
        tests.append((path.relative_to(args.spec).as_posix(), header, text))
    extractor.collect_index_pairs(all_texts)

    points = []
    skipped = []
    for rel, header, text in tests:
        point, reason = extractor.extract(rel, header, text)
        if point is None:
            skipped.append((rel, header["id"], reason))
        else:
            points.append(point)

    mismatches = sum(extractor.cross_check(p) for p in points)
    points.sort(key=lambda p: p["source"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as fh:
        fh.write("[\n")
        for i, p in enumerate(points):
            fh.write(json.dumps(p, separators=(",", ":")))
            fh.write(",\n" if i + 1 < len(points) else "\n")
        fh.write("]\n")

    n_assert = sum(len(p["assertions"]) for p in points)
    n_fields = sum(len(a.get("fields", {})) for p in points for a in p["assertions"])
    by_surface: dict[str, int] = {}
    for p in points:
        for a in p["assertions"]:
            by_surface[a["surface"]] = by_surface.get(a["surface"], 0) + 1
    print(f"decode-positive test points found : {len(tests)}")
    print(f"test points translated           : {len(points)}")
    print(f"assertions                       : {n_assert} {by_surface}")
    print(f"field-value checks               : {n_fields}")
    print(f"non-decode assertions ignored    : {extractor.ignored_statements}")
    print(
        "  by kind: "
        + ", ".join(f"{k}={v}" for k, v in sorted(extractor.ignored_kinds.items()))
    )
    print(f"cross-check mismatches           : {mismatches}")
    for rel, avs, reason in skipped:
        print(f"NOT TRANSLATED {avs} ({rel}): {reason}")
    for note in extractor.notes:
        print(f"note: {note}")
    for problem in extractor.problems:
        print(f"PROBLEM: {problem}")
    print(f"wrote {args.out}")
    return 1 if extractor.problems else 0


if __name__ == "__main__":
    sys.exit(main())
