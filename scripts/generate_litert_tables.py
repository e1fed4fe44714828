#!/usr/bin/env python3
"""Regenerate ``helia_aot.litert.schema_tables`` (enums and table layouts) from the LiteRT schema.

A conversion reads a ``.tflite`` file with its own struct-level reader
(:mod:`helia_aot.converters.litert.unpack`), which needs only the enum values and, per table, each
field's name in the object API, its vtable slot, its kind and its default. The flatc bindings
(``schema_py_generated``, 1 MB of bytecode) hold the same facts spread over ~360 classes; importing
them cost every conversion 10-15 ms. This script reads ``schema.fbs`` itself and writes those facts
as plain data, so the conversion path never imports the bindings::

    python scripts/generate_litert_tables.py            # the bundled schema.fbs
    python scripts/generate_litert_tables.py --check    # exit 1 if the module is stale

The schema grammar read here is the subset ``schema.fbs`` uses: ``enum``, ``union``, ``table``
(no structs), ``//`` comments, ``(deprecated)`` and other attributes, scalar defaults. Fields are
named and defaulted as flatc's Python object API names them (``stride_w`` -> ``strideW``); a union
field ``x`` is two fields, ``xType`` (the tag, one slot) then ``x`` (the value, the next slot).
tests/core/test_litert_tables.py checks the output against schema.fbs and against the bindings.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LITERT_DIR = REPO / "helia_aot_core" / "src" / "helia_aot" / "litert"
DEFAULT_SCHEMA = LITERT_DIR / "schema.fbs"
DEFAULT_OUTPUT = LITERT_DIR / "schema_tables.py"

SCALARS: dict[str, str] = {
    "bool": "?",
    "byte": "b",
    "int8": "b",
    "ubyte": "B",
    "uint8": "B",
    "short": "h",
    "int16": "h",
    "ushort": "H",
    "uint16": "H",
    "int": "i",
    "int32": "i",
    "uint": "I",
    "uint32": "I",
    "long": "q",
    "int64": "q",
    "ulong": "Q",
    "uint64": "Q",
    "float": "f",
    "float32": "f",
    "double": "d",
    "float64": "d",
}
"""Schema scalar type -> its ``struct`` format character (little-endian reads)."""

_TOKEN = re.compile(
    r"\s*(?:(//[^\n]*)|([A-Za-z_][A-Za-z0-9_.]*)|(-?[0-9][0-9.eE+-]*)|(\"[^\"]*\")|(.))", re.S
)


def tokens(text: str) -> list[str]:
    """The schema's tokens, comments dropped."""
    out = []
    for match in _TOKEN.finditer(text):
        comment, word, number, string, other = match.groups()
        if comment is not None:
            continue
        token = word or number or string or other
        if token and not token.isspace():
            out.append(token)
    return out


def camel(name: str) -> str:
    """flatc's Python object-API attribute name of a schema field (``stride_w`` -> ``strideW``)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class Schema:
    """The enums, unions and tables of a schema, in declaration order."""

    def __init__(self) -> None:
        self.enums: dict[str, tuple[str, list[tuple[str, int]]]] = {}
        self.unions: dict[str, list[tuple[str, int]]] = {}
        self.tables: dict[str, list[tuple[str, str, bool, str | None]]] = {}


def _attributes(toks: list[str], i: int) -> tuple[set[str], int]:
    """Skip a ``( ... )`` attribute list at ``toks[i]``; return the attribute names and next index."""
    names: set[str] = set()
    if i < len(toks) and toks[i] == "(":
        depth = 0
        while True:
            if toks[i] == "(":
                depth += 1
            elif toks[i] == ")":
                depth -= 1
                if depth == 0:
                    return names, i + 1
            elif depth == 1 and toks[i - 1] in ("(", ","):
                names.add(toks[i])
            i += 1
    return names, i


def parse(text: str) -> Schema:
    toks = tokens(text)
    schema = Schema()
    i = 0
    while i < len(toks):
        word = toks[i]
        if word in ("namespace", "include", "file_identifier", "file_extension", "root_type", "attribute"):
            while toks[i] != ";":
                i += 1
            i += 1
        elif word == "enum":
            name, base = toks[i + 1], toks[i + 3]
            i += 4
            _, i = _attributes(toks, i)
            assert toks[i] == "{", (name, toks[i])
            i += 1
            members: list[tuple[str, int]] = []
            value = 0
            while toks[i] != "}":
                member = toks[i]
                i += 1
                if toks[i] == "=":
                    value = int(toks[i + 1])
                    i += 2
                _, i = _attributes(toks, i)
                members.append((member, value))
                value += 1
                if toks[i] == ",":
                    i += 1
            schema.enums[name] = (base, members)
            i += 1
        elif word == "union":
            name = toks[i + 1]
            i += 2
            _, i = _attributes(toks, i)
            assert toks[i] == "{", (name, toks[i])
            i += 1
            cases: list[tuple[str, int]] = []
            value = 1
            while toks[i] != "}":
                member = toks[i]
                i += 1
                _, i = _attributes(toks, i)
                cases.append((member, value))
                value += 1
                if toks[i] == ",":
                    i += 1
            schema.unions[name] = cases
            i += 1
        elif word == "table":
            name = toks[i + 1]
            i += 2
            _, i = _attributes(toks, i)
            assert toks[i] == "{", (name, toks[i])
            i += 1
            fields: list[tuple[str, str, bool, str | None]] = []
            while toks[i] != "}":
                field = toks[i]
                assert toks[i + 1] == ":", (name, field)
                i += 2
                if toks[i] == "[":
                    kind = "[" + toks[i + 1]
                    assert toks[i + 2] == "]"
                    i += 3
                else:
                    kind = toks[i]
                    i += 1
                default = None
                if toks[i] == "=":
                    default = toks[i + 1]
                    i += 2
                attributes, i = _attributes(toks, i)
                assert toks[i] == ";", (name, field, toks[i])
                i += 1
                fields.append((field, kind, "deprecated" in attributes, default))
            schema.tables[name] = fields
            i += 1
        else:
            raise SystemExit(f"schema token {word!r} not understood")
    return schema


def _default(schema: Schema, kind: str, text: str | None) -> object:
    """The object API's default of a scalar field of type ``kind`` (schema default ``text``)."""
    if kind in schema.enums:
        base, members = schema.enums[kind]
        if text is None:
            return 0
        named = dict(members)
        return named[text] if text in named else int(text)
    code = SCALARS[kind]
    if code == "?":
        return text == "true"
    if code in "fd":
        return float(text) if text is not None else 0.0
    return int(text) if text is not None else 0


def layouts(schema: Schema) -> dict[str, list[tuple[str, int, str, object]]]:
    """Table -> its object-API fields as (attribute, vtable slot, kind, default).

    Kinds: a ``struct`` format character (scalar), ``s`` (string), ``[`` + format (numpy vector),
    ``[s`` (vector of strings), ``t:Table`` (subtable), ``[t:Table`` (vector of tables),
    ``u:Union`` (union value; its tag is the ``B`` field before it).
    """
    out: dict[str, list[tuple[str, int, str, object]]] = {}
    for table, fields in schema.tables.items():
        rows: list[tuple[str, int, str, object]] = []
        slot = 4
        for field, kind, deprecated, default in fields:
            attr = camel(field)
            if kind in schema.unions:
                if not deprecated:
                    rows.append((attr + "Type", slot, "B", 0))
                    rows.append((attr, slot + 2, "u:" + kind, None))
                slot += 4
                continue
            if not deprecated:
                if kind.startswith("["):
                    element = kind[1:]
                    if element == "string":
                        code = "[s"
                    elif element in schema.tables:
                        code = "[t:" + element
                    elif element in schema.enums:
                        code = "[" + SCALARS[schema.enums[element][0]]
                    else:
                        code = "[" + SCALARS[element]
                    rows.append((attr, slot, code, None))
                elif kind == "string":
                    rows.append((attr, slot, "s", None))
                elif kind in schema.tables:
                    rows.append((attr, slot, "t:" + kind, None))
                elif kind in schema.enums:
                    rows.append((attr, slot, SCALARS[schema.enums[kind][0]], _default(schema, kind, default)))
                else:
                    rows.append((attr, slot, SCALARS[kind], _default(schema, kind, default)))
            slot += 2
        out[table] = rows
    return out


def _q(text: str) -> str:
    """A schema name as a double-quoted Python string (names are plain identifiers)."""
    return f'"{text}"'


def render(schema_path: Path) -> str:
    """The text of ``schema_tables.py`` for the schema at ``schema_path``."""
    text = schema_path.read_text()
    schema = parse(text)
    digest = hashlib.sha256(schema_path.read_bytes()).hexdigest()
    lines = [
        "# LiteRT schema facts for the struct-level reader: enum values, union cases, table layouts.",
        "#",
        f"# Schema sha256: {digest}",
        "# Generated from schema.fbs by: python scripts/generate_litert_tables.py (do not edit).",
        "# The schema is Copyright 2017 The TensorFlow Authors, licensed under Apache-2.0.",
        '"""Enum values, union cases and table layouts of the LiteRT schema, as plain data.',
        "",
        "What :mod:`helia_aot.converters.litert.unpack` needs to read a model without the flatc",
        "bindings (``schema_py_generated``, 1 MB of bytecode): the enum classes have the bindings'",
        "names and values; ``UNIONS`` maps a union's tag to its table; ``TABLES`` lists each table's",
        "object-API fields as (attribute, vtable slot, kind, default), kinds as described in",
        "``scripts/generate_litert_tables.py``.",
        '"""',
        "",
        "from __future__ import annotations",
    ]
    for name, (_, members) in schema.enums.items():
        lines += ["", "", f"class {name}:"]
        lines += [f"    {member} = {value}" for member, value in members]
    lines += ["", "", "UNIONS: dict[str, dict[int, str]] = {"]
    for name, cases in schema.unions.items():
        lines.append(f"    {_q(name)}: {{")
        lines += [f"        {value}: {_q(member)}," for member, value in cases]
        lines.append("    },")
    lines += ["}", '"""Union -> tag -> the table its value holds (tag 0, NONE, holds nothing)."""', ""]
    lines.append("TABLES: dict[str, tuple[tuple[str, int, str, object], ...]] = {")
    for table, rows in layouts(schema).items():
        cells = [f"({_q(attr)}, {slot}, {_q(kind)}, {default!r})" for attr, slot, kind, default in rows]
        # As ruff formats it (the module is linted like any other): short tuples on one line.
        one_line = f"    {_q(table)}: ({cells[0]},)," if len(cells) == 1 else f"    {_q(table)}: (),"
        if len(cells) <= 1 and len(one_line) <= 110:
            lines.append(one_line)
        else:
            lines.append(f"    {_q(table)}: (")
            lines += [f"        {cell}," for cell in cells]
            lines.append("    ),")
    lines += [
        "}",
        '"""Table -> its object-API fields as (attribute, vtable slot, kind, default), in order."""',
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA, help="schema.fbs to read")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="module to write")
    parser.add_argument(
        "--check", action="store_true", help="compare with the existing module instead of writing it"
    )
    args = parser.parse_args(argv)
    text = render(args.schema)
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale; rerun without --check", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output} ({len(text)} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
