#!/usr/bin/env python3
"""Extract block-control and architectural-state test points from the PTO
spec's ASL AVS tests into execution vectors.

Same method and output schema as tools/extract_exec_vectors.py (whose
symbolic executor this script extends; read its docstring for the step
vocabulary).  Directories: ``tests/asl/block/{lifecycle,encoding}``, the
scalar-block ``tests/asl/block/execution/BSTART.{STD,FP,SYS,CALL,ICALL}``
(tile bundles are translated elsewhere) and
``tests/asl/arch/{state,programming-model,memory-model,overview,profile,dispatch,features,system-registers}``.
Output: ``tests/data/spec_block_exec.json``.

Additional step vocabulary:

    {"op":"exec","entry":"command","bits":"0x..","length_bits":N
     [,"expect_status":"CommandExecution_Executed"|"CommandExecution_Rejected"]}
                                            ExecuteCommandInstruction(bits, N)
    {"op":"complete_bundle","pc":w[,"expect_result":b]}
                                            CompleteBundleAt(pc): commit the
                                            active block at pc (result: committed)
    {"op":"expect_bpc","value":w}           ReadBPC()
    {"op":"set_pe_gpr","pe":n,"reg":n,"value":w} / {"op":"expect_pe_gpr",...}
                                            WritePEGPR / ReadPEGPR
    {"op":"set_predicate","index":n,"value":w} / {"op":"expect_predicate",...}
                                            WritePredicateRegister /
                                            ReadPredicateRegister (32-bit words)
    {"op":"write_reg5","sel":n,"value":w}   WriteScalarDestination(sel, value)
    {"op":"expect_form_operands_legal","surface":"command","bits":"0x..","length_bits":N,"value":b}
                                            CommandFormOperandsLegal(w, DecodeCommandForm(w, N))
    {"op":"expect_start_fact","form_id":f|"surface":"command","bits":..,"length_bits":N,
     "fact":"kind"|"transfer"[,"branch_type":k],"value":"BundleKind_System"|"BundleTransfer_.."}
                                            InstructionContractKind_MN(),
                                            InstructionContractTransfer_MN(k),
                                            CommandBundleTransferOfForm(DecodeCommandForm(w, N)):
                                            the model's start-form / BrType tables
    InstructionContractBranchTypeLegal_MN(k) -> expect_form_operands_legal of MN's
                                            word with BrType = k
    {"op":"expect_start_target","pc":w,"words":[{"form_id":f,"bits":..,"length_bits":N}],"value":w}
                                            InstructionContractTarget_MN(pc, d): each
                                            form's word with simm12 = d, executed at pc
                                            on a fresh machine, starts a block whose
                                            BARG.bpcn is the value
    {"op":"expect_reg5","sel":n,"value":w}  ReadScalarRegisterOperand(sel): the
                                            model's Reg5 source read (GPR, T#k, U#k)
    {"op":"set_frame_depth"|"expect_frame_depth","value":w}        _FrameDepth
    {"op":"set_last_memory_command_address"|"expect_...","value":w}
    {"op":"set_last_memory_command_size"|"expect_...","value":w}
    {"op":"set_last_bundle_hint_payload"|"expect_...","value":w}
                                            block bookkeeping variables of
                                            asl/block/model/state/control-state.asl
    {"op":"expect_bundle_hint","field":f,"value":v}                _BundleHint.f
    {"op":"expect_frame_template","field":f,"value":v}          _FrameTemplate.f
    {"op":"set_fault","fault":e,"address":w}  SetFault(code, address)
    {"op":"set_core_state","value":w}       _SystemRegisters.core_state = w
    {"op":"expect_tile_start","form_id":f,"fact":x[,"bits":w][,"family":F],"value":v}
                                            CommandFormSelectsTileOperation(k) (selects),
                                            CommandTileFamilyOfForm(k) (family),
                                            CommandTile{Code,DataType}OfForm(w, k) (code,
                                            data_type), DecodeTileOperation(F,
                                            CommandTileCodeOfForm(w, k)) (operation): the
                                            model's tile-start decode (src/isa/tile_start.hpp)
    {"op":"expect_tepl_alias","alias":"TEPL"|"VEC"|"SFU","index":i,"value":b}
                                            TileTEPLAliasAcceptsOperation(TileTEPLAlias_X, i),
                                            InstructionContractAcceptsTileOperation_BSTART_X(i):
                                            the assembler accepts "BSTART.X <op i>, FP32"
    {"op":"expect_tepl_alias","index":i,"canonical":true,"value":"VEC"|"SFU"}
                                            TileCanonicalTEPLAliasOfIndex(i): that alias
                                            accepts op i and the other engine's rejects it
    {"op":"expect_sysreg_access","addr":a24,"value":"ReadWrite"|"ReadOnly"|"WriteOnly"|"Unknown"}
                                            SystemRegisterAccessOf(a): the model's access
                                            class of the address (scalar::system_register_access_of)
    {"op":"expect_tile_index_fact","check":c,"index":i[,"value":v|"family":f,"code":n]}
                                            Tile{Operation,Handler,Class,Engine}OfIndex(i)
                                            (c = operation, handler, class, engine),
                                            TileOperandPresent(i, TileOperand_F) (c =
                                            operand_present, "field":F),
                                            TileOperationUsesTEPLCarrier(i) (c = tepl_carrier),
                                            DecodeTileOperation(TileDecode_f, code) == i of
                                            a constant code (c = decode): the model's tile
                                            operation table and tile start decode, as in
                                            tools/extract_tile_contract_vectors.py
    {"op":"expect_tile_datr_legal","tile_op":"TABS","fields":{...},"value":b}
    {"op":"expect_tile_datr_pad_union","tile_op":"TFMA","value":"PadValue"}
                                            TileOperationDATR{FieldsLegal,FieldApplicable,
                                            PadUnion}(<tile catalog index>, ...): the
                                            model's B.DATR rule of the operation (the
                                            bundle extractor's steps; see there)
    {"op":"expect_form_fact","surface":"scalar"|"command","form_id":f,"fact":x[,"field":F],"value":v}
                                            Scalar{Family,Operation,Handler}OfForm(k),
                                            Command{Operation,Handler}OfForm(k),
                                            {Scalar,Command}Operand{Present,Width}(k, F),
                                            ScalarOperandSignedness(k, F): the model's
                                            form table entry of catalog form k
                                            (x = family, operation, handler,
                                            operand_present, operand_width,
                                            operand_signedness)

Test points without an executed instruction are kept when they drive the
architectural state through its model API (ReadPEGPR, WritePredicateRegister,
...) and assert on it: they test the state model itself.

Nothing is computed here except constant expressions the tests write; every
expected value comes from an assertion in a test.  Tests that only check
decoding (no instruction executed) are covered by the decode vectors and
are listed as skipped here.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree clean
_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("extract_exec_vectors", _HERE / "extract_exec_vectors.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

DIRECTORIES = (
    "block/lifecycle",
    "block/encoding",
    "block/execution/BSTART.STD",
    "block/execution/BSTART.FP",
    "block/execution/BSTART.SYS",
    "block/execution/BSTART.CALL",
    "block/execution/BSTART.ICALL",
    "arch/state",
    "arch/programming-model",
    "arch/memory-model",
    "arch/overview",
    "arch/profile",
    "arch/dispatch",
    "arch/features",
    "arch/system-registers",
)


# InstructionContract<Fact>_<MN>(...) of a BSTART form that the model keeps
# per form (CommandBundleKindOfForm / CommandBundleTransferOfForm, the
# generated start-form table) or per BrType (BundleTransferOfBranchType).
START_CONTRACT_RE = re.compile(r"^InstructionContract(BranchTypeLegal|Transfer|Kind|Target)_(C_BSTART\w*)$")


# Per-form facts of the generated decoders (asl/arch/dispatch, generated by
# scripts/generate-asl-decoders): helper -> (surface, fact, takes a field).
FORM_FACTS = {
    "ScalarFamilyOfForm": ("scalar", "family", False),
    "ScalarOperationOfForm": ("scalar", "operation", False),
    "ScalarHandlerOfForm": ("scalar", "handler", False),
    "ScalarOperandPresent": ("scalar", "operand_present", True),
    "ScalarOperandWidth": ("scalar", "operand_width", True),
    "ScalarOperandSignedness": ("scalar", "operand_signedness", True),
    "CommandOperationOfForm": ("command", "operation", False),
    "CommandHandlerOfForm": ("command", "handler", False),
    "CommandOperandPresent": ("command", "operand_present", True),
    "CommandOperandWidth": ("command", "operand_width", True),
}


# TileOperationDATRFieldsLegal argument order -> expect_tile_datr_legal field.
DATR_ARGUMENTS = ("comparison_mode", "pad_value", "saturating", "canonicalize", "data_type", "rounding_mode",
                  "data_layout")
DATR_FIELD_OF_ENUM = {"TileDATRField_CMode": "comparison_mode", "TileDATRField_PadValueOrByteId": "pad_value",
                      "TileDATRField_Sat": "saturating", "TileDATRField_Canonicalize": "canonicalize",
                      "TileDATRField_DataType": "data_type", "TileDATRField_RMode": "rounding_mode",
                      "TileDATRField_Layout": "data_layout"}


@lru_cache(maxsize=None)
def tile_catalog_records(spec: Path) -> dict:
    """Catalog index -> catalog record (name, command_mnemonic, mode,
    function, ...), from the PTO-INSTRUCTION headers of asl/tile/**."""
    out = {}
    for path in sorted((spec / "asl/tile").rglob("*.asl")):
        m = re.match(r"// PTO-INSTRUCTION: (\{.*\})\s*$", path.read_text().split("\n", 1)[0])
        if m:
            header = json.loads(m.group(1))
            for index, record in zip(header.get("catalog_indices", []), header.get("catalog_records", [])):
                out[index] = record
    return out


def tile_operation_names(spec: Path) -> dict:
    """Catalog index -> tile operation mnemonic (the integer the
    TileOperationDATR* helpers take)."""
    return {i: r["name"] for i, r in tile_catalog_records(spec).items()}


# Tile{Operation,Handler,Class,Engine}OfIndex(i) -> (check, enumeration
# prefix) of an expect_tile_index_fact step (tests/unit/tile_contract_checks.hpp).
TILE_INDEX_FACTS = {"TileOperationOfIndex": ("operation", "TileOperation_"),
                    "TileHandlerOfIndex": ("handler", "TileHandler_"),
                    "TileClassOfIndex": ("class", "TileClass_"),
                    "TileEngineOfIndex": ("engine", "TileEngine_")}


# Command{FormSelectsTileOperation,TileFamilyOfForm}(k),
# CommandTile{Code,DataType}OfForm(w, k) -> expect_tile_start fact.
TILE_START_FACTS = {"CommandFormSelectsTileOperation": "selects", "CommandTileFamilyOfForm": "family",
                    "CommandTileCodeOfForm": "code", "CommandTileDataTypeOfForm": "data_type"}


def enum_tail(v, prefix: str) -> str:
    """The name of enumeration value v without its type prefix."""
    if not isinstance(v, base.EnumV) or not v.name.startswith(prefix):
        raise base.Unsupported(f"expected a {prefix}* value")
    return v.name[len(prefix):]


def command_forms() -> list[dict]:
    return json.loads((SOURCES["catalog"] / "command-forms.json").read_text())["forms"]


def encode_command(form: dict, values: dict) -> int:
    """The form's match bits with each named field set (catalog pieces)."""
    word = int(form["encoding"][0]["match"], 16)
    fields = {f["name"]: f for f in form["fields"]}
    for name, value in values.items():
        for piece in fields[name]["pieces"]:
            word |= ((value >> piece["value_lsb"]) & ((1 << piece["width"]) - 1)) << piece["instruction_lsb"]
    return word


# Model constants the tests use as loop bounds (asl/arch/profile/*.asl).
base.CONSTANTS.update({"PTO_TEMPORARY_QUEUE_DEPTH": 4, "PTO_PREDICATE_WIDTH": 32,
                       "PTO_PREDICATE_REGISTER_COUNT": 8, "PTO_ABSOLUTE_GPR_COUNT": 24,
                       "PTO_MODEL_MEMORY_AGENTS": 4,
                       # TileOperationIndex bound, DecodeTileOperation's "no operation"
                       # (scripts/generate-asl-decoders: constant PTO_TILE_OPERATION_COUNT = 109)
                       "PTO_TILE_OPERATION_COUNT": 109})
# Block bookkeeping variables (asl/block/model/state/control-state.asl).
for _var, _name in (("_FrameDepth", "frame_depth"),
                    ("_LastMemoryCommandAddress", "last_memory_command_address"),
                    ("_LastMemoryCommandSize", "last_memory_command_size"),
                    ("_LastBundleHintPayload", "last_bundle_hint_payload")):
    base.SIMPLE_STATE[_var] = ("expect_" + _name, "value", "set_" + _name)


class BlockExecutor(base.Executor):
    """The scalar-vector executor plus the block-command entry points."""

    def eval_call(self, name, params, args, env, statement=False):
        if args is not None:
            if name == "ExecuteCommandInstruction" and len(args) == 2:
                bits = self.as_bits(self.eval(args[0], env), 64)
                length = self.as_int(self.eval(args[1], env))
                step = self.emit({"op": "exec", "entry": "command",
                                  "bits": base.fmt_instruction(bits, length), "length_bits": length})
                return base.Capture(step, "expect_status")
            if name == "CompleteBundleAt" and len(args) == 1:
                step = self.emit({"op": "complete_bundle",
                                  "pc": base.fmt(self.as_bits(self.eval(args[0], env), 64))})
                return base.Capture(step, "expect_result")
            if name == "ReadPEGPR" and len(args) == 2:
                pe, reg = (self.as_int(self.eval(a, env)) for a in args)
                return base.Obs("expect_pe_gpr", pe=pe, reg=reg, _key="value")
            if name == "WritePEGPR" and len(args) == 3:
                pe, reg = (self.as_int(self.eval(a, env)) for a in args[:2])
                self.emit({"op": "set_pe_gpr", "pe": pe, "reg": reg,
                           "value": base.fmt(self.as_bits(self.eval(args[2], env), 64))})
                return None
            if name == "ReadPredicateRegister" and len(args) == 1:
                return base.Obs("expect_predicate", index=self.as_int(self.eval(args[0], env)), _key="value")
            if name == "WritePredicateRegister" and len(args) == 2:
                self.emit({"op": "set_predicate", "index": self.as_int(self.eval(args[0], env)),
                           "value": base.fmt(self.as_bits(self.eval(args[1], env), 32))})
                return None
            if name == "SetFault" and len(args) == 2:
                code = self.concrete(self.eval(args[0], env))
                if not isinstance(code, base.EnumV):
                    raise base.Unsupported("SetFault code")
                self.emit({"op": "set_fault", "fault": code.name,
                           "address": base.fmt(self.as_bits(self.eval(args[1], env), 64))})
                return None
            if (m := START_CONTRACT_RE.match(name)) and m.group(1) == "Target" and len(args) == 2:
                return self.start_target(m.group(2), args, env)
            if (m := START_CONTRACT_RE.match(name)) and len(args) <= 1:
                return self.start_contract(m.group(1), m.group(2), args, env)
            if name == "CommandBundleTransferOfForm" and len(args) == 1:
                decode = self.command_decode_of(self.eval(args[0], env))
                if decode is None:
                    return base.Opaque([name])
                return base.Obs("expect_start_fact", surface="command", bits=decode["bits"],
                                length_bits=decode["length_bits"], fact="transfer", _key="value")
            if name in FORM_FACTS and len(args) == 1 + FORM_FACTS[name][2]:
                return self.form_fact(name, args, env)
            if name == "SystemRegisterAccessOf" and len(args) == 1:
                address = self.eval(args[0], env)
                if not isinstance(address, base.Bits):
                    return base.Opaque([name])
                return base.Obs("expect_sysreg_access", addr=base.fmt(self.as_bits(address, 24)), _key="value")
            if name in TILE_INDEX_FACTS and len(args) == 1:
                index = self.eval(args[0], env)
                if not isinstance(index, int) or isinstance(index, bool):
                    return base.Opaque([name])
                return base.Obs("expect_tile_index_fact", check=TILE_INDEX_FACTS[name][0], index=index, _key="value")
            if name in ("TileOperandPresent", "TileOperationUsesTEPLCarrier") and len(args) in (1, 2):
                return self.tile_index_flag(name, args, env)
            if name in TILE_START_FACTS and len(args) == (2 if TILE_START_FACTS[name] in ("code", "data_type") else 1):
                return self.tile_start_fact(name, args, env)
            if name in ("TileTEPLAliasAcceptsOperation", "TileCanonicalTEPLAliasOfIndex") \
                    or name.startswith("InstructionContractAcceptsTileOperation_BSTART_"):
                return self.tepl_alias(name, args, env)
            if name == "DecodeTileOperation" and len(args) == 2:
                return self.tile_decode(args, env)
            if name.startswith("TileOperationDATR"):
                obs = self.datr_legality(name, [self.eval(a, env) for a in args])
                if obs is not None:
                    return obs
            if name == "CommandFormOperandsLegal" and len(args) == 2:
                return self.command_operands_legal(args, env)
            if name == "ReadScalarRegisterOperand" and len(args) == 1:
                return base.Obs("expect_reg5", sel=self.as_int(self.eval(args[0], env)), _key="value")
            if name == "WriteScalarDestination" and len(args) == 2:
                self.emit({"op": "write_reg5", "sel": self.as_int(self.eval(args[0], env)),
                           "value": base.fmt(self.as_bits(self.eval(args[1], env), 64))})
                return None
        return super().eval_call(name, params, args, env, statement)

    def tile_index_flag(self, name, args, env):
        """TileOperandPresent(i, TileOperand_F) / TileOperationUsesTEPLCarrier(i):
        expect_tile_index_fact checks operand_present / tepl_carrier."""
        values = [self.eval(a, env) for a in args]
        if not isinstance(values[0], int) or isinstance(values[0], bool):
            return base.Opaque([name])
        if name == "TileOperationUsesTEPLCarrier":
            return base.Obs("expect_tile_index_fact", check="tepl_carrier", index=values[0], _key="value") \
                if len(values) == 1 else base.Opaque([name])
        field = values[1] if len(values) == 2 else None
        if not isinstance(field, base.EnumV) or not field.name.startswith("TileOperand_"):
            return base.Opaque([name])
        return base.Obs("expect_tile_index_fact", check="operand_present", index=values[0],
                        field=field.name[len("TileOperand_"):], _key="value")

    def tepl_alias(self, name, args, env):
        """TileTEPLAliasAcceptsOperation(TileTEPLAlias_X, i),
        InstructionContractAcceptsTileOperation_BSTART_X(i) and
        TileCanonicalTEPLAliasOfIndex(i): expect_tepl_alias steps (the
        assembler's BSTART.X alias)."""
        values = [self.eval(a, env) for a in args]
        index = values[-1] if values else None
        if not isinstance(index, int) or isinstance(index, bool):
            return base.Opaque([name])
        if name == "TileCanonicalTEPLAliasOfIndex" and len(values) == 1:
            return base.Obs("expect_tepl_alias", index=index, canonical=True, _key="value")
        if name == "TileTEPLAliasAcceptsOperation" and len(values) == 2 and isinstance(values[0], base.EnumV):
            alias = values[0].name.removeprefix("TileTEPLAlias_")
        elif name.startswith("InstructionContractAcceptsTileOperation_BSTART_") and len(values) == 1:
            alias = name.removeprefix("InstructionContractAcceptsTileOperation_BSTART_")
        else:
            return base.Opaque([name])
        return base.Obs("expect_tepl_alias", alias=alias, index=index, _key="value")

    def tile_start_fact(self, name, args, env):
        """A tile-start fact of command form k (a constant index) and, for the
        code and data type, of the word w: an expect_tile_start step."""
        values = [self.eval(a, env) for a in args]
        index = values[-1]
        if not isinstance(index, int) or isinstance(index, bool) or (
                len(values) == 2 and not isinstance(values[0], base.Bits)):
            return base.Opaque([name])
        params = {"form_id": self.surface_form_id("command", index), "fact": TILE_START_FACTS[name]}
        if len(values) == 2:
            params["bits"] = base.fmt_instruction(self.as_bits(values[0], 64), 32)
        return base.Obs("expect_tile_start", **params, _key="value")

    def tile_decode(self, args, env):
        """DecodeTileOperation(TileDecode_F, code) of a constant code: the
        model's tile start decode (expect_tile_index_fact check decode);
        of CommandTileCodeOfForm(w, k): the operation the model's start
        decode selects for w (expect_tile_start fact operation)."""
        family, code = (self.eval(a, env) for a in args)
        if isinstance(family, base.EnumV) and isinstance(code, base.Obs) and code.op == "expect_tile_start" \
                and code.params.get("fact") == "code":
            return base.Obs("expect_tile_start", **{**code.params, "fact": "operation"},
                            family=family.name.removeprefix("TileDecode_"))
        if not isinstance(family, base.EnumV) or not isinstance(code, base.Bits):
            return base.Opaque(["DecodeTileOperation"])
        return base.Obs("expect_tile_index_fact", check="decode", family=family.name.removeprefix("TileDecode_"),
                        code=code.value, _key="index")

    def surface_form_id(self, surface: str, index: int) -> str:
        """The catalog form at position `index` of the surface (the generated
        decoders number forms by catalog position)."""
        if surface == "scalar":
            return self.form_id(index)
        forms = command_forms()
        if not 0 <= index < len(forms):
            raise base.Unsupported(f"command form index {index} out of range")
        return forms[index]["form_id"]

    def form_fact(self, name: str, args, env):
        """A per-form fact of the generated decoders (FORM_FACTS): an
        expect_form_fact step on catalog form k, checked against the model's
        form table."""
        surface, fact, has_field = FORM_FACTS[name]
        index = self.eval(args[0], env)
        if not isinstance(index, int) or isinstance(index, bool):
            return base.Opaque([name])
        params = {"surface": surface, "form_id": self.surface_form_id(surface, index), "fact": fact}
        if has_field:
            field = self.concrete(self.eval(args[1], env))
            prefix = "ScalarField_" if surface == "scalar" else "CommandField_"
            if not isinstance(field, base.EnumV) or not field.name.startswith(prefix):
                return base.Opaque([name])
            params["field"] = field.name[len(prefix):]
        return base.Obs("expect_form_fact", **params, _key="value")

    def datr_legality(self, name, values):
        """expect_tile_datr_legal / expect_tile_datr_pad_union of the
        TileOperationDATR* helpers on a constant operation index, or None."""
        try:
            operation = tile_operation_names(self.index.spec)[self.as_int(values[0])]
        except (base.Unsupported, KeyError, IndexError):
            return None
        if operation in ("TLOAD", "TSTORE"):
            return None  # their B.DATR rule adds the PadValue/CUBE-layout check
        if name == "TileOperationDATRPadUnion" and len(values) == 1:
            return base.Obs("expect_tile_datr_pad_union", tile_op=operation, _key="value")
        if name == "TileOperationDATRFieldApplicable" and len(values) == 2:
            field = DATR_FIELD_OF_ENUM.get(getattr(self.concrete(values[1]), "name", None))
            if field is None:
                return None
            fields = {f: (f == field) if f in ("saturating", "canonicalize") else int(f == field)
                      for f in DATR_ARGUMENTS}
            return base.Obs("expect_tile_datr_legal", tile_op=operation, fields=fields, _key="value")
        if name == "TileOperationDATRFieldsLegal" and len(values) == 8:
            fields = {f: self.as_bool(v) if f in ("saturating", "canonicalize") else self.as_bits(v).value
                      for f, v in zip(DATR_ARGUMENTS, values[1:])}
            return base.Obs("expect_tile_datr_legal", tile_op=operation, fields=fields, _key="value")
        return None

    def command_operands_legal(self, args, env):
        """CommandFormOperandsLegal(w, DecodeCommandForm(w, n)): the field
        constraints of the command form the ASL decode picks for w (by mask
        bits, as the runner finds it), checked by the model's decoder;
        CommandFormOperandsLegal(w, k): those of catalog form k."""
        form = self.eval(args[1], env)
        if isinstance(form, int) and not isinstance(form, bool):
            form_id = self.surface_form_id("command", form)
            length = next(f["length_bits"] for f in command_forms() if f["form_id"] == form_id)
            bits = base.fmt_instruction(self.as_bits(self.eval(args[0], env), 64), length)
            return base.Obs("expect_form_operands_legal", form_id=form_id, bits=bits, _key="value")
        decode = self.command_decode_of(form)
        if decode is None:
            return base.Opaque(["CommandFormOperandsLegal"])
        bits = base.fmt_instruction(self.as_bits(self.eval(args[0], env), 64), decode["length_bits"])
        if bits != decode["bits"]:
            return base.Opaque(["CommandFormOperandsLegal"])
        return base.Obs("expect_form_operands_legal", surface="command", bits=bits,
                        length_bits=decode["length_bits"], _key="value")

    @staticmethod
    def is_command_decode(v) -> bool:
        """DecodeCommandForm(w, n) == k is translated here (normalise names
        catalog command form k), not left omitted."""
        return False

    @staticmethod
    def command_decode_of(decoded) -> dict | None:
        """The step of a DecodeCommandForm(w, n) read (already an
        expect_no_form once the test asserted that some form matches)."""
        decode = decoded.params if isinstance(decoded, base.Obs) else getattr(decoded, "step", {})
        if decode.get("surface") != "command" or decode.get("op") not in ("expect_decode", "expect_no_form"):
            return None
        return decode

    def start_contract(self, fact: str, ident: str, args, env):
        """InstructionContractBranchTypeLegal_MN(bt): the decoder's constraint
        table on MN's word with BrType = bt (expect_form_operands_legal);
        ..Transfer_MN(bt) / ..Kind_MN(): the model's start-form table
        (expect_start_fact)."""
        forms = [f for f in command_forms() if f["mnemonic"].replace(".", "_") == ident]
        names = [f["name"] for f in forms[0]["fields"]] if len(forms) == 1 else []
        if len(forms) != 1 or (fact == "Kind") != (not args) or (args and names != ["BrType"]):
            return base.Opaque(["InstructionContract" + fact])
        form = forms[0]
        if fact == "Kind":
            return base.Obs("expect_start_fact", form_id=form["form_id"], fact="kind", _key="value")
        branch_type = self.as_int(self.eval(args[0], env))
        if fact == "Transfer":
            return base.Obs("expect_start_fact", form_id=form["form_id"], fact="transfer",
                            branch_type=branch_type, _key="value")
        bits = base.fmt_instruction(base.Bits(64, encode_command(form, {"BrType": branch_type})),
                                    form["length_bits"])
        return base.Obs("expect_form_operands_legal", form_id=form["form_id"], bits=bits, _key="value")

    def start_target(self, ident: str, args, env):
        """InstructionContractTarget_MN(pc, displacement): every form of MN
        with that simm12, executed at pc (expect_start_target)."""
        forms = [f for f in command_forms() if f["mnemonic"].replace(".", "_") == ident]
        if not forms or any([x["name"] for x in f["fields"]] != ["simm12"] for f in forms):
            return base.Opaque(["InstructionContractTarget"])
        pc = self.as_bits(self.eval(args[0], env), 64)
        displacement = self.as_bits(self.eval(args[1], env), 12).value
        words = [{"form_id": f["form_id"], "length_bits": f["length_bits"],
                  "bits": base.fmt_instruction(base.Bits(64, encode_command(f, {"simm12": displacement})),
                                               f["length_bits"])} for f in forms]
        return base.Obs("expect_start_target", pc=base.fmt(pc), words=words, _key="value")

    def eval_state_path(self, e, env):
        if e[0] == "field" and e[1] == ("id", "_BundleHint"):
            return base.Obs("expect_bundle_hint", field=e[2], _key="value")
        if e[0] == "field" and e[1] == ("id", "_FrameTemplate"):
            return base.Obs("expect_frame_template", field=e[2], _key="value")
        return super().eval_state_path(e, env)

    def assign(self, lhs, value, env):
        if lhs[0] == "field" and lhs[1] == ("id", "_SystemRegisters") and lhs[2] == "core_state":
            self.emit({"op": "set_core_state", "value": base.fmt(self.as_bits(value, 64))})
            return
        super().assign(lhs, value, env)

    def normalise(self, step, key, const):
        if step["op"] in ("expect_bpc", "expect_pe_gpr", "expect_reg5", "expect_start_target") or (
                step["op"].startswith("expect_last_") and isinstance(const, int)):
            return base.fmt(self.as_bits(const, 64))
        if step["op"] == "expect_predicate":
            return base.fmt(self.as_bits(const, 32))
        if step["op"] == "expect_decode" and step.get("surface") == "command" and key == "form_index":
            index = self.as_int(const)
            step["form_id"] = self.surface_form_id("command", index)
            return index
        if step["op"] == "expect_tepl_alias":
            if not step.get("canonical"):
                return self.as_bool(const)
            return enum_tail(const, "TileTEPLAlias_")
        if step["op"] == "expect_tile_start":
            if step["fact"] == "family":
                return enum_tail(const, "TileDecode_")
            if step["fact"] == "selects":
                return self.as_bool(const)
            return const.value if isinstance(const, base.Bits) else self.as_int(const)
        if step["op"] == "expect_sysreg_access":
            return enum_tail(const, "SystemRegisterAccess_")
        if step["op"] == "expect_tile_index_fact":
            if step["check"] == "decode":
                return self.as_int(const)
            if step["check"] in ("operand_present", "tepl_carrier"):
                return self.as_bool(const)
            prefix = {check: prefix for check, prefix in TILE_INDEX_FACTS.values()}[step["check"]]
            return enum_tail(const, prefix)
        if step["op"] == "expect_tile_datr_pad_union":
            return enum_tail(const, "TileDATRPadUnion_")
        if step["op"] == "expect_tile_datr_legal":
            return self.as_bool(const)
        if step["op"] == "expect_form_fact":
            return const.name if isinstance(const, base.EnumV) else const
        if step["op"] == "expect_start_fact":
            if not isinstance(const, base.EnumV):
                raise base.Unsupported("start fact is not an enumeration value")
            return const.name
        return super().normalise(step, key, const)


def translate(path: Path, rel: str, index, scalar_forms):
    """(point, None) or (None, reason)."""
    text = path.read_text()
    headers = base.HEADER_RE.findall(text)
    if len(headers) != 1:
        return None, "no single PTO-TEST header"
    header = json.loads(headers[0])
    try:
        prog = base.parse_program(text)
    except base.AslSyntaxError as exc:
        return None, f"syntax: {exc}"
    funcs = {item[1]: item for item in prog if item[0] == "func"}
    if "main" not in funcs:
        return None, "no main()"
    ex = BlockExecutor(index, {k: v for k, v in funcs.items() if k != "main"}, scalar_forms)
    try:
        ex.inline(funcs["main"], [], {})
        steps = base.finished_steps(ex.steps)
        if not any((s["op"].startswith("expect") and s["op"] != "expect_no_form"
                    and not (s["op"] == "expect_decode" and s.get("surface") == "command")) or "expect_status" in s
                   for s in steps):
            raise base.Unsupported("no architectural observation (decode-only or model-helper test)")
    except base.Unsupported as exc:
        return None, str(exc)
    point = {
        "avs_id": header["id"],
        "source": rel,
        "spec_source": header["source"],
        "kind": header["kind"],
        "expanded_from": sorted(set(ex.expanded)),
        "complete": not ex.omitted,
        "executes_instructions": any(s["op"] == "exec" for s in steps),
    }
    if ex.omitted:
        point["omitted_checks"] = dict(sorted(ex.omitted.items()))
    if ex.problems:
        point["problems"] = ex.problems
    point["steps"] = steps
    return point, None


def write_points(points, out: Path):
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        fh.write("[\n")
        for i, p in enumerate(points):
            head = {k: v for k, v in p.items() if k != "steps"}
            fh.write(json.dumps(head, separators=(",", ":"))[:-1] + ',"steps":[\n')
            for j, s in enumerate(p["steps"]):
                fh.write(" " + json.dumps(s, separators=(",", ":")))
                fh.write(",\n" if j + 1 < len(p["steps"]) else "\n")
            fh.write("]}" + (",\n" if i + 1 < len(points) else "\n"))
        fh.write("]\n")


def default_catalog_dir(spec: Path) -> Path:
    shared = Path("/work/shared/pto-spec-0.58.3/catalog")
    return shared if shared.is_dir() else spec / "spec/catalog"


# The spec checkout and catalogs of this run (run_extraction sets them from
# its options; translators that need catalog or ASL facts read them here).
SOURCES = {"spec": Path("/work/spec"), "catalog": default_catalog_dir(Path("/work/spec"))}


def run_extraction(argv, description: str, default_out: Path, directories, translate_point) -> int:
    """Translate every test point below `directories` with `translate_point`
    and write them to --out (shared by the block and bundle extractors)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--spec", type=Path, default=Path("/work/spec"))
    ap.add_argument("--generated", type=Path, default=None,
                    help="output of `generate-asl-decoders --kind monolithic` (default: run it)")
    ap.add_argument("--catalog-dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=default_out)
    ap.add_argument("--verbose", action="store_true", help="list every skipped test with its reason")
    args = ap.parse_args(argv)

    if args.catalog_dir is None:
        args.catalog_dir = default_catalog_dir(args.spec)
    SOURCES.update(spec=args.spec, catalog=args.catalog_dir)
    scalar_forms = json.loads((args.catalog_dir / "scalar-forms.json").read_text())["forms"]
    generated = args.generated.read_text() if args.generated else base.run_generator(args.spec)
    index = base.FunctionIndex(args.spec, generated)

    points, skipped = [], []
    per_dir: dict[str, Counter] = {d: Counter() for d in directories}
    reasons: Counter = Counter()
    for d in directories:
        for path in sorted((args.spec / "tests/asl" / d).rglob("*.asl")):
            rel = path.relative_to(args.spec).as_posix()
            per_dir[d]["total"] += 1
            point, reason = translate_point(path, rel, index, scalar_forms)
            if point is None:
                skipped.append((d, rel, reason))
                per_dir[d]["skipped"] += 1
                reasons[re.sub(r"\b0x[0-9a-f]+\b|\d+", "N", reason)] += 1
                continue
            points.append(point)
            per_dir[d]["translated"] += 1
            if "complete" in point:
                per_dir[d]["complete" if point["complete"] else "partial"] += 1

    points.sort(key=lambda p: p["source"])
    write_points(points, args.out)
    print(f"translated test points: {len(points)}")
    for d in directories:
        c = per_dir[d]
        if c["total"]:
            print(f"  {d:40s} total {c['total']:3d}  translated {c['translated']:3d} "
                  f"(complete {c['complete']}, partial {c['partial']})  skipped {c['skipped']}")
    print("skip reasons:")
    for r, n in reasons.most_common():
        print(f"  {n:4d}  {r}")
    if args.verbose:
        for d, rel, reason in skipped:
            print(f"SKIPPED {rel}: {reason}")
    problems = [f"{p['source']}: {x}" for p in points for x in p.get("problems", [])]
    for p in problems:
        print(f"PROBLEM: {p}")
    print(f"wrote {args.out}")
    return 1 if problems else 0


def main(argv=None) -> int:
    return run_extraction(argv, __doc__.split("\n")[0], _HERE.parent / "tests/data/spec_block_exec.json",
                          DIRECTORIES, translate)

if __name__ == "__main__":
    sys.exit(main())
