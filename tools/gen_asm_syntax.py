#!/usr/bin/env python3
"""Derive the assembly operand syntax of every catalog form.

Reads the catalog `asm` templates and field lists
(../shared/pto-spec-0.58.3/catalog/{scalar,command}-forms.json, or --spec DIR)
and writes src/asm/generated/asm_syntax.inc: constexpr `Item`/`Suffix`/`Implied`
arrays and one `FormSyntax` per catalog form (indexed by form, catalog order),
with every field name resolved to its index here, so the assembler and the
disassembler (src/asm/syntax.cpp, docs/assembly.md) parse nothing at run time.
A template this script cannot derive, or a derived syntax naming a field the
form lacks, stops the script with an error instead of producing a table.

Each form is first derived as a syntax description, "SUFFIXES|ITEMS"
(structure() then resolves it):
  SUFFIXES (space separated, appended to the mnemonic):
    ord:<fields>        memory-order suffix from aq/rl/far (.aq .rl .aqrl .f ...)
    ft:<SrcType>        floating type suffix .d/.s
    cvt:<SrcType>:<DstType>  conversion suffix .<src>2<dst>
    lvl:<model>         prefetch level .l1/.l2/.l3
    flags:<letters>     queue flags (.e .i .r .s .h combinations)
  ITEMS (';' separated; '[' prefix / ']' suffix mark memory brackets):
    r:F   Reg5 source (GPR name, t#k, u#k)        g:F  GPR 0..23 only
    d:F   '->' Reg5 destination                    d2:F second destination
    dg:F  '->' GPR destination (0..23)
    i:F   integer                                   l:F:base:shift  label
    x:F:T:S:M0/M1/M2/M3  shifted register (SrcR.sw<<3); S is the shamt field,
                        '=N' for the form's fixed scale (<<N) or '-'; Mv spells SrcRType value v
                        ('' = no modifier), per the ASL right-modifier decoder
                        of the form's unit (see RIGHT_MODIFIER_ORDER)
    k:TEXT literal                                  e:F:n0/n1/..  named values
    n:F   keyword operand F=value                   dt:F data type name
    o:F   optional keyword operand F=value (a field the template does not show;
          omitted when zero)
    tile:F  Local tile source (T#1..N#16)          dtile:F:S  ->T<SizeCode>
    mask:F  PE mask (mask=1111)                     last:F  optional 'last'
    ios:F:S B.IOS shared tile operand               ~  register range
    a:F,F,..  attribute list (B.DATR, B.FPATR) in template order; written
          'a:{F,..}' when the template braces it.  Values print symbolically
          (src/asm/attributes.cpp); input also takes Field=value and names.
Fields not shown by the template whose constraint allows exactly one value are
implied (encoded with that value, never printed).
"""
import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT.parent / "shared" / "pto-spec-0.58.3" / "catalog"
OUT_DIR = ROOT / "src" / "asm" / "generated"
SYNTAX_FILE, VARIANTS_FILE = "asm_syntax.inc", "asm_variants.inc"

REG_NAMES = {"srcl": "SrcL", "srcr": "SrcR", "srcd": "SrcD", "srca": "SrcA", "srcp": "SrcP", "srcd1": "SrcD1"}

# Hand-written syntax for command forms whose templates are prose-like.
OVERRIDES_BY_TEMPLATE = {
    "B.IOR [<gpr>[, <gpr>[, <gpr>]]][, -><gpr>]": "|g:RegSrc0;g:RegSrc1;g:RegSrc2;dg:RegDst",
    "B.IOT SrcTile0, mask=PE_MASK, <last>, ->DstTile<SizeCode>": "|tile:SrcTile0;mask:PEMode;last:L;dtile:DstTile:SizeCode",
    "B.IOT SrcTile0, SrcTile1, mask=PE_MASK, <last>": "|tile:SrcTile0;tile:SrcTile1;mask:PEMode;last:L",
    "B.IOT SrcTile0, SrcTile1, mask=PE_MASK, <last>, ->DstTile<SizeCode>": "|tile:SrcTile0;tile:SrcTile1;mask:PEMode;last:L;dtile:DstTile:SizeCode",
    "B.IOT SrcTile0, mask=PE_MASK, <last>": "|tile:SrcTile0;mask:PEMode;last:L",
    "B.IOT mask=PE_MASK, <last>, ->DstTile<SizeCode>": "|mask:PEMode;last:L;dtile:DstTile:SizeCode",
    "B.IOS S<SharedTID>, mask=<PE_MASK> | B.IOS mask=<PE_MASK>, ->S<SharedTID><SizeCode>": "|ios:SharedTID:SizeCode:PEMode",
    "B.HINT TRACE.{begin, end}": "|e:B/E:TRACE.begin/TRACE.end",
    "C.B.DIMI imm, ->{LB0, LB1, LB2}": "|i:imm8;e:LoopNest:->LB0/->LB1/->LB2",
    "C.BSTART.FP {FALL, IND, RET}": "|e:BrType:/FALL////IND//RET",
    "C.BSTART.STD {FALL, IND, RET}": "|e:BrType:/FALL////IND//RET",
    "BSTART.TEPL Mode, Function, DataType": "|i:Mode;i:Function;dt:DataType",
        # The return target is P + 2 + 2*uimm5: relative to the embedded C.SETRET
    # halfword (asl/block/model/dispatch/start.asl, length_bits DIV 8 - 2).
    "BSTART.CALL <br_label>, <rt_label>, ->ra": "|l:simm12:P:1;l:uimm5:P2:1;k:->ra",
    "BSTART.ICALL <rt_label>, ->ra": "|l:uimm5:P2:1;k:->ra",
    "FRET.STK [ra ~ RegDstn], sp!, uimm": "|[g:DstBegin;~;g:DstEnd];k:sp!;i:uimm",
    "hl.qmt[.{i,e,s,r,ie,is,ir,es,er,ies,ier}] SrcL[, SrcR when i], ->RegDst": "flags:i,e,s,r|r:SrcL;r:SrcR;d:RegDst",
    "hl.qpop[.{e,r,er}] SrcL, ->RegDst0, RegDst1": "flags:e,r|r:SrcL;d:RegDst0;d2:RegDst1",
    "hl.qpush[.{h,e,r,he,hr,er,her}] SrcL, SrcR, ->RegDst": "flags:h,e,r|r:SrcL;r:SrcR;d:RegDst",
}

# SrcRType spelling by raw value for each ASL right-modifier decoder
# (asl/scalar/model/dispatch/decode.asl): X stands for the form's .neg/.not.
RIGHT_MODIFIER_ORDER = {
    "binary": ("sw", "uw", "X", ""),      # DecodeScalarBinaryRightModifier (ALU)
    "comparison": ("", "sw", "uw", "X"),  # DecodeScalarComparisonRightModifier (BRU)
    # DecodeScalarSelectRightModifier (CSEL) gives 01/10 no effect; they keep
    # the .sw/.uw spellings so every encoding has its own text (round trip).
    "select": ("", "sw", "uw", "X"),
    "address": ("", "sw", "uw", "X"),     # DecodeScalarAddressRightModifier (AGU)
}


def right_modifier_decoder(form):
    family, handler = form["semantic_family"], form["semantic_handler"]
    if family == "AGU":
        return "address"
    if family == "BRU":
        return "comparison"
    if handler == "ScalarConditionalSelect":
        return "select"
    if handler in ("ScalarBinary", "ScalarBinaryW"):
        return "binary"
    raise ValueError(f"no SrcRType decoder known for {form['form_id']}")


def right_modifier_names(form, template_modifiers):
    # A decoder's third modifier the template does not list (CMP.EQ .neg)
    # decodes to no effect (ApplyRestrictedCompareModifier); it is still
    # spelled .neg so that encoding has its own text (round trip).
    third = "not" if ".not" in template_modifiers else "neg"
    return "/".join(third if n == "X" else n for n in RIGHT_MODIFIER_ORDER[right_modifier_decoder(form)])


NAMED_KEYWORD_MNEMONICS = {"B.CATR", "XB"}
# Attribute commands whose template lists every field positionally
# (`B.DATR {layout, datatype, ...}`, `B.FPATR PreQuantMode, ReluMode, ...`).
ATTRIBUTE_LIST_MNEMONICS = {"B.DATR", "B.FPATR"}


def attribute_list(form):
    """'a:' item of an attribute command: its template's field order."""
    _, _, rest = form["asm"].partition(" ")
    rest = rest.strip()
    braces = rest.startswith("{") and rest.endswith("}")
    by_key = {n.lower().replace("_", ""): n for n in field_names(form)}
    fields = [by_key[w.strip().lower().replace("_", "")] for w in rest.strip("{}").split(",")]
    listed = ",".join(fields)
    return "|a:" + ("{" + listed + "}" if braces else listed)


def split_top(s, sep=","):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def implied_fields(form, shown):
    out = set()
    for c in form["constraints"]:
        if c.get("operator", c.get("kind")) in ("one-of",) and len(c.get("values", [])) == 1 and c["field"] not in shown:
            out.add(c["field"])
    return out


def field_names(form):
    return [f["name"] for f in form["fields"]]


def label_spec(form, field):
    m = form["mnemonic"]
    if m.endswith(".PCR"):
        return f"l:{field}:P4:2"
    return f"l:{field}:P:1"


def is_label_form(form):
    m = form["mnemonic"]
    t = form["asm"]
    return m.endswith(".PCR") or m == "J" or (
        m.startswith(("BSTART", "C.BSTART")) and ("label" in t.lower()))


def suffixes(form, head):
    names = field_names(form)
    out = []
    order = [f for f in ("aq", "rl", "far") if f in names]
    if order and "<." in head:
        out.append("ord:" + ",".join(order))
    if "{srcT2dstT}" in head:
        out.append("cvt:SrcType:DstType")
    elif "{T}" in head:
        out.append("ft:SrcType")
    if "{.l1,.l2,.l3}" in head:
        out.append("lvl:model")
    return out


def item_for(piece, form, used):
    names = field_names(form)
    low = {n.lower(): n for n in names}
    p = piece.strip()

    def take(n):
        used.add(n)
        return n

    if p in ("->{t, u, Rd}", "{->t, ->u, ->Rd}", "->RegDst", "->Rd"):
        return "d:" + take("RegDst") if "RegDst" in names else "k:->t"
    if p == "->Dst0":
        return "d:" + take("RegDst0")
    if p == "Dst1":
        return "d2:" + take("RegDst1")
    if p in ("->t", "->ra", "->Ra", "sp!", "t#1", "DIRECT", "COND", "FALL", "IND", "RET") or p.startswith("->LB"):
        return "k:" + {"->Ra": "->ra"}.get(p, p)
    m = re.match(r"^(SrcR)(<.*?>|<\{.*?\}>)?(<<<shamt>|<<\d)?$", p, re.I)
    if m and (m.group(2) or m.group(3)):
        t = take("SrcRType") if "SrcRType" in names else "-"
        mods = right_modifier_names(form, m.group(2) or "") if t != "-" else "-"
        fixed = re.match(r"^<<(\d)$", m.group(3) or "")
        s = take("shamt") if "shamt" in names and m.group(3) == "<<<shamt>" else f"={fixed.group(1)}" if fixed else "-"
        return f"x:{take('SrcR')}:{t}:{s}:{mods}"
    if p.lower() in REG_NAMES or p.lower() in low and p.lower().startswith("src"):
        f = REG_NAMES.get(p.lower(), low.get(p.lower()))
        if f in names:
            return "r:" + take(f)
    if re.match(r"^RegSrc\d?$", p) or p in ("BasePtr",):
        return "g:" + take(p)
    m = re.match(r"^RegSrc(\d)=\w+$", p)
    if m:
        return "g:" + take("RegSrc" + m.group(1))
    if p in ("M", "N"):
        cands = [n for n in ("imml", "immr", "imms") if n in names and n not in used]
        if cands:
            return "i:" + take(cands[0])
    if p in ("DataType",):
        return "dt:" + take("DataType")
    imm_like = re.match(r"^<?(simm|uimm|imm|label|symbol|br_label|rt_label|pred_imm|succ_imm|rst_type|rra_type|shamt|SSR-ID|SSR_ID|LSR_ID)>?$", p, re.I)
    if imm_like:
        word = imm_like.group(1).lower()
        direct = {"pred_imm": "PRED_IMM", "succ_imm": "SUCC_IMM", "rst_type": "RST_Type", "rra_type": "RRA_Type",
                  "shamt": "shamt", "ssr-id": "SSRID", "ssr_id": "SSR_ID", "lsr_id": "LSR_ID"}
        if word in direct:
            f = direct[word]
            if f not in names and word == "ssr-id":
                f = "SSRID"
            return "i:" + take(f)
        cands = [n for n in names if n not in used and re.match(r"^(simm|uimm|imm)\d*$", n)]
        if not cands:
            return None
        f = take(cands[0])
        if form["mnemonic"] != "JR" and (word in ("label", "symbol", "br_label", "rt_label") or is_label_form(form)):
            return label_spec(form, f)
        return "i:" + f
    return None


def memory_items(inner, form, used):
    parts = split_top(inner)
    items = []
    for p in parts:
        it = item_for(p, form, used)
        if it is None:
            return None
        items.append(it)
    items[0] = "[" + items[0]
    items[-1] = items[-1] + "]"
    return items


def derive(form):
    t = form["asm"]
    if t in OVERRIDES_BY_TEMPLATE:
        return OVERRIDES_BY_TEMPLATE[t]
    names = field_names(form)
    if form["mnemonic"] in ATTRIBUTE_LIST_MNEMONICS:
        return attribute_list(form)
    if form["mnemonic"] in NAMED_KEYWORD_MNEMONICS or form["mnemonic"] == "B.HINT":
        shown = [n for n in names]
        implied = implied_fields(form, set())
        items = []
        for n in shown:
            if n in implied:
                continue
            items.append(("dt:" if n == "DataType" else "n:") + n)
        return "|" + ";".join(items)
    t = re.sub(r"<(\.[a-z]+(?:, *\.[a-z]+)*)>", lambda m: "<{" + m.group(1).replace(" ", "") + "}>", t)
    t = re.sub(r"<\.\{[^}]*\}>", lambda m: m.group(0).replace(" ", ""), t)
    head, _, rest = t.partition(" ")
    if form["mnemonic"] in ("FENTRY", "FEXIT", "FRET.RA"):
        b, e = ("SrcBegin", "SrcEnd") if "SrcBegin" in names else ("DstBegin", "DstEnd")
        return f"|[g:{b};~;g:{e}];k:sp!;i:uimm"
    if form["mnemonic"] in ("MCOPY", "MSET", "ESAVE", "ERCOV"):
        return "|[g:RegSrc0;g:RegSrc1;g:RegSrc2]"
    if form["mnemonic"] == "B.DIM":
        return "|g:RegSrc;i:uimm17;k:" + rest.split(",")[-1].strip()
    used = set()
    sfx = suffixes(form, head)
    for s in sfx:
        for f in s.split(":")[1:]:
            for g in f.split(","):
                used.add(g)
    items = []
    for p in split_top(rest):
        if p.startswith("[") and p.endswith("]"):
            mi = memory_items(p[1:-1], form, used)
            if mi is None:
                return None
            items += mi
            continue
        it = item_for(p, form, used)
        if it is None:
            return None
        items.append(it)
    implied = implied_fields(form, used)
    for n in names:
        if n not in used and n not in implied:
            items.append("o:" + n)
    return " ".join(sfx) + "|" + ";".join(items)


class TemplateError(Exception):
    """A derived syntax names something the form does not have."""


ITEM_KINDS = {
    "r": "Reg", "g": "Gpr", "d": "Dst", "d2": "Dst2", "dg": "DstGpr", "i": "Imm", "l": "Label",
    "x": "Shifted", "k": "Literal", "e": "Enum", "n": "Named", "o": "Named", "dt": "DType",
    "tile": "Tile", "dtile": "DTile", "mask": "Mask", "last": "Last", "ios": "Ios", "a": "Attrs",
}
LABEL_BASES = {"P": "P", "P4": "P4", "P2": "P2"}


def field_index(form, name):
    """Index of a named field in the form's field list; '-' or '' is none (-1)."""
    if name in ("-", ""):
        return -1
    names = field_names(form)
    if name not in names:
        raise TemplateError(f"{form['form_id']}: syntax names unknown field {name}")
    return names.index(name)


def structure_item(form, spec):
    """One syntax item as a dict of the C++ `Item` members it sets."""
    it = {}
    if spec.startswith("["):
        it["open"], spec = True, spec[1:]
    if spec.endswith("]"):
        it["close"], spec = True, spec[:-1]
    if spec == "~":
        return {"kind": "Range", **it}
    kind, _, rest = spec.partition(":")
    if kind not in ITEM_KINDS:
        raise TemplateError(f"{form['form_id']}: bad syntax item '{spec}'")
    it = {"kind": ITEM_KINDS[kind], **it}
    if kind == "o":  # a field the template does not show: omitted when zero
        it["optional"] = True
    parts = rest.split(":")
    part = lambda i: parts[i] if i < len(parts) else ""
    k = it["kind"]
    if k == "Literal":
        it["text"] = rest
    elif k == "Enum":
        it["f0"] = field_index(form, part(0))
        it["names"] = rest[len(part(0)) + 1:].split("/")
    elif k == "Label":
        it["f0"] = field_index(form, part(0))
        if part(1) not in LABEL_BASES or not part(2).isdigit():
            raise TemplateError(f"{form['form_id']}: bad label item '{spec}'")
        it["base"], it["shift"] = LABEL_BASES[part(1)], int(part(2))
    elif k == "Attrs":
        braces = rest.startswith("{") and rest.endswith("}")
        it["list"] = [field_index(form, n) for n in (rest[1:-1] if braces else rest).split(",")]
        if braces:
            it["braces"] = True
    elif k == "Shifted":
        it["f0"], it["f1"] = field_index(form, part(0)), field_index(form, part(1))
        if part(2).startswith("="):  # the form's fixed offset scale, e.g. SW [SrcL, SrcR<<2]
            it["shift"] = int(part(2)[1:])
        else:
            it["f2"] = field_index(form, part(2))
        if it["f1"] >= 0:
            it["names"] = part(3).split("/")
            if len(it["names"]) != 4:
                raise TemplateError(f"{form['form_id']}: SrcRType needs 4 modifier spellings")
    else:
        for i, key in enumerate(("f0", "f1", "f2")):
            it[key] = field_index(form, part(i))
    return it


def structure_suffix(form, spec):
    kind, _, rest = spec.partition(":")
    if kind == "ord":  # aq, rl, far; -1 for the ones the form lacks
        names = field_names(form)
        return {"kind": "Order", "fields": [names.index(n) if n in names else -1 for n in ("aq", "rl", "far")]}
    if kind in ("ft", "cvt", "lvl"):
        return {"kind": {"ft": "FType", "cvt": "Cvt", "lvl": "Level"}[kind],
                "fields": [field_index(form, n) for n in rest.split(":")]}
    if kind == "flags":
        letters = rest.split(",")
        return {"kind": "Flags", "fields": [field_index(form, n) for n in letters], "letters": "".join(letters)}
    raise TemplateError(f"{form['form_id']}: bad suffix '{spec}'")


def conditional_field(form, item):
    """Flag field a Reg item is written with ("SrcR when i" in HL.QMT): without
    the flag the item may be omitted (value zero)."""
    if item["kind"] != "Reg" or item.get("f0", -1) < 0:
        return None
    key = field_names(form)[item["f0"]] + " when "
    at = form["asm"].find(key)
    if at < 0:
        return None
    m = re.match(r"[A-Za-z]*", form["asm"][at + len(key):])
    return field_index(form, m.group(0))


def structure(form, spec):
    """The form's syntax (suffixes, items, implied fields) with field indices resolved."""
    sfx, _, items = spec.partition("|")
    suffixes = [structure_suffix(form, s) for s in sfx.split(" ")] if sfx else []
    items = [structure_item(form, s) for s in items.split(";")] if items else []
    for it in items:
        if form["mnemonic"] == "B.IOR":  # operands may be omitted from the end (ADR 0055: they encode zero)
            it["optional"] = True
        when = conditional_field(form, it)
        if when is not None:
            it["when"] = when
    shown = {i for it in items for i in [it.get("f0", -1), it.get("f1", -1), it.get("f2", -1)] + it.get("list", [])}
    shown |= {i for s in suffixes for i in s["fields"]}
    # Fields that no item or suffix shows, fixed by a one-value constraint.
    implied = [(field_index(form, c["field"]), c["values"][0]) for c in form["constraints"]
               if c["operator"] == "one-of" and len(c["values"]) == 1 and field_index(form, c["field"]) not in shown]
    return suffixes, items, implied


def cxx_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Emitter:
    """Named constexpr arrays, one per distinct content, shared by the forms."""

    def __init__(self):
        self.lines, self.names = [], {}

    def array(self, prefix, ctype, elements):
        if not elements:
            return "{}"
        body = ", ".join(elements)
        key = (ctype, body)
        if key not in self.names:
            self.names[key] = f"k{prefix}{sum(1 for k in self.names if k[0] == ctype)}"
            self.lines.append(f"constexpr {ctype} {self.names[key]}[] = {{{body}}};")
        return self.names[key]


ITEM_MEMBERS = ("kind", "f0", "f1", "f2", "base", "shift", "open", "close", "optional", "when", "text", "names",
                "list", "braces")
ITEM_DEFAULTS = {"f0": -1, "f1": -1, "f2": -1, "base": "P", "shift": 0, "open": False, "close": False,
                 "optional": False, "when": -1, "text": "", "names": [], "list": [], "braces": False}


def cxx_item(em, it):
    out = []
    for m in ITEM_MEMBERS:
        v = it.get(m, ITEM_DEFAULTS.get(m))
        if m != "kind" and v == ITEM_DEFAULTS[m]:
            continue
        if m == "kind":
            v = f"ItemKind::{v}"
        elif m == "base":
            v = f"LabelBase::{v}"
        elif isinstance(v, bool):
            v = "true" if v else "false"
        elif m == "text":
            v = cxx_string(v)
        elif m == "names":
            v = em.array("Names", "std::string_view", [cxx_string(n) for n in v])
        elif m == "list":
            v = em.array("Fields", "std::int8_t", [str(i) for i in v])
        out.append(f".{m} = {v}")
    return "{" + ", ".join(out) + "}"


def cxx_suffix(em, s):
    out = [f".kind = SuffixKind::{s['kind']}", ".fields = " + em.array("Fields", "std::int8_t", [str(i) for i in s["fields"]])]
    if "letters" in s:
        out.append(".letters = " + cxx_string(s["letters"]))
    return "{" + ", ".join(out) + "}"


def write_syntax(out, forms, syntaxes):
    em = Emitter()
    rows = []
    for f, (suffixes, items, implied) in zip(forms, syntaxes):
        members = []
        if suffixes:
            members.append(".suffixes = " + em.array("Suffixes", "Suffix", [cxx_suffix(em, s) for s in suffixes]))
        if items:
            members.append(".items = " + em.array("Items", "Item", [cxx_item(em, it) for it in items]))
        if implied:
            members.append(".implied = " + em.array("Implied", "Implied", [f"{{{i}, {v}}}" for i, v in implied]))
        rows.append(f"    {{{', '.join(members)}}},  // {f['form_id']}: {f['asm']}")
    (out / SYNTAX_FILE).write_text("// Generated by tools/gen_asm_syntax.py from the catalog asm templates; do not edit.\n"
                   "// Operand syntax of every catalog form, indexed by isa::FormIndex (catalog order).\n"
                   + f"constexpr std::size_t kWidestFormFields = {max(len(f['fields']) for f in forms)};\n"
                   + "\n".join(em.lines) + "\n"
                   + "constexpr FormSyntax kSyntax[] = {\n" + "\n".join(rows) + "\n};\n")
    print(f"wrote {len(rows)} forms to {out / SYNTAX_FILE}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", type=Path, default=CATALOG.parent,
                    help=f"directory with catalog/ (default {CATALOG.parent})")
    ap.add_argument("--out", type=Path, default=OUT_DIR, help=f"output directory (default {OUT_DIR})")
    args = ap.parse_args()
    catalog = args.spec / "catalog"
    forms = []
    for name in ("scalar-forms.json", "command-forms.json"):
        forms += json.load(open(catalog / name))["forms"]
    syntaxes, failed = [], []
    for f in forms:
        s = derive(f)
        try:
            if s is None:
                raise TemplateError(f"{f['form_id']}: cannot derive syntax for '{f['asm']}'")
            syntaxes.append(structure(f, s))
        except TemplateError as e:
            failed.append(str(e))
    if failed:
        print("bad asm syntax:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    write_syntax(args.out, forms, syntaxes)
    write_variants(args.out, forms)
    return 0


def write_variants(out, forms):
    """Catalog `encoding_variants`: words that decode as their carrier form
    (BSTART.TMOV functions 9..12, BSTART.TSTORE 14) but have their own
    spelling, BSTART.<variant name>."""
    rows = []
    for f in forms:
        for v in f.get("encoding_variants", []):
            (enc,) = v["encoding"]
            rows.append(f'{{"{f["form_id"]}", "BSTART.{v["name"]}", {enc["mask"]}u, {enc["match"]}u}},')
    (out / VARIANTS_FILE).write_text("// Generated by tools/gen_asm_syntax.py from the catalog encoding_variants; do not edit.\n"
                            "// {carrier form_id, mnemonic, mask, match}\n" + "\n".join(rows) + "\n")
    print(f"wrote {len(rows)} encoding variants to {out / VARIANTS_FILE}")


if __name__ == "__main__":
    sys.exit(main())
