"""Build-and-run support for the block-by-block tests of the kernels' inline assembly.

A block test calls one assembly block directly (its ``HK_NOINLINE`` function and its state
struct are static in their kernel file), so its program includes that kernel file instead of
linking it, and links the rest of the file's families. Every case writes into a buffer filled
with a sentinel byte and compares the whole buffer, so a store to the wrong place fails as
surely as a wrong value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helia_aot_ops_builtin.families import kernel_file as kernel_file_path

from ops_builtin.support.cross_check import kernel_c_files, run_program_sources

SENTINEL = 0x5A
"""The byte every output buffer starts as; a store the reference does not make shows up."""


def c_array(ctype: str, name: str, values: np.ndarray | list[int], *, const: bool = True) -> str:
    """A 16-byte aligned static C array of ``values`` (at least one element)."""
    flat = [int(v) for v in np.asarray(values).reshape(-1)]
    body = ", ".join(str(v) for v in flat) or "0"
    qualifier = "static const" if const else "static"
    return f"{qualifier} {ctype} {name}[{max(len(flat), 1)}] __attribute__((aligned(16))) = {{{body}}};\n"


def block_program(kernel_file: str, cases: list[str], calls: list[str]) -> str:
    """A program that includes ``kernel_file``, defines the cases' data and runs ``calls`` (one
    C block per case that sets ``bad`` when its output differs), printing the ISA path and the
    count of cases that differ (what check_program reads)."""
    lines = [
        "#include <stdio.h>",
        "#include <string.h>",
        "#include <stdint.h>",
        f'#include "{kernel_file}" /* the block under test is static there */',
        "",
        *cases,
        "int main(void)",
        "{",
        '    printf("path %s\\n", HK_ISA_PATH);',
        "    int differ = 0;",
    ]
    for call in calls:
        lines += ["    {", "        int bad = 0;", call, "        differ += bad;", "    }"]
    lines += [
        f'    printf("%d of {len(calls)} cases differ\\n", differ);',
        "    return 0;",
        "}",
        "",
    ]
    return "\n".join(lines)


def run_blocks(
    kernel_file: str,
    families: tuple[str, ...],
    cases: list[str],
    calls: list[str],
    work: Path,
    path: tuple[str, tuple[str, ...], str],
) -> None:
    """Build the block program with the families' sources except ``kernel_file`` (included by
    the program) and assert that none of its cases differ."""
    text = block_program(kernel_file, cases, calls)
    skipped = kernel_file_path(kernel_file)
    sources = [p for p in kernel_c_files(*families) if p != skipped]
    source = work / "main.c"
    source.write_text(text)
    run = run_program_sources(source, sources, work, path)
    assert f"0 of {len(calls)} cases differ" in run.stdout, run.stdout
