#!/usr/bin/env python3
"""Extract tile-bundle and tile-state test points from the PTO spec's ASL AVS
tests into execution vectors run by tests/unit/bundle_spec_vectors_test.cpp.

Same method as tools/extract_block_vectors.py (whose executor this script
extends; read tools/extract_exec_vectors.py for the base step vocabulary).
Directories: ``tests/asl/block/{attributes,operands,model}``, the tile
bundles of ``tests/asl/block/execution`` and
``tests/asl/tile/model/{state,definedness,shape,legality,memory,execution}`` and
``tests/asl/tile/{elementwise-tile-tile,tile-scalar-and-immediate,reduce-and-expand,layout-and-rearrangement,irregular-and-complex}``.
Output: ``tests/data/spec_bundle_exec.json``.

Test-only helpers become encoded instructions executed at the current TPC
(each such step carries ``"rewritten_from"``):

    EnterBundleBody()             ADDI zero, 0, ->zero (0x00000015): the first
                                  non-header instruction enters the body
                                  (docs/semantics-notes.md, block body entry)
    SetBundleDimension(n, v)      B.DIM zero, v, ->LBn
    AddBundleTileBinding(...)     the B.IOT form with the same operands
                                  (PEMode from the mask, ADR 0096)
    ExecuteBundleTileOperation()  BSTOP (its result is the status of BSTOP)
    ExecuteDecodedBundleCommand(bits, form, n)   the command word itself
    InstructionContractExecute_<OP>(d, s0[, s1]) / ExecuteTileBinary(op, d, l, r) /
    ExecuteTileUnary(op, d, s)    the semantic handler on configured tiles, when
                                  one bundle expresses it exactly: BSTART.TEPL
                                  <OP>, <type>; B.DIM LB0=ValidCol, LB1=ValidRow,
                                  LB2=Col; B.IOT s0[, s1], mask, last, ->hand 0
                                  <SizeCode of d's capacity>; BSTOP (Executed).
                                  Required (so that the bundle allocates d's
                                  descriptor): d is not a source, d was configured
                                  here (RowMajor, a Local SizeCode capacity, the
                                  sources' PEMode mask) and not written since; B.DATR
                                  state set up before (SetBundleDataAttributeState)
                                  moves into the bundle if the operation accepts
                                  it; reads of d afterwards read binding 0's
                                  renamed destination (a later bundle makes them
                                  untranslatable).  Handlers: SINGLE_BINDING_HANDLERS
    SetBundleDataAttributeState(...); _BundleDataAttributesPresent = TRUE
                                  the B.DATR word with the same fields (the
                                  pair only: the helper alone leaves B.DATR
                                  absent)
    SetBundleFixedPointAttributeState(...)        the B.FPATR word with the same
                                  fields (only when BundleFPATRFieldsLegal holds:
                                  the model's B.FPATR latches fields unchecked)

Additional step vocabulary (model state set-up through the tile state API,
observations of tile and pending-bundle state):

    {"op":"configure_tile","index":i,"mask":m,"capacity":n,"rows":n,"columns":n,
     "valid_rows":n,"valid_columns":n,"data_type":"U64","layout":"RowMajor",
     "location":"Any"}                     ConfigureTileForMask(...) / ConfigureTile
                                           (= mask 0001)
    {"op":"configure_cube_tile","index":i,"mask":m,"capacity":n,"valid_rows":n,
     "valid_columns":n,"data_type":"FP16","layout":"CUBE_M16","location":"Matrix",
     "expect_configured":b}              ConfigureCubeTileForMask(...) /
                                           ConfigureCubeTile (= mask 0001); its
                                           boolean result when asserted
    BindBundleSharedIO(s, size, mask)   the B.IOS word with the same operands
                                  (PEMode from the mask)
    {"op":"install_shared_tile","shared_id":s,"index":i,"mask":m}
                                           InstallSharedTile(s, _Tiles[[i]], m)
                                           (AtomicUpdateSharedTile of Local tile i)
    {"op":"configure_predicate_tile","index":i,"mask":m,"capacity":n,"rows":n,"columns":n,
     "valid_rows":n,"valid_columns":n}     ConfigurePredicateTileForMask(...) /
                                           ConfigurePredicateTile (= mask 0001)
    {"op":"write_tile_predicate_bit","index":i,"row":r,"column":c,"value":b}
                                           WriteTilePredicateBit
    {"op":"write_tile_element","index":i,"row":r,"column":c,"value":w}
                                           WriteTileElement
    {"op":"mark_tile_defined","index":i}   MarkTileValidRegionDefined
    {"op":"release_tile","index":i}        ReleaseTile
    {"op":"expect_tile_element","index":i,"row":r,"column":c,"value":w}
                                           ReadTileElement (the element must be
                                           defined: the ASL read asserts it)
    {"op":"expect_tile_element_defined","index":i,"row":r,"column":c,"value":b}
                                           TileElementDefined, or
                                           t.defined_elements[TileStorageIndex(t, r, c)]
    {"op":"expect_tile_payload","index":i,"row":r,"column":c,"value":w}
                                           t.payload[[TileStorageIndex(t, r, c)]]
                                           (no definedness requirement)
    {"op":"expect_tile_linear_index","index":i,"row":r,"column":c,"value":k}
                                           TileLinearIndex(_Tiles[[i]], r, c) /
                                           TileStorageIndex(...) asserted directly: the
                                           payload slot the tile register file stores
                                           (r, c) in
    {"op":"expect_tile","index":i,"field":f,"value":v}      _Tiles[[i]].f
    {"op":"expect_shared_tile","index":i,"field":f,"value":v} _SharedTiles[[i]].f;
                                           f = "tile.<g>": SharedTileRecord(i).tile.g;
                                           "payload" (+ "element": k): .tile.payload[[k]];
                                           "fully_initialized" / "published_value":
                                           SharedTileFullyInitialized / SharedTilePublished
    {"op":"expect_core_capacity","value":n} CoreTileCapacityInUse()
    {"op":"expect_tile_binding_count","value":n}     BundleTileBindingCount()
    {"op":"expect_shared_binding_count","value":n}   BundleSharedBindingCount()
    {"op":"expect_tile_stream_terminated","value":b}
                                           BundleTileBindingStreamTerminated()
    {"op":"expect_selected_mask_zero","value":b}
                                           SelectedBundleTileMaskIsZero(): the gate the
                                           model's bundle commit skips a zero-mask
                                           bundle by (block::selected_mask_is_zero)
    {"op":"expect_scalar_binding"|"expect_tile_binding"|"expect_shared_binding",
     "index":i,"field":f,"value":v}        _Bundle{Scalar,Tile,Shared}Bindings[[i]].f
    {"op":"expect_block_record","record":"control"|"data"|"operation","field":f,"value":v}
                                           _BundleControlAttributes.f /
                                           _BundleDataAttributes.f / _BundleOperation.f;
                                           also CurrentBundle{DataTypeCode,Canonicalize}()
                                           (control-state.asl returns the field)
    {"op":"expect_current_pad_value","value":"TilePad_Null"}   CurrentBundlePadValue():
                                           the model's pad value of the pending block
                                           (tile::current_pad_value)
    {"op":"expect_min_capacity","columns":c,"valid_rows":r,"valid_columns":v,"data_type":"U8","value":n}
                                           MinimumTileCapacityBytesForShape(c, r, v, t): the
                                           capacity the model sizes a Shared TSTORE
                                           destination by (tile::minimum_capacity_for_shape)
    {"op":"expect_vec_arithmetic_type","data_type":"FP64","value":b}
                                           TileVecArithmeticDataTypeSupported(t): the type
                                           gate of the model's TEPL arithmetic kernels
                                           (tile::vec_arithmetic_data_type_supported)
    {"op":"expect_current_data_layout","value":"TileDataLayout_NORM"}
                                           CurrentBundleDataLayout(): the B.DATR Layout
                                           code through the model's generated layout table
    {"op":"expect_dimension","index":i,"value":w}      _BundleDimensions[[i]]
    {"op":"expect_dimension_present","index":i,"value":b}
    {"op":"expect_tile_dispatch_legal","tile_op":"TGATHER","operands":{"destination0":42,
     "source0":40,"source1":41},"value":b}
                                           TileOperandsLegal_<handler>(...) or
                                           InstructionContractOperandsLegal_<OP>(...)
                                           on explicit tiles: whether the ASL's
                                           per-operation dispatch arm
                                           (ExecuteTileInstructionWithoutTime...,
                                           generated) with that operand record passes
                                           its legality gate (TileSourceContentsDefined
                                           of the arm's sources, then the legality
                                           handler) instead of raising
                                           Fault_TileLegality.  The operation and the
                                           operand fields come from the generated arm
                                           that calls the handler with the same
                                           constant arguments.  A NumericExecutionControl
                                           argument (DefaultNumericExecutionControl()) is
                                           "numeric_control": {"rounding_mode": "RNE",
                                           "saturating": false}.
    {"op":"expect_tile_dtype_legal","tile_op":"TMAX","cases":[{"destination0":"FP32",
     "source0":"FP32","source1":"FP32"}],"operands":{"scalar0":"0x1"},"value":b}
                                           InstructionContractDataTypeLegal_<OP>(t),
                                           InstructionContract{Value,Index}DataTypeLegal_
                                           TGATHER(t), InstructionContractTypePairLegal_
                                           TSCATTER(v, i): whether the model's kernel for
                                           <OP> accepts tiles of those types (the same gate
                                           as expect_tile_dispatch_legal, on tiles the
                                           runner configures: 16 x 16 RowMajor, valid
                                           region 1 x 1, sources defined with zero
                                           payload).  Every tile operand of the op's
                                           generated dispatch arm takes the asserted type;
                                           "predicate" is a predicate tile (TCMP's
                                           destination, TSEL's mask); a TGATHER/TSCATTER
                                           index (source1) or value operand not named by
                                           the assertion takes a type the same contract
                                           accepts (S32 / FP32); a B.IOR scalar the arm
                                           reads is 1 and "payloads" name sources whose
                                           element holds a value (an integer divisor is
                                           nonzero), so operand-value rules do not decide
                                           a type check.  TCVT(t): t as source (to FP32)
                                           and as destination (from FP32); legal when
                                           every case is accepted.  Only handlers whose
                                           operands share one type are translated
                                           (UNIFORM_TYPE_HANDLERS).
    {"op":"expect_tile_datr_legal","tile_op":"TABS","fields":{"comparison_mode":n,
     "pad_value":n,"saturating":b,"canonicalize":b,"data_type":n,"rounding_mode":n,
     "data_layout":n},"value":b}           TileOperationDATRFieldsLegal(<catalog index>, ...),
                                           and TileOperationDATRFieldApplicable(op, f) as the
                                           same check with only field f nonzero: whether the
                                           model accepts an explicit B.DATR with those fields
                                           for the operation
    {"op":"expect_tile_datr_pad_union","tile_op":"TFMA","value":"PadValue"}
                                           TileOperationDATRPadUnion(<catalog index>): how the
                                           model reads B.DATR PadValueOrByteId for the op

Nothing is computed here except constant expressions and the encodings of
the rewritten helpers; every expected value comes from an assertion.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from functools import lru_cache
from pathlib import Path

sys.dont_write_bytecode = True
_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("extract_block_vectors", _HERE / "extract_block_vectors.py")
blk = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(blk)
base = blk.base
_spec = importlib.util.spec_from_file_location("gen_spec_tables", _HERE / "gen_spec_tables.py")
gen_spec_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_spec_tables)

TILE_EXECUTION = ("TLOAD", "TSTORE", "VEC", "TEPL", "SFU", "TMOV", "TPREFETCH", "GMOV", "MGATHER",
                  "MGATHER.CAS", "MGATHER.MASK", "MSCATTER", "MSCATTER.MASK", "TMATMUL", "TMATMUL.ACC",
                  "TMATMUL.BIAS", "TMATMULMX", "TMATMULMX.ACC", "TMATMULMX.BIAS", "TGEMV", "TGEMV.ACC",
                  "TGEMV.BIAS", "TGEMVMX", "TGEMVMX.ACC", "TGEMVMX.BIAS")
DIRECTORIES = (("block/attributes", "block/operands")
               + tuple(f"block/execution/BSTART.{x}" for x in TILE_EXECUTION)
               + ("block/model",)
               + tuple(f"tile/model/{x}" for x in ("state", "definedness", "shape", "legality", "memory",
                                                  "execution"))
               + tuple(f"tile/{x}" for x in ("elementwise-tile-tile", "tile-scalar-and-immediate",
                                            "reduce-and-expand", "layout-and-rearrangement",
                                            "irregular-and-complex")))

base.CONSTANTS.update({"PTO_BUNDLE_TILE_BINDING_COUNT": 16, "PTO_BUNDLE_SHARED_BINDING_COUNT": 4,
                       "PTO_TILE_REGISTER_COUNT": 64, "PTO_SHARED_TILE_COUNT": 256,
                       "PTO_TILE_CAPACITY_BYTES": 262144, "PTO_TILE_MAX_ALLOCATION_BYTES": 65536,
                       "DTYPE_NONE": base.Bits(5, 31)})

NOP = 0x00000015  # ADDI zero, 0, ->zero
BSTOP = 0x00000001


@lru_cache(maxsize=None)
def accepted(mnemonic: str, field: str) -> frozenset:
    """The values of a command form's field that the catalog accepts (its
    one-of constraint): B.DATR DataType/Layout/CMode, B.FPATR PreQuantMode
    (BundleFPATRPreQuantModeLegal), ReluMode, GroupNCode."""
    forms = json.loads((blk.SOURCES["catalog"] / "command-forms.json").read_text())["forms"]
    (form,) = [f for f in forms if f["mnemonic"] == mnemonic]
    (rule,) = [c for c in form["constraints"] if c["field"] == field and c["operator"] == "one-of"]
    return frozenset(rule["values"])


@lru_cache(maxsize=None)
def pe_masks() -> tuple:
    """PTOv0PEMaskOfPEMode (ADR 0096) as mask numbers indexed by PEMode; mask
    bit 3 = PE0.  Read from the ASL as tools/gen_spec_tables.py does."""
    return tuple(int(m, 2) for m in gen_spec_tables.pe_mode_masks(gen_spec_tables.Asl(str(blk.SOURCES["spec"] / "asl"))))


def pe_mode_of_mask(mask: int) -> int | None:
    """The PEMode (1..7) that selects `mask`, None for a mask no PEMode names."""
    modes = [mode for mode, m in enumerate(pe_masks()) if mode and m == mask]
    return modes[0] if modes else None


TILE_FIELDS = {"allocated", "contents_defined", "defined_valid_elements", "capacity_bytes", "rows",
               "columns", "valid_rows", "valid_columns", "data_type", "layout", "location",
               "cube_k_repeat", "cube_n_repeat", "cube_cell_count", "cube_storage_bytes"}
SHARED_FIELDS = {"descriptor_valid", "allocation_mask", "initialized_mask", "published"}
# Pending-block records (asl/block/model/state/types.asl) -> "record" of expect_block_record.
BLOCK_RECORDS = {"_BundleControlAttributes": "control", "_BundleDataAttributes": "data",
                 "_BundleOperation": "operation"}
# CurrentBundle<Field>() readers of asl/block/model/state/control-state.asl
# that return a _BundleDataAttributes field as it is -> that field; those that
# decode it -> the step asking the model's decoding (its PadValue of the
# pending block, its layout table).
CURRENT_BUNDLE_DATA_FIELDS = {"CurrentBundleDataTypeCode": "data_type", "CurrentBundleCanonicalize": "canonicalize"}
CURRENT_BUNDLE_DATA_READERS = {"CurrentBundlePadValue": "expect_current_pad_value",
                               "CurrentBundleDataLayout": "expect_current_data_layout"}
BINDING_VARS = {"_BundleScalarBindings": "expect_scalar_binding",
                "_BundleTileBindings": "expect_tile_binding",
                "_BundleSharedBindings": "expect_shared_binding"}
# Steps tests/unit/bundle_spec_vectors_test.cpp executes.
RUNNER_OPS = {
    "reset", "set_tpc", "set_gpr", "set_pe_gpr", "clear_fault", "exec", "store", "load", "write_mem",
    "expect_mem", "expect_fault", "expect_fault_address", "expect_tpc", "expect_gpr", "expect_pe_gpr",
    "expect_bpc", "expect_bundle_state", "configure_tile", "write_tile_element", "mark_tile_defined",
    "release_tile", "expect_tile_element", "expect_tile_element_defined", "expect_tile",
    "expect_shared_tile", "expect_core_capacity", "expect_tile_binding_count",
    "expect_shared_binding_count", "expect_tile_stream_terminated", "expect_scalar_binding",
    "expect_tile_binding", "expect_shared_binding", "expect_dimension", "expect_dimension_present",
    "set_bpc", "begin_bundle", "mem_events_start", "mem_events_stop", "mem_events_reset",
    "expect_mem_event_count", "expect_mem_event", "expect_block_record", "configure_cube_tile",
    "install_shared_tile", "reset_bundle_control",
    "expect_tile_payload", "expect_tile_dispatch_legal", "configure_predicate_tile",
    "write_tile_predicate_bit", "expect_tile_dtype_legal", "expect_tile_datr_legal",
    "expect_tile_datr_pad_union", "expect_tile_linear_index", "expect_fp_flags", "record_fp_flags",
    "expect_no_form", "expect_selected_mask_zero", "expect_current_pad_value", "expect_current_data_layout",
    "expect_min_capacity", "expect_vec_arithmetic_type",
}
# TileInstructionOperands fields a translated legality check may bind (the
# rest of the record keeps its reset value in the runner).
DISPATCH_TILE_FIELDS = re.compile(r"^(destination|source)\d$")
DISPATCH_WORD_FIELDS = {"scalar0", "scalar1"}
DISPATCH_INTEGER_FIELDS = {"diagonal", "sort_width"}
# Data-type contract helpers other than InstructionContractDataTypeLegal_<OP>:
# name -> (operation, the operand the asserted type(s) bind, in argument order).
# The other tile operands keep the type the same contract accepts for them
# (asl/tile/model/legality/indexed-rearrangement.asl).
DTYPE_HELPERS = {
    "InstructionContractValueDataTypeLegal_TGATHER": ("TGATHER", ("value",)),
    "InstructionContractIndexDataTypeLegal_TGATHER": ("TGATHER", ("index",)),
    "InstructionContractTypePairLegal_TSCATTER": ("TSCATTER", ("value", "index")),
}
# Legality handlers whose numeric tile operands all share the operation's
# data type (operand-schema.asl, indexed-layout.asl), with the operand that is
# a predicate tile instead (TCMP's destination, TSEL's mask); the data-type
# contract of other handlers (sorting, indexed, reductions, ...) involves
# further roles and stays omitted.
UNIFORM_TYPE_HANDLERS = {
    "TileOperandsLegal_ExecuteTileBinary": None, "TileOperandsLegal_ExecuteTileUnary": None,
    "TileOperandsLegal_ExecuteTileScalar": None, "TileOperandsLegal_ExecuteTileFillScalar": None,
    "TileOperandsLegal_TFMA": None, "TileOperandsLegal_ExecuteTilePartial": None,
    "TileOperandsLegal_ExecuteTileCompare": "destination0",
    "TileOperandsLegal_ExecuteTileCompareScalar": "destination0",
    "TileOperandsLegal_ExecuteTileSelect": "source0", "TileOperandsLegal_ExecuteTileSelectScalar": "source0",
}
# Integer TDIV/TREM also require a nonzero divisor (TilePayloadNonzero, an
# operand-value rule): the right source holds 1 so it does not decide a type check.
NONZERO_DIVISOR = {"TileBinary_DIV", "TileBinary_REM"}
INDEXED_ROLES = {"destination0": "value", "source0": "value", "source1": "index"}
INDEXED_DEFAULTS = {"value": "FP32", "index": "S32"}
# Semantic handlers a direct call of which (InstructionContractExecute_<OP>(d, s...),
# ExecuteTile<...>(op, d, s...)) is one single-binding BSTART.TEPL bundle:
# sources bound by one terminating B.IOT, destination0 newly allocated.
# (Reductions are not: their B.DIM dimensions describe the source.)
SINGLE_BINDING_HANDLERS = {"ExecuteTileBinary", "ExecuteTileUnary", "ExecuteTileExpand", "ExecuteTilePartial",
                           "TGATHER", "TCONCAT", "TTRANS"}
# B.DATR fields (catalog names, as b_datr encodes them): (lsb, width).
DATR_WORD_FIELDS = {"Layout": (7, 5), "RMode": (15, 3), "DataType": (20, 5), "Canonicalize": (25, 1),
                    "Sat": (26, 1), "PadValueOrByteId": (27, 2), "CMode": (29, 3)}
BSTART_TEPL = 0x00019181  # DataType@31:27, Mode@26:25, Function@24:20
# TileSizeCodeBytes: SizeCode k (1..10 for a Local destination) is 64 << k bytes.
LOCAL_SIZE_CODES = {64 << k: k for k in range(1, 11)}



# Points where this model and the ASL disagree, recorded (and skipped by the
# runner with the reason) until the model is fixed.
KNOWN_DIVERGENCES = {
    "PTO-AVS-BLOCK-TPREFETCH-FAULT-001":
        "translation: the retried ExecuteBundleTileOperation becomes a BSTOP at the trap PC (the odd fault "
        "address); tests/unit/tlsu_bundle_test.cpp retries through RecoverTrapContext instead",
}


class NumericControl:
    """A NumericExecutionControl value: DefaultNumericExecutionControl()
    (asl/arch/data-types/rounding.asl: RNE, not saturating)."""

    def __init__(self, rounding_mode: str, saturating: bool):
        self.rounding_mode, self.saturating = rounding_mode, saturating

    def __repr__(self) -> str:
        return "NumericExecutionControl{...}"


class MatrixDestination:
    """``BundleMatrixDestinationAt(i)``: the i-th destination binding's tile."""

    def __init__(self, ordinal: int):
        self.ordinal = ordinal

    def __repr__(self) -> str:
        return "BundleMatrixDestinationAt(...)"


class TileRecord:
    """``let t = _Tiles[[i]]``: later ``t.f`` reads become expect_tile steps
    (the record is read where the test asserts on it)."""

    def __init__(self, ref: dict):
        self.ref = ref

    def __repr__(self) -> str:
        return "_Tiles[[...]] record"


class StorageIndex(base.Obs):
    """``TileStorageIndex(t, r, c)`` / ``TileLinearIndex(t, r, c)`` of a
    TileRecord: the payload slot of (r, c) (the two agree outside the CUBE
    layouts, where TileLinearIndex is not defined); asserted directly, the
    slot number itself (expect_tile_linear_index)."""

    def __init__(self, ref: dict, row: int, column: int):
        super().__init__("expect_tile_linear_index", **ref, row=row, column=column, _key="value")
        self.ref, self.row, self.column = ref, row, column

    def __repr__(self) -> str:
        return "TileStorageIndex(...)"


@lru_cache(maxsize=None)
def dispatch_legality_arms(generated_text: str) -> dict:
    """(legality handler, constant arguments) -> (operation, argument list)
    from the generated ExecuteTileInstructionWithoutTime... case arms, e.g.
    ("TileOperandsLegal_ExecuteTileBinary", ("TileBinary_ADD",)) ->
    ("TADD", ["TileBinary_ADD", "operands.destination0", ...]).  A key two
    arms share is dropped (ambiguous)."""
    arms: dict = {}
    for op, handler, args in legality_calls_of_arms(generated_text):
        key = (handler, tuple(a for a in args if not a.startswith("operands.") and a != "numeric_control"))
        arms[key] = None if key in arms and arms[key][0] != op else (op, args)
    return {k: v for k, v in arms.items() if v is not None}


def legality_calls_of_arms(generated_text: str):
    """(operation, legality handler, argument texts) of every
    `if !TileOperandsLegal_*(...)` call in the generated dispatch arms, in
    order."""
    op = None
    for line in generated_text.split("\n"):
        m = re.match(r"^\s+when TileOperation_(\w+) =>\s*$", line)
        if m:
            op = m.group(1)
            continue
        m = re.match(r"^\s+if !(TileOperandsLegal_\w+)\((.*)\) then\s*$", line)
        if m and op is not None:
            yield op, m.group(1), [a.strip() for a in m.group(2).split(",")]


@lru_cache(maxsize=None)
def contract_operand_legality(spec: Path) -> dict:
    """InstructionContractOperandsLegal_<OP>: its parameter names and the
    argument texts of the single TileOperandsLegal_* call it returns (the
    instruction file's contract wrapper)."""
    pattern = re.compile(r"func (InstructionContractOperandsLegal_\w+)\(([^)]*)\)\s*=>\s*boolean\s*begin\s*"
                         r"return\s+(TileOperandsLegal_\w+)\(([^;]*)\);\s*end;")
    out = {}
    for path in sorted((spec / "asl").rglob("*.asl")):
        text = path.read_text()
        if "InstructionContractOperandsLegal_" not in text:
            continue
        for name, params, handler, args in pattern.findall(text):
            out[name] = ([p.split(":")[0].strip() for p in params.split(",") if p.strip()], handler,
                         [a.strip() for a in args.split(",")])
    return out


@lru_cache(maxsize=None)
def dispatch_operand_arguments(generated_text: str) -> dict:
    """operation -> (legality handler, argument texts) of the call its
    generated dispatch arm makes (e.g. "TMAX" -> ("TileOperandsLegal_
    ExecuteTileBinary", ["TileBinary_MAX", "operands.destination0",
    "operands.source0", "operands.source1"]))."""
    out: dict = {}
    for op, handler, args in legality_calls_of_arms(generated_text):
        out.setdefault(op, (handler, args))
    return out


@lru_cache(maxsize=None)
def data_type_codes(spec: Path) -> dict:
    """TileDataType name -> its five-bit DataType encoding
    (TileDataTypeFromEncoding, asl/arch/data-types/tile-data-types.asl)."""
    text = (spec / "asl/arch/data-types/tile-data-types.asl").read_text()
    body = text[text.index("func TileDataTypeFromEncoding"):]
    body = body[:body.index("\nend;")]
    return {name: int(code) for code, name in re.findall(r"when (\d+) => return TileDataType_(\w+);", body)}


@lru_cache(maxsize=None)
def contract_execute_wrappers(spec: Path) -> dict:
    """InstructionContractExecute_<OP>: its parameter names, the semantic
    handler it calls and that call's argument texts (an operand-legality
    assert before the call is the precondition the bundle checks)."""
    pattern = re.compile(r"func (InstructionContractExecute_\w+)\(([^)]*)\)\s*begin\s*"
                         r"(?:assert InstructionContractOperandsLegal_\w+\([^;]*\);\s*)?"
                         r"(\w+)\(([^;]*)\);\s*end;")
    out = {}
    for path in sorted((spec / "asl/tile").rglob("*.asl")):
        text = path.read_text()
        for name, params, handler, args in pattern.findall(text):
            out[name] = ([p.split(":")[0].strip() for p in params.split(",") if p.strip()], handler,
                         [a.strip() for a in args.split(",")])
    return out


enum_tail = blk.enum_tail


class BundleExecutor(blk.BlockExecutor):
    def __init__(self, *args):
        super().__init__(*args)
        # Tile index -> binding it was renamed to by a rewritten semantic-handler
        # call ({"binding": 0}), or None once a later bundle retired it.
        self.renamed: dict = {}

    def emit(self, step: dict) -> dict:
        # A reset, reconfiguration or release ends a handler destination's renaming;
        # a bundle's commit retires the binding it is read through.
        renamed = self.renamed
        if step["op"] == "reset":
            renamed.clear()
        elif step.get("index") in renamed and step["op"].startswith(("configure", "release")):
            del renamed[step["index"]]
        elif step["op"] == "exec" and step.get("bits") == f"0x{BSTOP:08x}":
            self.stale_renamings()
        return super().emit(step)

    def exec_word(self, bits: int, origin: str):
        step = self.emit({"op": "exec", "entry": "command" if bits != NOP else "pto",
                          "bits": f"0x{bits:08x}", "length_bits": 32, "rewritten_from": origin})
        return step

    def tile_ref(self, v) -> dict:
        """A tile index: a constant, or the renamed destination of a binding
        the test read earlier (``let t = _BundleTileBindings[[i]].destination``)."""
        if (isinstance(v, base.Snapshot) and v.step["op"] == "expect_tile_binding"
                and v.step["field"] == "destination"):
            return {"binding": v.step["index"]}
        if isinstance(v, MatrixDestination):
            return {"destination_ordinal": v.ordinal}
        index = self.as_int(v)
        if index in self.renamed:
            if self.renamed[index] is None:
                raise base.Unsupported("read of a handler's destination after a later bundle")
            return self.renamed[index]
        return {"index": index}

    def dispatch_legality(self, name, values):
        """expect_tile_dispatch_legal of a legality handler call, or None
        when the call has no generated dispatch arm or binds an operand field
        the runner does not set."""
        if name.startswith("InstructionContractOperandsLegal_"):
            wrapper = contract_operand_legality(self.index.spec).get(name)
            if wrapper is None or len(wrapper[0]) != len(values):
                return None
            params, name, arg_texts = wrapper
            bound = dict(zip(params, values))
            values = [bound[a] if a in bound else base.EnumV(a) for a in arg_texts]
        constants = tuple(v.name for v in values if isinstance(v, base.EnumV))
        arm = dispatch_legality_arms(self.index.generated_text).get((name, constants))
        if arm is None or len(arm[1]) != len(values):
            return None
        operation, arg_texts = arm
        operands = {}
        for text, value in zip(arg_texts, values):
            if text == "numeric_control" and isinstance(value, NumericControl):
                operands[text] = {"rounding_mode": value.rounding_mode, "saturating": value.saturating}
                continue
            if not text.startswith("operands."):
                if not isinstance(value, base.EnumV) or value.name != text:
                    return None
                continue
            field = text[len("operands."):]
            try:
                if DISPATCH_TILE_FIELDS.match(field):
                    operands[field] = self.as_int(value)
                elif field in DISPATCH_WORD_FIELDS:
                    operands[field] = base.fmt(self.as_bits(value, 64))
                elif field in DISPATCH_INTEGER_FIELDS:
                    operands[field] = self.as_int(value)
                elif field == "flag0":
                    operands[field] = self.as_bool(value)
                else:
                    return None
            except base.Unsupported:
                return None  # a helper value: the check stays omitted
        return base.Obs("expect_tile_dispatch_legal", tile_op=operation, operands=operands, _key="value")

    def configured_tile(self, index: int):
        """The configure_tile step that set tile `index` up since the last
        reset and whether a step wrote its elements after it; (None, False)
        when it was not configured here, or released since."""
        for j in range(len(self.steps) - 1, -1, -1):
            step = self.steps[j]
            if step["op"] == "reset":
                break
            if step.get("index") == index and step["op"] in ("configure_tile", "release_tile",
                                                             "configure_cube_tile", "configure_predicate_tile"):
                if step["op"] != "configure_tile":
                    break
                written = any(later.get("index") == index and later["op"] in ("write_tile_element",
                                                                              "mark_tile_defined")
                              for later in self.steps[j + 1:])
                return step, written
        return None, False

    # Steps that may lie between B.DATR state set up outside a bundle and the
    # handler call it applies to (none reads the pending block: the
    # binary/unary operand legality does not).
    DATR_MOVABLE_OVER = {"configure_tile", "write_tile_element", "mark_tile_defined", "expect_tile_dispatch_legal"}

    def pending_datr_word(self, handler: str, record: dict):
        """The B.DATR word of SetBundleDataAttributeState state set since the
        last reset (removed here: the handler's bundle carries it), or None.
        Unsupported when the operation's bundle would reject that B.DATR
        (a nonzero field outside its catalog datr_contract,
        TileOperationDATRFieldsLegal)."""
        for j in range(len(self.steps) - 1, -1, -1):
            st = self.steps[j]
            if st["op"] == "reset":
                return None
            if st.get("rewritten_from") == "SetBundleDataAttributeState":
                if any(later["op"] not in self.DATR_MOVABLE_OVER for later in self.steps[j + 1:]):
                    raise base.Unsupported(f"{handler} after B.DATR state and other effects (not one bundle)")
                word = int(st["bits"], 16)
                allowed = set(record["datr_contract"]["allowed_nonzero_fields"])
                for field, (lsb, width) in DATR_WORD_FIELDS.items():
                    if (word >> lsb) & ((1 << width) - 1) and field not in allowed:
                        raise base.Unsupported(f"B.DATR state no {record['name']} bundle accepts ({field})")
                del self.steps[j]
                return word
        return None

    def semantic_handler_bundle(self, handler: str, values: list, origin: str) -> None:
        """A direct semantic-handler call as the one bundle that performs it
        (SINGLE_BINDING_HANDLERS); Unsupported when no bundle expresses it."""
        constants = [v.name for v in values if isinstance(v, base.EnumV)]
        records = [r for r in blk.tile_catalog_records(self.index.spec).values()
                   if r.get("semantic_handler") == handler and r.get("command_mnemonic") == "BSTART.TEPL"
                   and [a["constant"] for a in r["arguments"] if "constant" in a] == constants]
        if len(records) != 1 or len(records[0]["arguments"]) != len(values):
            raise base.Unsupported(f"call to {handler} without a single catalog operation")
        record = records[0]
        fields: dict = {}
        for a, v in zip(record["arguments"], values):
            if "operand" in a and fields.setdefault(a["operand"], self.as_int(v)) != self.as_int(v):
                raise base.Unsupported(f"{handler} with two tiles for operand {a['operand']}")
        sources = [fields[f] for f in sorted(fields) if f.startswith("source")]
        destination = fields["destination0"]
        if destination in sources:
            raise base.Unsupported(f"{handler} with an aliased destination (a bundle allocates a new one)")
        if len(sources) not in (1, 2) or set(fields) != {"destination0", *(f"source{i}" for i in range(len(sources)))}:
            raise base.Unsupported(f"{handler} operands not bound by one B.IOT")
        datr = self.pending_datr_word(handler, record)
        # The bundle allocates the destination from B.DIM, SizeCode, BSTART
        # type and the default layout: exactly d's descriptor when these hold.
        (d, written), configured = self.configured_tile(destination), [self.configured_tile(i)[0] for i in sources]
        if (d is None or any(c is None for c in configured) or d["layout"] != "RowMajor"
                or d["capacity"] not in LOCAL_SIZE_CODES or pe_mode_of_mask(d["mask"]) is None
                or any(c["mask"] != d["mask"] for c in configured)):
            raise base.Unsupported(f"{handler} on tiles no single bundle allocates alike")
        if written:
            raise base.Unsupported(f"{handler} into a destination holding values (a bundle allocates a new one)")
        code = data_type_codes(self.index.spec)[d["data_type"]]
        self.exec_word(BSTART_TEPL | (code << 27) | (record["mode"] << 25) | (record["function"] << 20), origin)
        if datr is not None:
            self.exec_word(datr, "SetBundleDataAttributeState")
        for lb, value in enumerate((d["valid_columns"], d["valid_rows"], d["columns"])):
            self.b_dim(lb, value, origin)
        self.exec_word(self.b_iot([True, 0, LOCAL_SIZE_CODES[d["capacity"]], base.Bits(4, d["mask"]), True,
                                   len(sources) == 2, sources[0], sources[-1] if len(sources) == 2 else 0, True]),
                       origin)
        self.exec_word(BSTOP, origin)["expect_status"] = "CommandExecution_Executed"
        self.renamed[destination] = {"binding": 0}

    def stale_renamings(self):
        """A later bundle retires binding 0's trace: earlier renamed
        destinations can no longer be read."""
        for i in self.renamed:
            self.renamed[i] = None

    def b_dim(self, index: int, value: int, origin: str):
        if value >= 1 << 16 or index > 2:
            raise base.Unsupported("SetBundleDimension value not encodable in B.DIM")
        imm = ((value & 0xFFF) << 20) | ((value >> 12) << 7)  # uimm17[11:0] @31:20, [16:12] @11:7
        self.exec_word(0x43 | (index << 12) | imm, origin)

    def dtype_legality(self, name, values):
        """expect_tile_dtype_legal of a data-type contract helper on constant
        types, or None (not a data-type helper, or a non-constant type)."""
        try:
            types = [enum_tail(self.concrete(v), "TileDataType_") for v in values]
        except base.Unsupported:
            return None
        if name in DTYPE_HELPERS:
            operation, bound = DTYPE_HELPERS[name]
            if len(types) != len(bound):
                return None
            by_role = {**INDEXED_DEFAULTS, **dict(zip(bound, types))}
            cases = [{f: by_role[r] for f, r in INDEXED_ROLES.items()}]
        elif name.startswith("InstructionContractDataTypeLegal_") and len(types) == 1:
            operation, t = name[len("InstructionContractDataTypeLegal_"):], types[0]
            handler, args = dispatch_operand_arguments(self.index.generated_text).get(operation, (None, []))
            if operation == "TCVT":  # t as source and as destination
                cases = [{"destination0": "FP32", "source0": t}, {"destination0": t, "source0": "FP32"}]
            elif handler in UNIFORM_TYPE_HANDLERS:
                fields = [a[len("operands."):] for a in args if a.startswith("operands.")]
                cases = [{f: "predicate" if f == UNIFORM_TYPE_HANDLERS[handler] else t
                          for f in fields if DISPATCH_TILE_FIELDS.match(f)}]
            else:
                return None
        else:
            return None
        _, args = dispatch_operand_arguments(self.index.generated_text).get(operation, (None, []))
        extra = {"operands": {"scalar0": "0x1"}} if "operands.scalar0" in args else {}
        if NONZERO_DIVISOR & set(args) and "operands.source1" in args:
            extra["payloads"] = {"source1": "0x1"}
        return base.Obs("expect_tile_dtype_legal", tile_op=operation, cases=cases, **extra, _key="value")

    def form_fact(self, name, args, env):
        """The bundle runner has no form-table step: per-form decoder facts
        stay omitted here."""
        return base.Opaque([name])

    # nor a command-surface decode step: DecodeCommandForm(w, n) == k stays omitted
    is_command_decode = staticmethod(base.Executor.is_command_decode)

    def b_iot(self, vals):
        dv, dest, size, mask, s0v, s1v, s0, s1, last = vals
        dv, s0v, s1v, last = (self.as_bool(x) for x in (dv, s0v, s1v, last))
        dest, size, s0, s1 = (self.as_int(x) for x in (dest, size, s0, s1))
        mask = self.as_bits(mask, 4).value
        if pe_mode_of_mask(mask) is None:
            raise base.Unsupported("AddBundleTileBinding mask without a PEMode")
        if (s1v and not s0v) or not (dv or s0v):
            raise base.Unsupported("AddBundleTileBinding operands without a B.IOT form")
        if dv and (dest > 3 or not 1 <= size <= 10):
            raise base.Unsupported("AddBundleTileBinding destination not encodable")
        funct3 = 4 if s1v else 5 if s0v else 6
        word = 0x13 | (funct3 << 12) | (pe_mode_of_mask(mask) << 9) | (int(last) << 19)
        if dv:
            word |= (dest << 7) | (size << 15)
        if s0v:
            word |= s0 << 20
        if s1v:
            word |= s1 << 26
        return word

    def b_fpatr(self, vals):
        pre, relu, group_n = (self.as_bits(v).value for v in vals[:3])
        flags = [self.as_bool(x) for x in vals[3:]] + [False] * (9 - len(vals))
        row_max, group_max, row_init, max_abs, trans_a, trans_b = flags
        # BundleFPATRFieldsLegal (asl/block/attributes/B.FPATR.asl)
        if (pre not in accepted("B.FPATR", "PreQuantMode") or relu not in accepted("B.FPATR", "ReluMode")
                or group_n not in accepted("B.FPATR", "GroupNCode") or (row_init and not row_max)
                or group_max != (group_n != 0) or (max_abs and not (row_max or group_max))):
            raise base.Unsupported("SetBundleFixedPointAttributeState fields not encodable as an accepted B.FPATR")
        return (0x2023 | (pre << 26) | (relu << 23) | (group_n << 19) | (int(row_max) << 18)
                | (int(group_max) << 17) | (int(row_init) << 16) | (int(max_abs) << 15)
                | (int(trans_a) << 7) | (int(trans_b) << 8))

    def b_datr(self, vals):
        dtype, layout, pad, cmode, rmode = (self.as_bits(v).value for v in vals[:5])
        sat, canon = (self.as_bool(v) for v in vals[5:])
        if (dtype not in accepted("B.DATR", "DataType") or layout not in accepted("B.DATR", "Layout")
                or cmode not in accepted("B.DATR", "CMode")):
            raise base.Unsupported("SetBundleDataAttributeState fields not encodable as an accepted B.DATR")
        return (0x1023 | (layout << 7) | (rmode << 15) | (dtype << 20) | (int(canon) << 25) | (int(sat) << 26)
                | (pad << 27) | (cmode << 29))

    def eval(self, e, env):
        # t.defined_elements[TileStorageIndex(t, r, c)] of a TileRecord t
        # (a let-bound record or _Tiles[[i]] itself)
        if (e[0] == "slice" and e[1][0] == "field" and e[1][2] == "defined_elements" and len(e[2]) == 1
                and e[2][0][0] == e[2][0][1]
                and ((e[1][1][0] == "id" and isinstance(env.get(e[1][1][1]), TileRecord))
                     or (e[1][1][0] == "index" and e[1][1][1] == ("id", "_Tiles")))):
            record, slot = self.eval(e[1][1], env), self.eval(e[2][0][0], env)
            if isinstance(record, TileRecord) and isinstance(slot, StorageIndex) and slot.ref == record.ref:
                return base.Obs("expect_tile_element_defined", **record.ref, row=slot.row, column=slot.column,
                                _key="value")
        return super().eval(e, env)

    def bind(self, name, value, env):
        if isinstance(value, StorageIndex):  # a slot used later as an index, not a read to snapshot
            env[name] = value
            return
        super().bind(name, value, env)

    def exec_stmt(self, stmt, env):
        if getattr(self, "pending_datr", None) is not None:
            if stmt[0] != "assign" or stmt[1] != ("id", "_BundleDataAttributesPresent") or \
                    self.eval(stmt[2], env) is not True:
                raise base.Unsupported("SetBundleDataAttributeState without _BundleDataAttributesPresent = TRUE")
            word, self.pending_datr = self.pending_datr, None
            self.exec_word(word, "SetBundleDataAttributeState")
            return
        super().exec_stmt(stmt, env)

    def expect(self, sym, const, negate=False):
        # A successful commit (the BSTOP that replaces ExecuteBundleTileOperation)
        # also retires the bundle's bindings, so "allocated by this bundle" is
        # no longer observable there: recorded as an omitted check.
        if (isinstance(sym, base.Obs) and sym.op == "expect_tile_binding"
                and sym.params.get("field") == "destination_allocated_by_bundle"
                and self.concrete(const) is True and not negate
                and any(s.get("rewritten_from") == "ExecuteBundleTileOperation" for s in self.steps)):
            self.omitted["_BundleTileBindings after the commit"] += 1
            return
        # The same BSTOP ends the block, so the pending bundle's mask state
        # (kept by the ASL's ExecuteBundleTileOperation) is gone too.
        if (isinstance(sym, base.Obs) and sym.op == "expect_selected_mask_zero"
                and any(s.get("rewritten_from") == "ExecuteBundleTileOperation" for s in self.steps)):
            self.omitted["SelectedBundleTileMaskIsZero after the commit"] += 1
            return
        super().expect(sym, const, negate)

    def do_assert(self, expr, env):
        # assert a && b is assert a; assert b (same evaluation order; a false
        # a fails the point either way): one expectation per conjunct.
        if expr[0] == "binop" and expr[1] == "&&":
            self.do_assert(expr[2], env)
            self.do_assert(expr[3], env)
            return
        super().do_assert(expr, env)

    def eval_call(self, name, params, args, env, statement=False):
        if args is not None:
            def vals():
                return self.arg_values(args, env)

            if name.startswith(("TileOperandsLegal_", "InstructionContractOperandsLegal_")):
                obs = self.dispatch_legality(name, vals())
                if obs is not None:
                    return obs
            if name.startswith("InstructionContractDataTypeLegal_") or name in DTYPE_HELPERS:
                obs = self.dtype_legality(name, vals())
                if obs is not None:
                    return obs
            if name == "DefaultNumericExecutionControl" and not args:
                return NumericControl("RNE", False)
            if name == "MinimumTileCapacityBytesForShape" and len(args) == 4:
                v = vals()
                return base.Obs("expect_min_capacity", columns=self.as_int(v[0]), valid_rows=self.as_int(v[1]),
                                valid_columns=self.as_int(v[2]),
                                data_type=enum_tail(self.concrete(v[3]), "TileDataType_"), _key="value")
            if name == "TileVecArithmeticDataTypeSupported" and len(args) == 1:
                return base.Obs("expect_vec_arithmetic_type", data_type=enum_tail(self.concrete(vals()[0]),
                                                                                   "TileDataType_"), _key="value")
            if name == "PTOv0PEMaskOfPEMode" and len(args) == 1:
                # The spec's PEMode -> mask table (profile-encoding.asl), the
                # expected mask of a binding the B.IOT/B.IOS word selected.
                mode = self.as_int(vals()[0])
                return base.Bits(4, pe_masks()[mode])
            if name == "SelectedBundleTileDataAttributesLegal" and len(args) == 1:
                # A check of the pending block that raises Fault_TileLegality
                # only when it returns FALSE: a model helper (omitted check).
                return base.Opaque([name])
            if name == "EnterBundleBody" and not args:
                self.exec_word(NOP, name)
                return None
            if name == "SetBundleDimension" and len(args) == 2:
                v = vals()
                self.b_dim(self.as_int(v[0]), self.as_bits(v[1], 64).value, name)
                return None
            if name.startswith("InstructionContractExecute_") and name in contract_execute_wrappers(self.index.spec):
                params, handler, arg_texts = contract_execute_wrappers(self.index.spec)[name]
                if handler in SINGLE_BINDING_HANDLERS and len(params) == len(args):
                    bound = dict(zip(params, vals()))
                    self.semantic_handler_bundle(handler, [bound[a] if a in bound else base.EnumV(a)
                                                           for a in arg_texts], name)
                    return None
            if name in SINGLE_BINDING_HANDLERS:
                self.semantic_handler_bundle(name, vals(), name)
                return None
            if name == "AddBundleTileBinding" and len(args) == 9:
                self.exec_word(self.b_iot(vals()), name)
                return None
            if name == "ExecuteBundleTileOperation" and not args:
                return base.Capture(self.exec_word(BSTOP, name), "expect_status")
            if name == "ExecuteDecodedBundleCommand" and len(args) == 3:
                v = vals()
                bits = self.as_bits(v[0], 64)
                length = self.as_int(v[2])
                step = self.emit({"op": "exec", "entry": "command",
                                  "bits": base.fmt_instruction(bits, length), "length_bits": length})
                return base.Capture(step, "expect_status")
            if (name, len(args)) in (("ConfigureTile", 9), ("ConfigureTileForMask", 10)):
                v = vals()
                mask = self.as_bits(v[9], 4).value if len(v) == 10 else 0b0001
                self.emit({"op": "configure_tile", "index": self.as_int(v[0]), "mask": mask,
                           "capacity": self.as_int(v[1]), "rows": self.as_int(v[2]),
                           "columns": self.as_int(v[3]), "valid_rows": self.as_int(v[4]),
                           "valid_columns": self.as_int(v[5]),
                           "data_type": enum_tail(self.concrete(v[6]), "TileDataType_"),
                           "layout": enum_tail(self.concrete(v[7]), "TileLayout_"),
                           "location": enum_tail(self.concrete(v[8]), "TileLocation_")})
                return None
            if (name, len(args)) in (("ConfigurePredicateTile", 6), ("ConfigurePredicateTileForMask", 7)):
                v = vals()
                self.emit({"op": "configure_predicate_tile", "index": self.as_int(v[0]),
                           "mask": self.as_bits(v[6], 4).value if len(v) == 7 else 0b0001,
                           **{k: self.as_int(x) for k, x in zip(
                               ("capacity", "rows", "columns", "valid_rows", "valid_columns"), v[1:6])}})
                return None
            if (name, len(args)) in (("ConfigureCubeTile", 7), ("ConfigureCubeTileForMask", 8)):
                v = vals()
                mask = self.as_bits(v[7], 4).value if len(v) == 8 else 0b0001
                step = self.emit({"op": "configure_cube_tile", "index": self.as_int(v[0]), "mask": mask,
                                  "capacity": self.as_int(v[1]), "valid_rows": self.as_int(v[2]),
                                  "valid_columns": self.as_int(v[3]),
                                  "data_type": enum_tail(self.concrete(v[4]), "TileDataType_"),
                                  "layout": enum_tail(self.concrete(v[5]), "TileLayout_"),
                                  "location": enum_tail(self.concrete(v[6]), "TileLocation_")})
                return base.Capture(step, "expect_configured")
            if name == "SetBundleDataAttributeState" and len(args) == 7:
                self.pending_datr = self.b_datr(vals())
                return None
            if name in ("TileStorageIndex", "TileLinearIndex") and len(args) == 3:
                v = vals()
                if isinstance(v[0], TileRecord):
                    return StorageIndex(v[0].ref, self.as_int(v[1]), self.as_int(v[2]))
            if name in ("SharedTileFullyInitialized", "SharedTilePublished") and len(args) == 1:
                field = "fully_initialized" if name.endswith("Initialized") else "published_value"
                return base.Obs("expect_shared_tile", index=self.as_int(vals()[0]), field=field, _key="value")
            if name == "BindBundleSharedIO" and len(args) == 3:
                shared_id, size, mask = self.as_int(vals()[0]), self.as_int(vals()[1]), self.as_bits(vals()[2], 4).value
                if pe_mode_of_mask(mask) is None:
                    raise base.Unsupported("BindBundleSharedIO mask without a PEMode")
                # B.IOS: SharedTID@27:20, SizeCode@18:15, PEMode@11:9
                self.exec_word(0x1013 | (shared_id << 20) | (size << 15) | (pe_mode_of_mask(mask) << 9), name)
                return None
            if name == "InstallSharedTile" and len(args) == 3:
                v = vals()
                if not isinstance(v[1], TileRecord) or "index" not in v[1].ref:
                    raise base.Unsupported("InstallSharedTile of a tile record other than _Tiles[[i]]")
                self.emit({"op": "install_shared_tile", "shared_id": self.as_int(v[0]), **v[1].ref,
                           "mask": self.as_bits(v[2], 4).value})
                return None
            if name == "BundleMatrixDestinationAt" and len(args) == 1:
                return MatrixDestination(self.as_int(vals()[0]))
            if name == "SetBundleFixedPointAttributeState" and len(args) in (7, 9):
                self.exec_word(self.b_fpatr(vals()), name)
                return None
            if name == "WriteTileElement" and len(args) == 4:
                v = vals()
                self.emit({"op": "write_tile_element", "index": self.as_int(v[0]), "row": self.as_int(v[1]),
                           "column": self.as_int(v[2]), "value": base.fmt(self.as_bits(v[3], 64))})
                return None
            if name == "WriteTilePredicateBit" and len(args) == 4:
                v = vals()
                self.emit({"op": "write_tile_predicate_bit", "index": self.as_int(v[0]), "row": self.as_int(v[1]),
                           "column": self.as_int(v[2]), "value": self.as_bool(v[3])})
                return None
            if name in ("MarkTileValidRegionDefined", "ReleaseTile") and len(args) == 1:
                op = "mark_tile_defined" if name.startswith("Mark") else "release_tile"
                self.emit({"op": op, "index": self.as_int(vals()[0])})
                return None
            if name in ("ReadTileElement", "TileElementDefined") and len(args) == 3:
                v = vals()
                op = "expect_tile_element" if name == "ReadTileElement" else "expect_tile_element_defined"
                return base.Obs(op, **self.tile_ref(v[0]), row=self.as_int(v[1]), column=self.as_int(v[2]),
                                _key="value")
            if name == "SetBundleScalarBinding" and len(args) == 6:
                index, dst, s0, s1, s2, _count = (self.as_int(x) for x in vals())
                if index != 0 or max(dst, s0, s1, s2) > 23:
                    raise base.Unsupported("SetBundleScalarBinding not encodable as one B.IOR")
                self.exec_word(0x13 | (dst << 7) | (s0 << 15) | (s1 << 20) | (s2 << 27), name)
                return None
            simple_obs = {"CoreTileCapacityInUse": "expect_core_capacity",
                          "BundleTileBindingCount": "expect_tile_binding_count",
                          "BundleSharedBindingCount": "expect_shared_binding_count",
                          "BundleTileBindingStreamTerminated": "expect_tile_stream_terminated",
                          "SelectedBundleTileMaskIsZero": "expect_selected_mask_zero"}
            if name in simple_obs and not args:
                return base.Obs(simple_obs[name], _key="value")
            if name in CURRENT_BUNDLE_DATA_FIELDS and not args:  # _BundleDataAttributes.<field>
                return base.Obs("expect_block_record", record="data", field=CURRENT_BUNDLE_DATA_FIELDS[name],
                                _key="value")
            if name in CURRENT_BUNDLE_DATA_READERS and not args:
                return base.Obs(CURRENT_BUNDLE_DATA_READERS[name], _key="value")
        return super().eval_call(name, params, args, env, statement)

    def eval_id(self, name, env):
        if name == "_BundleDataAttributesPresent" and name not in env:
            return base.Obs("expect_block_record", record="data", field="present", _key="value")
        return super().eval_id(name, env)

    def eval_state_path(self, e, env):
        # SharedTileRecord(i).tile.f and SharedTileRecord(i).tile.payload[[k]]
        record = e[1] if e[0] == "field" else e[1][1] if e[0] == "index" and e[1][0] == "field" else None
        if (record is not None and record[0] == "field" and record[2] == "tile" and record[1][0] == "call"
                and record[1][1] == "SharedTileRecord" and record[1][3] and len(record[1][3]) == 1):
            index = self.as_int(self.eval(record[1][3][0], env))
            if e[0] == "field" and e[2] in TILE_FIELDS:
                return base.Obs("expect_shared_tile", index=index, field="tile." + e[2], _key="value")
            if e[0] == "index" and e[1][2] == "payload":
                return base.Obs("expect_shared_tile", index=index, field="payload",
                                element=self.as_int(self.eval(e[2], env)), _key="value")
        # _Tiles[[i]].f, _SharedTiles[[i]].f / SharedTileRecord(i).f, _Bundle*Bindings[[i]].f
        if (e[0] == "field" and e[1][0] == "call" and e[1][1] == "SharedTileRecord" and e[1][3]
                and len(e[1][3]) == 1 and e[2] in SHARED_FIELDS):
            return base.Obs("expect_shared_tile", index=self.as_int(self.eval(e[1][3][0], env)), field=e[2],
                            _key="value")
        if (e[0] == "index" and e[1][0] == "field" and e[1][2] == "payload" and e[1][1][0] == "id"
                and isinstance(env.get(e[1][1][1]), TileRecord)):
            slot = self.eval(e[2], env)
            if isinstance(slot, StorageIndex):
                return base.Obs("expect_tile_payload", **env[e[1][1][1]].ref, row=slot.row, column=slot.column,
                                _key="value")
        if e[0] == "index" and e[1] == ("id", "_Tiles"):
            return TileRecord(self.tile_ref(self.eval(e[2], env)))
        if (e[0] == "field" and e[1][0] == "id" and isinstance(env.get(e[1][1]), TileRecord)
                and e[2] in TILE_FIELDS):
            return base.Obs("expect_tile", **env[e[1][1]].ref, field=e[2], _key="value")
        if e[0] == "field" and e[1][0] == "index" and e[1][1][0] == "id":
            var, field = e[1][1][1], e[2]
            if var == "_Tiles" and (field in TILE_FIELDS or field == "defined_elements"):
                return base.Obs("expect_tile", **self.tile_ref(self.eval(e[1][2], env)), field=field, _key="value")
            idx = self.as_int(self.eval(e[1][2], env)) if var != "_Tiles" else 0
            if var == "_SharedTiles" and field in SHARED_FIELDS:
                return base.Obs("expect_shared_tile", index=idx, field=field, _key="value")
            if var in BINDING_VARS:
                return base.Obs(BINDING_VARS[var], index=idx, field=field, _key="value")
        if e[0] == "field" and e[1][0] == "id" and e[1][1] in BLOCK_RECORDS:
            return base.Obs("expect_block_record", record=BLOCK_RECORDS[e[1][1]], field=e[2], _key="value")
        if e[0] == "index" and e[1][0] == "id" and e[1][1] == "_Memory":
            return base.Obs("expect_mem", addr=base.fmt(base.Bits(64, self.as_int(self.eval(e[2], env)))),
                            size=1, _key="value")
        if e[0] == "index" and e[1][0] == "id" and e[1][1] == "_TileAllocationMasks":
            return base.Obs("expect_tile", **self.tile_ref(self.eval(e[2], env)), field="allocation_mask",
                            _key="value")
        if e[0] == "index" and e[1][0] == "id" and e[1][1] in ("_BundleDimensions", "_BundleDimensionPresent"):
            idx = self.as_int(self.eval(e[2], env))
            op = "expect_dimension" if e[1][1] == "_BundleDimensions" else "expect_dimension_present"
            return base.Obs(op, index=idx, _key="value")
        return super().eval_state_path(e, env)

    def assign(self, lhs, value, env):
        # control.saturating = b / control.rounding_mode = m of a NumericControl
        # (a new value: a copy made by `var c2 = c` stays independent)
        if (lhs[0] == "field" and lhs[1][0] == "id" and isinstance(env.get(lhs[1][1]), NumericControl)
                and lhs[2] in ("saturating", "rounding_mode")):
            old = env[lhs[1][1]]
            env[lhs[1][1]] = (NumericControl(old.rounding_mode, self.as_bool(value)) if lhs[2] == "saturating"
                              else NumericControl(enum_tail(self.concrete(value), "NumericRound_"), old.saturating))
            return
        if lhs[0] == "index" and lhs[1] == ("id", "_Memory"):
            self.emit({"op": "write_mem", "addr": base.fmt(base.Bits(64, self.as_int(self.eval(lhs[2], env)))),
                       "size": 1, "value": base.fmt(self.as_bits(value, 8))})
            return
        super().assign(lhs, value, env)

    def normalise(self, step, key, const):
        op = step["op"]
        if key == "expect_status" and step.get("rewritten_from") == "ExecuteBundleTileOperation":
            return "CommandExecution_Executed" if self.as_bool(const) else "CommandExecution_Rejected"
        if op == "expect_tile" and step["field"] == "defined_elements":
            if not isinstance(const, base.Bits) or const.value != 0:
                raise base.Unsupported("defined_elements compared with a non-zero vector")
            step["field"] = "defined_element_count"
            return 0
        if op in ("expect_tile", "expect_shared_tile", "expect_scalar_binding", "expect_tile_binding",
                  "expect_shared_binding", "expect_block_record"):
            const = self.concrete(const)
            if isinstance(const, base.EnumV):
                return const.name
            if isinstance(const, base.Bits):
                return const.value
            return const
        if op in ("expect_tile_element", "expect_dimension", "expect_tile_payload"):
            return base.fmt(self.as_bits(const, 64))
        if op in ("expect_core_capacity", "expect_tile_binding_count", "expect_shared_binding_count",
                  "expect_tile_linear_index"):
            return self.as_int(const)
        if key == "expect_configured":
            return self.as_bool(const)
        if op == "expect_tile_element_defined" and isinstance(const, base.Bits) and const.width == 1:
            return bool(const.value)  # a defined_elements bit
        if op in ("expect_tile_element_defined", "expect_tile_stream_terminated", "expect_dimension_present",
                  "expect_tile_dispatch_legal", "expect_tile_dtype_legal"):
            return self.as_bool(const)
        return super().normalise(step, key, const)


class HelperGuards:
    """The expected status of each word that replaces a test-only helper:
    the helper's own fault conditions (asl/block/model/...) evaluated on the
    pending-block state the steps before it built since the last reset.
    A helper whose guard holds would SetFault instead of updating state, so
    its word must be rejected; otherwise executed.  The state is tracked
    only while every step's effect on it is known (a reset makes it known
    again); a helper word met while it is unknown keeps the
    "status_unasserted" reason of the step that made it so."""

    def __init__(self, command):
        self.known = False
        self.command = command  # command word -> catalog mnemonic

    def clear_header(self):  # ClearBundleHeaderState
        self.dims, self.tile_masks, self.tile_closed, self.shared = set(), [], False, []

    def reset(self):  # ResetBundleControlState
        self.known, self.active = True, False
        self.clear_header()

    def guard(self, origin: str, bits: int):
        """(status, fault) the helper `origin` ends with in the current state."""
        if origin == "SetBundleDimension":  # asl/block/model/schema/dimensions.asl
            return ("Rejected", "Fault_BundleControl") if (bits >> 12) & 7 in self.dims else ("Executed", None)
        if origin == "AddBundleTileBinding":  # asl/block/model/operands/tile-bindings.asl
            if self.tile_closed:
                return "Rejected", "Fault_BundleControl"
            return ("Rejected", "Fault_TileLegality") if len(self.tile_masks) == 16 else ("Executed", None)
        if origin == "BindBundleSharedIO":  # asl/block/model/operands/shared-bindings.asl
            mask = pe_masks()[(bits >> 9) & 7]
            if any(m != mask for m in self.tile_masks + [m for _, m in self.shared]):
                return "Rejected", "Fault_TileLegality"  # BundleSharedMaskCanAppend
            if (bits >> 20) & 0xFF in [i for i, _ in self.shared] or len(self.shared) == 4:
                return "Rejected", "Fault_BundleControl"
            return "Executed", None
        if origin == "EnterBundleBody":  # asl/block/model/lifecycle/enter-stop.asl
            return ("Executed", None) if self.active else ("Rejected", "Fault_BundleControl")
        # SetBundleScalarBinding has no fault path; the B.DATR / B.FPATR words
        # are only written for fields their helper's legality check accepts
        # (b_datr, b_fpatr); a semantic-handler bundle (semantic_handler_bundle)
        # is BSTART.TEPL (needs no open bundle), then header words of a fresh
        # header, then its BSTOP (Executed).
        if self.command(bits).startswith("BSTART"):
            return ("Rejected", None) if self.active else ("Executed", None)
        return "Executed", None

    def apply(self, mnemonic: str, bits: int, executed: bool):
        """The effect of an executed command word (catalog mnemonic) on the
        tracked state; a rejected word or a word of another kind leaves it
        unknown.  Fields at their command-forms.json positions."""
        if not executed:
            self.known = False
        elif mnemonic in ("BSTOP", "C.BSTOP", "L.BSTOP"):
            self.active = False
            self.clear_header()
        elif mnemonic.startswith(("BSTART", "C.BSTART")):  # commits any open block, begins on a cleared header
            self.active = True
            self.clear_header()
        elif mnemonic == "B.DIM":  # the funct3 field selects LB0..LB2
            self.dims.add((bits >> 12) & 7)
        elif mnemonic == "B.IOT":  # PEMode@11:9, L@19
            self.tile_masks.append(pe_masks()[(bits >> 9) & 7])
            self.tile_closed = self.tile_closed or bool(bits >> 19 & 1)
        elif mnemonic == "B.IOS":  # SharedTID@27:20, PEMode@11:9
            self.shared.append(((bits >> 20) & 0xFF, pe_masks()[(bits >> 9) & 7]))
        elif mnemonic not in ("B.IOR", "B.DATR", "B.FPATR", "B.CATR"):
            self.known = False

    def step(self, st: dict) -> None:
        op = st["op"]
        if op in ("reset", "reset_bundle_control"):
            self.reset()
        elif op == "begin_bundle":  # BeginBundleAt: leaves the header as it is
            self.active = True
        elif op == "exec":
            bits = int(st["bits"], 16)
            if "rewritten_from" in st and "expect_status" not in st:
                if self.known:
                    status, fault = self.guard(st["rewritten_from"], bits)
                    st["expect_status"] = "CommandExecution_" + status
                    if fault is not None:
                        st["expect_fault"] = fault
                else:
                    st["status_unasserted"] = UNKNOWN_HELPER_STATE
            status = st.get("expect_status")
            if st["entry"] != "command":  # a scalar word (the NOP entering the body) leaves the header
                self.known = self.known and status is not None and (status.endswith("_Executed") or bits == NOP)
            elif status is None:
                self.known = False
            else:
                self.apply(self.command(bits), bits, status.endswith("_Executed"))
        elif op in ("complete_bundle", "enter_bundle_body", "set_bpc") or op.startswith("set_bundle"):
            self.known = False


UNKNOWN_HELPER_STATE = ("replaces a helper whose fault conditions read block state an earlier step with "
                        "no asserted status may have changed")


@lru_cache(maxsize=None)
def command_forms(spec: Path) -> tuple:
    """(mask, match, mnemonic) of every 32-bit command form."""
    shared = Path("/work/shared/pto-spec-0.58.3/catalog")
    catalog = (shared if shared.is_dir() else spec / "spec/catalog") / "command-forms.json"
    return tuple((int(e["mask"], 16), int(e["match"], 16), f["mnemonic"])
                 for f in json.loads(catalog.read_text())["forms"] if f["length_bits"] == 32
                 for e in f["encoding"])


def expect_helper_statuses(steps: list[dict], spec: Path) -> None:
    """Give every rewritten helper word its expected status (HelperGuards)."""
    def command(bits: int) -> str:
        return next((m for mask, match, m in command_forms(spec) if bits & mask == match), "")

    guards = HelperGuards(command)
    for st in steps:
        guards.step(st)


def translate(path: Path, rel: str, index, scalar_forms):
    """(point, None) or (None, reason)."""
    text = path.read_text()
    headers = base.HEADER_RE.findall(text)
    if len(headers) != 1:
        return None, "no single PTO-TEST header"
    header = json.loads(headers[0])
    if header.get("kind") == "static-invariant":
        return None, "static invariant: the unit compiles (nothing executable)"
    try:
        prog = base.parse_program(text)
    except base.AslSyntaxError as exc:
        return None, f"syntax: {exc}"
    funcs = {item[1]: item for item in prog if item[0] == "func"}
    if "main" not in funcs:
        return None, "no main()"
    ex = BundleExecutor(index, {k: v for k, v in funcs.items() if k != "main"}, scalar_forms)
    try:
        ex.inline(funcs["main"], [], {})
        steps = base.finished_steps(ex.steps)
        if not any((s["op"].startswith("expect") and s["op"] != "expect_no_form") or "expect_status" in s
                   for s in steps):
            raise base.Unsupported("no architectural observation (decode-only or model-helper test)")
        expect_helper_statuses(steps, index.spec)
        unknown = sorted({s["op"] for s in steps} - RUNNER_OPS)
        if unknown:
            raise base.Unsupported(f"step {unknown[0]} outside the bundle runner")
    except base.Unsupported as exc:
        return None, str(exc)
    point = {
        "avs_id": header["id"],
        "source": rel,
        "spec_source": header["source"],
        "kind": header["kind"],
        "complete": not ex.omitted,
    }
    if ex.omitted:
        point["omitted_checks"] = dict(sorted(ex.omitted.items()))
    if header["id"] in KNOWN_DIVERGENCES:
        point["known_divergence"] = KNOWN_DIVERGENCES[header["id"]]
    if ex.problems:
        point["problems"] = ex.problems
    point["steps"] = steps
    return point, None


def main(argv=None) -> int:
    return blk.run_extraction(argv, __doc__.split("\n")[0], _HERE.parent / "tests/data/spec_bundle_exec.json",
                              DIRECTORIES, translate)

if __name__ == "__main__":
    sys.exit(main())
