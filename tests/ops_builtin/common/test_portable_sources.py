"""The kernel library's file rule: portable reference C in ``hk_<family>.c``, Helium in
``hk_<family>_mve.c``, the DSP extension in ``hk_<family>_dsp.c`` (plain C for cores with neither
in ``hk_<family>_scalar.c``).

KernelLibrary (helia_aot.pack.kernel_library) copies a family's header, its reference source and
its fast-path files into a module; each fast-path file is wrapped in its ``#if`` and compiles to
nothing on the other cores. The reference file is what every path must match byte for byte, and
the file a reader opens to learn what a kernel computes, so it holds no instruction-set code: no
Helium or DSP intrinsic or vector type, no ACLE feature macro (hk_isa.h is the one place that
reads them) and no inline assembly. It may still dispatch to a fast path under ``#if
HK_HAVE_MVE`` / ``HK_HAVE_DSP`` by calling a function a fast-path file defines (as hk_conv.c
hands calls to hk_conv_s8_fast).

This test reads every family's reference source with comments removed and fails on any such
token, naming the file, the line and what to do.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helia_aot.pack.kernel_library import FAST_PATHS, KernelLibrary
from helia_aot_ops_builtin.families import KERNEL_PATH

FORBIDDEN = {
    "inline assembly": re.compile(r"\b(?:__asm__|__asm|asm)\s*(?:volatile\s*|__volatile__\s*)?\("),
    "an ACLE feature macro (hk_isa.h reads them)": re.compile(r"\b__ARM_FEATURE_(?:MVE|DSP|SIMD32)\b"),
    "an intrinsics header": re.compile(r"#\s*include\s*<(?:arm_mve|arm_acle)\.h>"),
    "a Helium vector or predicate type": re.compile(
        r"\b(?:u?int(?:8x16|16x8|32x4|64x2)|float(?:16x8|32x4))(?:x[234])?_t\b|\bmve_pred16_t\b"
    ),
    "a Helium intrinsic": re.compile(r"\bv[a-z0-9]+q(?:_[a-z0-9]+)*\s*\(|\bvctp(?:8|16|32|64)q\b"),
    "a DSP (SIMD32) intrinsic": re.compile(
        r"\b__(?:smla|smls|smua|smus|smmul|smmla|smul|sxt|uxt|ssub|sadd|usub|uadd|usad|sel|qadd|"
        r"qsub|qasx|qsax|shadd|shsub|uhadd|uhsub|uqadd|uqsub|ssat|usat|pkh|sasx|ssax|uasx|usax)\w*\s*\("
    ),
}
"""What a reference source must not hold, by what it is."""

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


def without_comments(text: str) -> str:
    """``text`` with C comments blanked out, newlines kept (so line numbers stay right)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def reference_sources(*search_path: Path) -> list[Path]:
    """Each family's ``hk_<family>.c`` (a header-only family has none)."""
    library = KernelLibrary(*search_path)
    found = []
    for family in library.families():
        path = library.family_folder(family) / f"hk_{family}.c"
        if path.is_file():
            found.append(path)
    return found


def violations(path: Path) -> list[str]:
    """``file:line: what`` for each forbidden token in ``path``'s code."""
    text = without_comments(path.read_text(encoding="utf-8"))
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in FORBIDDEN.items():
            if pattern.search(line):
                found.append(f"{path.name}:{number}: {what}: {line.strip()}")
    return found


def test_fast_path_suffixes_are_the_ones_the_library_copies() -> None:
    assert FAST_PATHS == ("mve", "dsp", "scalar")


def test_the_rule_finds_what_it_forbids(tmp_path: Path) -> None:
    """Each pattern catches its kind (else the main test could pass by matching nothing), and
    comments are ignored."""
    (tmp_path / "hk_demo.h").write_text("#include <stdint.h>\n")
    (tmp_path / "hk_demo.c").write_text(
        "/* vldrbq_s8(x) and __asm__( in a comment are fine */\n"
        '__asm__ volatile("nop");\n'
        "#if defined(__ARM_FEATURE_MVE)\n"
        "#include <arm_mve.h>\n"
        "int32x4_t v = vdupq_n_s32(0);\n"
        "a = __smlabb(x, w, a);\n"
        "#endif\n"
    )
    (tmp_path / "hk_demo_mve.c").write_text("int32x4_t v = vdupq_n_s32(0);\n")
    sources = reference_sources(tmp_path)
    assert sources == [tmp_path / "hk_demo.c"]
    kinds = {line.split(": ")[1] for line in violations(sources[0])}
    assert kinds == set(FORBIDDEN), kinds
    assert not any(":1:" in line for line in violations(sources[0]))


@pytest.mark.parametrize("path", reference_sources(*KERNEL_PATH), ids=lambda p: p.name)
def test_reference_sources_hold_no_instruction_set_code(path: Path) -> None:
    found = violations(path)
    assert not found, (
        "instruction-set code in a portable reference source:\n  "
        + "\n  ".join(found)
        + f"\nmove it to {path.stem}_mve.c (Helium) or {path.stem}_dsp.c (DSP extension), each "
        "wrapped in its #if HK_HAVE_MVE / HK_HAVE_DSP, and call it from the reference through a "
        "function declared in the family's paths header (hk_depthwise_paths.h shows the form)"
    )
