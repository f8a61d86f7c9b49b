#!/usr/bin/env python3
"""Extract the data-type test points of the PTO spec into checks of the
numeric-format API.

Reads every test under ``tests/asl/arch/data-types`` of the read-only spec
checkout (``--spec``, default /work/spec) and symbolically executes its
``main()``: test-local functions are inlined, constant expressions are folded
(``Zeros{64} + 0x7f``, ``(Zeros{5} + code) as ...``, unrolled ``for`` loops,
boolean expressions over loop variables), and every call of a model function
stays symbolic.  Each assertion becomes one check comparing a symbolic model
call (or a field / tuple component of one) with the value the test wrote.
Nothing expected is computed here.  Output:
``tests/data/spec_datatype_vectors.json``, consumed by
``tests/unit/numerics_datatype_spec_test.cpp``, which maps every ASL function
name to the project's public numerics API.

Output schema (JSON array sorted by source)::

  {"avs_id": "...", "source": "tests/asl/...", "spec_source": "asl/...",
   "kind": "boundary", "inlined": ["AssertNumericFiniteDecomposition", ...],
   "checks": [{"actual": EXPR, "expected": EXPR [, "negate": true]}, ...]}

  EXPR   true | false | <integer>
       | {"bits": "0x..", "width": N}       a bit vector (hex, no padding)
       | {"enum": "NumericValue_QuietNaN"}  an enumeration value
       | {"real": 0.5}                      a real literal
       | {"call": "TileNumericValueClass", "args": [EXPR, ...]}
       | {"field": "has_zero", "of": EXPR}  record field of a call result
       | {"item": K, "of": EXPR}            K-th component of a tuple result

The format units themselves (``asl/arch/data-types/formats/*.asl``) add one
record each (``"unit_id"`` instead of ``"avs_id"``, kind ``format-table``):
every field of the unit's ``NumericFormatDescriptor`` record literal and its
constant ``*CanonicalNaN()`` / ``*SignedZeroEncodings()`` results, copied as
written, as checks of ``TileNumericFormatDescriptor``,
``TileNumericCanonicalNaN`` and ``HardwareNumericSignedZeroEncodings``.

Test points whose ``main()`` only asserts ``TRUE`` are static invariants
(the unit compiles); test points that drive model state (reset, system
registers, trap banks) are not data-type checks and are reported with the
reason.  ``translate()`` is also used by tools/spec_coverage.py.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, str(Path(__file__).resolve().parent))
from extract_asl_subset import AslSyntaxError, Parser  # noqa: E402

HEADER_RE = re.compile(r"^//\s*PTO-TEST:\s*(\{.*\})\s*$", re.MULTILINE)
DIRECTORY = "arch/data-types"
# Points elsewhere whose checks are numeric-format functions only (after a
# ResetProfileState, which those functions do not read).
EXTRA_POINTS = ("arch/profile/reference-profile/arch-exec-concrete-value-classes-003.asl",)
CONSTANTS = {"PTO_XLEN": 64}
# Model calls that change or read model state rather than compute a value of
# a numeric format: a point using them is not a data-type check.
STATE_CALLS = frozenset({
    "ResetProfileState", "SetCurrentACR", "ClearFault", "SetFault", "WriteTPC", "WriteBPC",
    "WriteSystemRegisterAddress", "ReadSystemRegisterAddress", "SaveTrapContext",
    "RecoverTrapContext", "RaiseServiceRequest", "RaiseInterrupt", "CurrentACR", "ReadTPC",
    "PTOv0ReadContextRegister",
})


class Unsupported(Exception):
    pass


def state_call(name: str) -> Unsupported:
    return Unsupported(f"model state call {name} (trap or system-register state, not a numeric format)")


class DataTypeParser(Parser):
    """The shared subset parser plus tuple ``let`` and real literals."""

    def parse_statement(self):
        if self.at("let") and self.at("(", 1):
            self.take("let")
            self.take("(")
            names = [self.take()]
            while self.at(","):
                self.take(",")
                names.append(self.take())
            self.take(")")
            self.take("=")
            init = self.parse_expr()
            self.take(";")
            return ("let_tuple", names, init)
        return super().parse_statement()

    def parse_primary(self):
        kind, v = self.peek()
        if kind == "num" and self.at(".", 1) and self.peek(2)[0] == "num":
            self.i += 3
            return ("real", float(f"{v}.{self.toks[self.i - 1][1]}"))
        return super().parse_primary()


class Bits:
    __slots__ = ("width", "value")

    def __init__(self, width: int, value: int):
        self.width = width
        self.value = value & ((1 << width) - 1)


class Enum:
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class Sym:
    """A model-function result (or part of one), kept symbolic."""

    def __init__(self, tree: dict):
        self.tree = tree


def to_json(v):
    if isinstance(v, (bool, int)):
        return v
    if isinstance(v, float):
        return {"real": v}
    if isinstance(v, Bits):
        return {"bits": hex(v.value), "width": v.width}
    if isinstance(v, Enum):
        return {"enum": v.name}
    if isinstance(v, Sym):
        return v.tree
    raise Unsupported(f"value {v!r}")


def same(a, b) -> bool:
    return to_json(a) == to_json(b)


class Evaluator:
    """Runs a test's main(): folds constants, inlines the test's own
    functions, keeps model calls symbolic and records assertions as checks.
    Boolean results of ``==``/``!=``/``!``/``&&`` on model values are tuples
    ("cmp", negate, a, b) / ("not", v) / ("and", a, b) until asserted."""

    def __init__(self, funcs: dict):
        self.funcs = funcs
        self.checks: list[dict] = []
        self.inlined: list[str] = []
        self.problems: list[str] = []

    # -- expressions ------------------------------------------------------
    def eval(self, e, env):
        tag = e[0]
        if tag in ("int", "bool", "real"):
            return e[1]
        if tag == "bits":
            return Bits(e[1], e[2])
        if tag == "id":
            name = e[1]
            if name in env:
                return env[name]
            if name in CONSTANTS:
                return CONSTANTS[name]
            if re.match(r"^[A-Z][A-Za-z0-9]*_[A-Za-z0-9_]+$", name):
                return Enum(name)
            raise Unsupported(f"unknown identifier {name}")
        if tag == "tcall" and e[1] in ("Zeros", "Ones"):
            width = self.as_int(self.eval(e[2][0], env))
            return Bits(width, 0 if e[1] == "Zeros" else -1)
        if tag == "call":
            return self.call(e[1], [self.eval(a, env) for a in e[3]])
        if tag == "field":
            base = self.eval(e[1], env)
            if not isinstance(base, Sym):
                raise Unsupported(f"field {e[2]} of a constant")
            return Sym({"field": e[2], "of": base.tree})
        if tag == "as":
            return self.eval(e[1], env)
        if tag == "unop":
            return self.unop(e[1], self.eval(e[2], env))
        if tag == "binop":
            return self.binop(e[1], self.eval(e[2], env), self.eval(e[3], env))
        raise Unsupported(f"expression {tag}")

    @staticmethod
    def as_int(v) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise Unsupported(f"integer expected, got {v!r}")
        return v

    def call(self, name, args):
        if name in STATE_CALLS:
            raise state_call(name)
        if name in self.funcs:
            return self.inline(self.funcs[name], args)
        return Sym({"call": name, "args": [to_json(a) for a in args]})

    def unop(self, op, v):
        if op in ("!", "NOT") and isinstance(v, bool):
            return not v
        if op == "-" and isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
        if isinstance(v, Sym) and op == "!":
            return ("not", v)
        raise Unsupported(f"unary {op} of {v!r}")

    def binop(self, op, a, b):
        if op == "&&":
            return a and b if isinstance(a, bool) and isinstance(b, bool) else ("and", a, b)
        if op in ("==", "!="):
            if isinstance(a, Sym) or isinstance(b, Sym):
                return ("cmp", op == "!=", a, b)
            return same(a, b) != (op == "!=")
        if op == "||" and isinstance(a, bool) and isinstance(b, bool):
            return a or b
        if isinstance(a, Bits) and isinstance(b, int) and op in ("+", "-"):
            return Bits(a.width, a.value + b if op == "+" else a.value - b)
        if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
            folds = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                     "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b,
                     ">=": lambda: a >= b}
            if op in folds:
                return folds[op]()
        raise Unsupported(f"binary {op} of {type(a).__name__} and {type(b).__name__}")

    # -- assertions -------------------------------------------------------
    def check(self, v):
        """Turn an asserted value into checks (conjunctions split)."""
        if isinstance(v, tuple) and v[0] == "and":
            self.check(self.truth(v[1]))
            self.check(self.truth(v[2]))
            return
        v = self.truth(v)
        if isinstance(v, bool):
            if not v:
                self.problems.append("constant assertion is false")
            return
        _, negate, a, b = v
        actual, expected = (a, b) if isinstance(a, Sym) else (b, a)
        c = {"actual": to_json(actual), "expected": to_json(expected)}
        if negate:
            c["negate"] = True
        self.checks.append(c)

    @staticmethod
    def truth(v):
        """A boolean-valued model result on its own asserts it is TRUE."""
        if isinstance(v, Sym):
            return ("cmp", False, v, True)
        if isinstance(v, tuple) and v[0] == "not":
            return ("cmp", False, v[1], False)
        if isinstance(v, (bool, tuple)):
            return v
        raise Unsupported(f"assertion on {v!r}")

    # -- statements -------------------------------------------------------
    def inline(self, func, args):
        _, name, params, body, _ = func
        if len(params) != len(args):
            raise Unsupported(f"{name}: {len(args)} arguments for {len(params)} parameters")
        self.inlined.append(name)
        try:
            self.run(body, dict(zip(params, args)))
        except Returned as r:
            return r.value
        return None

    def run(self, body, env):
        for stmt in body:
            self.stmt(stmt, env)

    def stmt(self, s, env):
        tag = s[0]
        if tag == "let":
            env[s[1]] = self.eval(s[2], env)
        elif tag == "let_tuple":
            value = self.eval(s[2], env)
            if not isinstance(value, Sym):
                raise Unsupported("tuple let of a constant")
            for k, n in enumerate(s[1]):
                if n != "-":
                    env[n] = Sym({"item": k, "of": value.tree})
        elif tag == "assert":
            self.check(self.eval(s[1], env))
        elif tag == "call_stmt":
            e = s[1]
            if e[0] == "call" and e[1] == "ResetProfileState" and not e[2]:
                return  # the format functions read no model state: nothing to reset
            if e[0] != "call" or e[1] not in self.funcs:
                raise state_call(e[1] if e[0] == "call" else e[0])
            self.eval(e, env)
        elif tag == "for":
            _, var, lo, hi, downto, body = s
            lo, hi = self.as_int(self.eval(lo, env)), self.as_int(self.eval(hi, env))
            for i in (range(lo, hi - 1, -1) if downto else range(lo, hi + 1)):
                self.run(body, {**env, var: i})
        elif tag == "if":
            for cond, body in s[1]:
                c = self.eval(cond, env)
                if not isinstance(c, bool):
                    raise Unsupported("data-dependent if")
                if c:
                    self.run(body, env)
                    return
            self.run(s[2], env)
        elif tag == "return":
            raise Returned(None if s[1] is None else self.eval(s[1], env))
        else:
            raise Unsupported(f"statement {tag}")


class Returned(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


def is_static(funcs: dict) -> bool:
    main = funcs.get("main")
    return main is not None and len(funcs) == 1 and all(
        s in (("assert", ("bool", True)), ("return", ("int", 0))) for s in main[3])


def translate(path: Path, rel: str):
    """(point, None) or (None, reason)."""
    text = path.read_text()
    headers = HEADER_RE.findall(text)
    if len(headers) != 1:
        return None, "no single PTO-TEST header"
    header = json.loads(headers[0])
    try:
        prog = DataTypeParser(text).parse_program()
    except AslSyntaxError as exc:
        return None, f"syntax: {exc}"
    funcs = {item[1]: item for item in prog if item[0] == "func"}
    if "main" not in funcs:
        return None, "no main()"
    if is_static(funcs):
        return None, "static invariant: the unit compiles"
    ev = Evaluator({k: v for k, v in funcs.items() if k != "main"})
    try:
        ev.inline(funcs["main"], [])
    except Unsupported as exc:
        return None, str(exc)
    if not ev.checks:
        return None, "no check on a model function"
    point = {
        "avs_id": header["id"],
        "source": rel,
        "spec_source": header["source"],
        "kind": header["kind"],
        "inlined": sorted(set(ev.inlined) - {"main"}),
    }
    if ev.problems:
        point["problems"] = ev.problems
    point["checks"] = ev.checks
    return point, None


UNIT_RE = re.compile(r"^//\s*PTO-UNIT:\s*(\{.*\})\s*$", re.MULTILINE)
DESCRIPTOR_RE = re.compile(r"func (\w+)NumericFormatDescriptor\(\)\s*=>\s*NumericFormatDescriptor\s*begin\s*"
                           r"return NumericFormatDescriptor \{(.*?)\};", re.DOTALL)
CANONICAL_NAN_RE = re.compile(r"func \w+CanonicalNaN\(\)\s*=>\s*Word\s*begin\s*"
                              r"return Zeros\{PTO_XLEN\} \+ (0x[0-9a-fA-F]+);")
SIGNED_ZERO_RE = re.compile(r"func \w+SignedZeroEncodings\(\)\s*=>\s*\(Word, Word\)\s*begin\s*"
                            r"return \(Zeros\{PTO_XLEN\}, Zeros\{PTO_XLEN\} \+ (0x[0-9a-fA-F]+)\);")


def literal(text: str):
    """A field value of a record literal: boolean, integer or enumeration."""
    text = text.strip()
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if re.fullmatch(r"\d+", text):
        return int(text)
    if re.fullmatch(r"[A-Z][A-Za-z0-9]*_\w+", text):
        return Enum(text)
    raise Unsupported(f"record field value {text!r}")


def format_table(path: Path, rel: str):
    """The constant tables of one format unit as checks (see the docstring)."""
    text = path.read_text()
    unit = UNIT_RE.findall(text)
    desc = DESCRIPTOR_RE.search(text)
    if len(unit) != 1 or desc is None:
        raise Unsupported(f"{rel}: no PTO-UNIT header or descriptor")
    data_type = {"enum": "TileDataType_" + desc.group(1)}
    checks = []

    def check(call: str, select: dict, expected):
        checks.append({"actual": {**select, "of": {"call": call, "args": [data_type]}},
                       "expected": to_json(expected)})

    for field in desc.group(2).split(","):
        name, value = field.split("=")
        check("TileNumericFormatDescriptor", {"field": name.strip()}, literal(value))
    nan = CANONICAL_NAN_RE.search(text)
    if nan:
        check("TileNumericCanonicalNaN", {"item": 0}, True)
        check("TileNumericCanonicalNaN", {"item": 1}, Bits(64, int(nan.group(1), 16)))
    zero = SIGNED_ZERO_RE.search(text)
    if zero:
        check("HardwareNumericSignedZeroEncodings", {"item": 0}, True)
        check("HardwareNumericSignedZeroEncodings", {"item": 1}, Bits(64, 0))
        check("HardwareNumericSignedZeroEncodings", {"item": 2}, Bits(64, int(zero.group(1), 16)))
    return {"unit_id": json.loads(unit[0])["id"], "source": rel, "kind": "format-table", "checks": checks}


def write_points(points, out: Path):
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        fh.write("[\n")
        for i, p in enumerate(points):
            head = {k: v for k, v in p.items() if k != "checks"}
            fh.write(json.dumps(head, separators=(",", ":"))[:-1] + ',"checks":[\n')
            for j, c in enumerate(p["checks"]):
                fh.write(" " + json.dumps(c, separators=(",", ":")))
                fh.write(",\n" if j + 1 < len(p["checks"]) else "\n")
            fh.write("]}" + (",\n" if i + 1 < len(points) else "\n"))
        fh.write("]\n")


def called_functions(tree, out: Counter):
    if isinstance(tree, dict):
        if "call" in tree:
            out[tree["call"]] += 1
        for v in tree.values():
            called_functions(v, out)
    elif isinstance(tree, list):
        for v in tree:
            called_functions(v, out)


def main(argv=None) -> int:
    root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", type=Path, default=Path("/work/spec"))
    ap.add_argument("--out", type=Path, default=root / "tests/data/spec_datatype_vectors.json")
    args = ap.parse_args(argv)

    points, skipped = [], []
    paths = sorted((args.spec / "tests/asl" / DIRECTORY).rglob("*.asl"))
    for path in paths + [args.spec / "tests/asl" / extra for extra in EXTRA_POINTS]:
        rel = path.relative_to(args.spec).as_posix()
        point, reason = translate(path, rel)
        if point is None:
            skipped.append((rel, reason))
        else:
            points.append(point)
    points.sort(key=lambda p: p["source"])
    tables = [format_table(path, path.relative_to(args.spec).as_posix())
              for path in sorted((args.spec / "asl" / DIRECTORY / "formats").glob("*.asl"))]
    write_points(points + tables, args.out)

    calls: Counter = Counter()
    called_functions([p["checks"] for p in points], calls)
    static = [r for r in skipped if r[1].startswith("static invariant")]
    print(f"translated {len(points)} points ({sum(len(p['checks']) for p in points)} checks), "
          f"{len(static)} static invariants, {len(skipped) - len(static)} not translated; "
          f"{len(tables)} format tables ({sum(len(t['checks']) for t in tables)} checks)")
    for rel, reason in skipped:
        if not reason.startswith("static invariant"):
            print(f"NOT TRANSLATED {rel}: {reason}")
    print("model functions: " + ", ".join(f"{k}={v}" for k, v in sorted(calls.items())))
    problems = [f"{p['source']}: {x}" for p in points for x in p.get("problems", [])]
    for p in problems:
        print(f"PROBLEM: {p}")
    print(f"wrote {args.out}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
