#!/usr/bin/env python3
"""Tiny parser for the subset of ASL used by the PTO spec's AVS test files.

Used by tools/extract_exec_vectors.py.  It only builds a syntax tree; it has
no knowledge of the PTO model.  Unsupported syntax raises ``AslSyntaxError``.

Tree nodes are tuples ``(tag, ...)``:

  expressions
    ("int", n) ("bits", width, value) ("bool", b) ("str", s) ("id", name)
    ("call", name, params_or_None, [args])    # name{params}(args)
    ("tcall", name, params)                   # name{params} without args
    ("field", expr, name) ("index", expr, idx)  # a.b  a[[i]]
    ("slice", expr, [(hi, lo) | ("+:", lo, width)])
    ("unop", op, expr) ("binop", op, l, r) ("ifexpr", cond, a, b)
    ("as", expr) ("concat", [exprs])
  statements
    ("var", [names], init_or_None) ("let", name, init) ("assign", lhs, rhs)
    ("assert", expr) ("return", expr_or_None) ("call_stmt", expr)
    ("discard", expr)                         # "- = expr;"
    ("for", var, lo, hi, downto, body) ("if", [(cond, body)], else_body)
  top level
    ("func", name, [params], body, qualifiers)
"""

from __future__ import annotations

import re

TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<bits>'[01 ]*')
  | (?P<str>"[^"]*")
  | (?P<num>0x[0-9A-Fa-f_]+|\d[\d_]*)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\[\[|\]\]|==|!=|<=|>=|&&|\|\||\+:|=>|\.\.|<<|>>|\+\+|[-+*/<>=!(){}\[\],;:.])
    """,
    re.VERBOSE | re.DOTALL,
)


class AslSyntaxError(Exception):
    pass


def tokenize(text: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise AslSyntaxError(f"bad character at {text[pos:pos + 30]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        out.append((kind, m.group(kind)))
    out.append(("eof", ""))
    return out


KEYWORD_BINOPS = {"AND", "OR", "XOR", "DIV", "MOD", "DIVRM", "EOR", "IN"}


class Parser:
    def __init__(self, text: str):
        self.toks = tokenize(text)
        self.i = 0

    # -- token helpers -------------------------------------------------
    def peek(self, k: int = 0) -> tuple[str, str]:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, value: str, k: int = 0) -> bool:
        kind, v = self.peek(k)
        return v == value and kind in ("op", "id")

    def take(self, value: str | None = None) -> str:
        kind, v = self.peek()
        if value is not None and v != value:
            raise AslSyntaxError(f"expected {value!r}, found {v!r} near {self.context()}")
        self.i += 1
        return v

    def context(self) -> str:
        return " ".join(v for _, v in self.toks[max(0, self.i - 6): self.i + 6])

    def skip_until(self, stops: set[str]) -> None:
        """Skip a type expression up to a depth-0 stop token."""
        depth = 0
        while True:
            kind, v = self.peek()
            if kind == "eof":
                raise AslSyntaxError("unexpected end while skipping a type")
            if depth == 0 and v in stops and kind == "op":
                return
            if v in "([{":
                depth += 1
            elif v in ")]}":
                depth -= 1
            elif v in ("[[",):
                depth += 1
            elif v in ("]]",):
                depth -= 1
            if depth < 0:
                return
            self.i += 1

    # -- top level -----------------------------------------------------
    def parse_program(self) -> list:
        items = []
        while self.peek()[0] != "eof":
            quals = []
            while self.peek()[1] in ("pure", "readonly", "impdef", "implementation", "noreturn"):
                quals.append(self.take())
            if self.at("func"):
                items.append(self.parse_func(quals))
            elif self.at("constant") or self.at("var") or self.at("let"):
                items.append(self.parse_statement())
            elif self.at("type"):
                # type declarations: skip to ';' at depth 0
                self.take()
                self.skip_until({";"})
                self.take(";")
            else:
                raise AslSyntaxError(f"unexpected top-level token near {self.context()}")
        return items

    def parse_func(self, quals: list[str]):
        self.take("func")
        name = self.take()
        params = []
        self.take("(")
        while not self.at(")"):
            pname = self.take()
            self.take(":")
            self.skip_until({",", ")"})
            params.append(pname)
            if self.at(","):
                self.take(",")
        self.take(")")
        if self.at("=>"):
            self.take("=>")
        while not self.at("begin"):
            self.i += 1
        self.take("begin")
        body = self.parse_block({"end"})
        self.take("end")
        self.take(";")
        return ("func", name, params, body, quals)

    def parse_block(self, terminators: set[str]) -> list:
        out = []
        while not any(self.at(t) for t in terminators):
            if self.peek()[0] == "eof":
                raise AslSyntaxError("unexpected end of input in block")
            out.append(self.parse_statement())
        return out

    def parse_statement(self):
        if self.at("var") or self.at("constant"):
            self.take()
            names = [self.take()]
            while self.at(","):
                self.take(",")
                names.append(self.take())
            if self.at(":"):
                self.take(":")
                self.skip_until({"=", ";"})
            init = None
            if self.at("="):
                self.take("=")
                init = self.parse_expr()
            self.take(";")
            return ("var", names, init)
        if self.at("let"):
            self.take("let")
            name = self.take()
            if self.at(":"):
                self.take(":")
                self.skip_until({"="})
            self.take("=")
            init = self.parse_expr()
            self.take(";")
            return ("let", name, init)
        if self.at("assert"):
            self.take("assert")
            e = self.parse_expr()
            self.take(";")
            return ("assert", e)
        if self.at("return"):
            self.take("return")
            e = None if self.at(";") else self.parse_expr()
            self.take(";")
            return ("return", e)
        if self.at("for"):
            self.take("for")
            var = self.take()
            self.take("=")
            lo = self.parse_expr()
            direction = self.take()
            if direction not in ("to", "downto"):
                raise AslSyntaxError(f"bad for loop near {self.context()}")
            hi = self.parse_expr()
            if self.at("looplimit"):
                self.take()
                self.parse_expr()
            self.take("do")
            body = self.parse_block({"end"})
            self.take("end")
            self.take(";")
            return ("for", var, lo, hi, direction == "downto", body)
        if self.at("if"):
            self.take("if")
            arms = []
            cond = self.parse_expr()
            self.take("then")
            body = self.parse_block({"elsif", "else", "end"})
            arms.append((cond, body))
            else_body = []
            while True:
                if self.at("elsif"):
                    self.take()
                    cond = self.parse_expr()
                    self.take("then")
                    body = self.parse_block({"elsif", "else", "end"})
                    arms.append((cond, body))
                elif self.at("else"):
                    self.take()
                    else_body = self.parse_block({"end"})
                else:
                    break
            self.take("end")
            self.take(";")
            return ("if", arms, else_body)
        if self.at("begin"):
            self.take()
            body = self.parse_block({"end"})
            self.take("end")
            self.take(";")
            return ("if", [(("bool", True), body)], [])
        if self.at("-") and self.at("=", 1):
            self.take("-")
            self.take("=")
            e = self.parse_expr()
            self.take(";")
            return ("discard", e)
        if self.peek()[1] in ("case", "while", "repeat", "try", "throw"):
            raise AslSyntaxError(f"unsupported statement {self.peek()[1]!r}")
        lhs = self.parse_expr()
        if self.at("="):
            self.take("=")
            rhs = self.parse_expr()
            self.take(";")
            return ("assign", lhs, rhs)
        self.take(";")
        return ("call_stmt", lhs)

    # -- expressions ---------------------------------------------------
    def parse_expr(self):
        if self.at("if"):
            self.take("if")
            cond = self.parse_expr()
            self.take("then")
            a = self.parse_expr()
            if self.at("elsif"):
                # rewrite elsif chain into nested ifexpr
                self.toks[self.i] = ("id", "if")
                b = self.parse_expr()
                return ("ifexpr", cond, a, b)
            self.take("else")
            b = self.parse_expr()
            return ("ifexpr", cond, a, b)
        return self.parse_binary(0)

    LEVELS = [
        {"||"},
        {"&&"},
        {"==", "!=", "<", ">", "<=", ">="},
        {"+", "-", "OR", "XOR", "EOR", "++"},
        {"*", "/", "DIV", "MOD", "DIVRM", "AND", "<<", ">>"},
    ]

    def parse_binary(self, level: int):
        if level == len(self.LEVELS):
            return self.parse_unary()
        left = self.parse_binary(level + 1)
        while True:
            kind, v = self.peek()
            if v in self.LEVELS[level] and kind in ("op", "id"):
                self.take()
                right = self.parse_binary(level + 1)
                left = ("binop", v, left, right)
            else:
                return left

    def parse_unary(self):
        if self.at("!") or self.at("-") or self.at("NOT"):
            op = self.take()
            return ("unop", op, self.parse_unary())
        return self.parse_postfix(self.parse_primary())

    def parse_postfix(self, e):
        while True:
            if self.at("."):
                self.take(".")
                e = ("field", e, self.take())
            elif self.at("[["):
                self.take("[[")
                idx = self.parse_expr()
                self.take("]]")
                e = ("index", e, idx)
            elif self.at("["):
                self.take("[")
                slices = []
                while True:
                    a = self.parse_expr()
                    if self.at(":"):
                        self.take(":")
                        slices.append((a, self.parse_expr()))
                    elif self.at("+:"):
                        self.take("+:")
                        slices.append(("+:", a, self.parse_expr()))
                    else:
                        slices.append((a, a))
                    if self.at(","):
                        self.take(",")
                        continue
                    break
                self.take("]")
                e = ("slice", e, slices)
            elif self.at("as"):
                self.take("as")
                self.take()  # type name
                if self.at("{"):
                    self.take("{")
                    self.skip_until({"}"})
                    self.take("}")
                elif self.at("("):
                    self.take("(")
                    self.skip_until({")"})
                    self.take(")")
                e = ("as", e)
            else:
                return e

    def parse_args(self, close: str) -> list:
        args = []
        while not self.at(close):
            args.append(self.parse_expr())
            if self.at(","):
                self.take(",")
            else:
                break
        self.take(close)
        return args

    def parse_primary(self):
        kind, v = self.peek()
        if kind == "bits":
            self.take()
            lit = v.strip("'").replace(" ", "")
            return ("bits", len(lit), int(lit, 2) if lit else 0)
        if kind == "num":
            self.take()
            return ("int", int(v.replace("_", ""), 0))
        if kind == "str":
            self.take()
            return ("str", v[1:-1])
        if v == "(" and kind == "op":
            self.take("(")
            e = self.parse_expr()
            if self.at(","):
                raise AslSyntaxError("tuples are not supported")
            self.take(")")
            return e
        if v == "[" and kind == "op":
            self.take("[")
            return ("concat", self.parse_args("]"))
        if kind == "id":
            self.take()
            if v in ("TRUE", "FALSE"):
                return ("bool", v == "TRUE")
            params = None
            if self.at("{") and re.match(r"^[A-Z]", v):
                self.take("{")
                params = self.parse_args("}")
            if self.at("("):
                self.take("(")
                return ("call", v, params, self.parse_args(")"))
            if params is not None:
                return ("tcall", v, params)
            return ("id", v)
        raise AslSyntaxError(f"unexpected token {v!r} near {self.context()}")


def parse_program(text: str) -> list:
    return Parser(text).parse_program()
