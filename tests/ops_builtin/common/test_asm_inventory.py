"""Every inline assembly block of the kernel library has a named randomized test, and none reads
a struct member through a literal offset.

BLOCKS lists each function (or macro) of the kernels folder that holds an ``asm`` statement and
the test module that checks it against the reference under QEMU (hypothesis over shapes and
values, built for the paths where the block is compiled: the M55 at -O2, and -O0 where the
block builds there, the M4 and the M55 without Helium for DSP blocks). The scan below finds the
blocks in the sources, so a new block fails here until it is listed with its test, a listed
test must name the block it covers (its docstring says which), and a removed block must leave
the list. The state-struct blocks (unfolded_*_asm, conv_quads_asm's CONV_QUADS_FORMS, ui_group,
the hk_fc_blocks8 loops) read their structs through ``offsetof`` immediate operands (``[r0, %[len]]``); an
address ``[rN, #imm]`` with a literal register and offset is what those used to be, so any left
in assembly text fails too (stack slots, ``[sp, #imm]``, and offsets from named operands, which
step through data, are not struct members).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helia_aot_ops_builtin.families import KERNEL_PATH

HERE = Path(__file__).resolve().parent

BLOCKS: dict[str, str] = {
    # hk_conv_unfolded_mve.c (goal size's convolution)
    "unfolded_chunk": "test_conv_unfolded_hypothesis.py",
    "unfolded_pw_asm": "test_asm_unfolded_blocks.py",
    "unfolded_rows_asm": "test_asm_unfolded_blocks.py",
    "unfolded_lone_asm": "test_asm_unfolded_blocks.py",
    # hk_conv_unfolded_im2col_mve.c
    "UI_DOT4X2_RUN": "test_conv_unfolded_im2col_hypothesis.py",
    "ui_dot4x2_edge": "test_conv_unfolded_im2col_hypothesis.py",
    "ui_rows2": "test_conv_unfolded_im2col_hypothesis.py",
    "ui_group": "test_conv_unfolded_im2col_hypothesis.py",
    # hk_conv_mve.c, hk_conv_im2col_mve.c, hk_conv_dsp.c
    "conv_groups_asm_mve": "test_conv_pairs_hypothesis.py",
    "conv_pair4_mve": "test_conv_pairs_hypothesis.py",
    "conv_quad2_mve": "test_conv_quads_hypothesis.py",
    "CONV_QUADS_FORMS": "test_conv_quads_hypothesis.py",
    "im2col_dot4x2": "test_conv_im2col_hypothesis.py",
    "im2col_dot4x2_q": "test_conv_im2col_hypothesis.py",
    "im2col_dot4x2_pipe": "test_conv_im2col_hypothesis.py",
    "conv_dots2_s8": "test_dsp_fast_paths.py",
    "conv_dots2_q30_body": "test_conv_q30_dsp_hypothesis.py",
    "conv_pairs_q30_asm": "test_conv_q30_dsp_hypothesis.py",
    "HK_CONV_TAPS_PAIRS": "test_conv_q30_dsp_hypothesis.py",
    "conv_widen2_rows_s8": "test_conv_q30_dsp_hypothesis.py",
    # hk_depthwise_mve.c
    "dw_taps3x3_mve": "test_depthwise_rows_hypothesis.py",
    "dw_taps3x3_pair_mve": "test_depthwise_rows_hypothesis.py",
    "dw_edge_taps_mve": "test_depthwise_rows_hypothesis.py",
    "DW_POST_FUNCTIONS": "test_depthwise_rows_hypothesis.py",
    # hk_depthwise_dsp.c
    "dw3x3_window": "test_depthwise_3x3_dsp_hypothesis.py",
    "dw3x3_row_asm": "test_depthwise_3x3_dsp_hypothesis.py",
    "dw_edge_asm": "test_depthwise_3x3_dsp_hypothesis.py",
    # hk_fully_connected_mve.c, hk_fc_dot.h, hk_fc_requant.h
    "fc_requant4": "test_fc_blocks_hypothesis.py",
    "fc_output8_mve": "test_fc_blocks_hypothesis.py",
    "fc_output8_int_mve": "test_fc_blocks_hypothesis.py",
    "HK_FC_BLOCKS8_FUNCTION": "test_fc_blocks_hypothesis.py",
    "hk_fc_dot8_packed_s8": "test_fc_blocks_hypothesis.py",
    "hk_fc_dot4_packed_s8": "test_fc_pool_binary_paths.py",
    "hk_fc_dot4_widened_s8": "test_fc_pool_binary_paths.py",
    "hk_fc_odd": "test_fc_pool_binary_paths.py",
    "hk_fc_vcvta": "test_fc_pool_binary_paths.py",
    # DSP helpers: hk_pool_dsp.c, hk_binary_scalar.c, hk_binary_wide_dsp.c, hk_requant.h, hk_simd.h
    "pool_sxtab16_odd": "test_fc_pool_binary_paths.py",
    "binary_srdhm": "test_fc_pool_binary_paths.py",
    "binary_smmlar": "test_dsp_fast_paths.py",
    "fc_output_int_s8": "test_dsp_fast_paths.py",
    "ADD_HALF_BLOCK": "test_dsp_fast_paths.py",
    "wide_smmulr": "test_wide_fast_paths.py",
    "hk_doubling_high_q30": "test_wide_fast_paths.py",
    "hk_sxtb16_odd": "test_dsp_fast_paths.py",
    "hk_sxtab16_odd": "test_dsp_fast_paths.py",
    # hk_onnx_requant.h: VCVTR on a core with a single-precision FPU
    "hk_onnx_rne": "test_onnx_requant_fast_paths.py",
}
"""Function or macro holding an asm block -> the test module that checks it."""

NO_INSTRUCTIONS = {"HK_COMPILER_BARRIER"}
"""Blocks with an empty template (a compiler barrier): nothing to execute, nothing to test."""

_ASM = re.compile(r"\b(?:__asm__|__asm|asm)\s*(?:volatile\s*|__volatile__\s*)?\(")
_REGISTER_VARIABLE = re.compile(r'\b__asm__\s*\(\s*"(?:r\d+|lr|ip|sp)"\s*\)')
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_MACRO = re.compile(r"^#\s*define\s+(\w+)")
_FUNCTION = re.compile(r"^(?![#/*{}])(?:[A-Za-z_][\w\s\*]*?)\b(\w+)\s*\([^;]*$")
_LITERAL_MEMBER = re.compile(r"\[(?:r\d+|lr|ip), #-?\d+\]")


def _code(text: str) -> str:
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def kernel_files(search_path: tuple[Path, ...]) -> list[Path]:
    """Every ``hk_*.c`` / ``hk_*.h`` of the kernel library's folders, by file name."""
    return sorted((p for folder in search_path for p in folder.glob("hk_*.[ch]")), key=lambda p: p.name)


def asm_owners(search_path: tuple[Path, ...]) -> dict[str, set[str]]:
    """Owner (the function or ``#define`` around each asm statement) -> the files it is in."""
    owners: dict[str, set[str]] = {}
    for path in kernel_files(search_path):
        lines = _code(path.read_text(encoding="utf-8")).splitlines()
        for i, line in enumerate(lines):
            if not _ASM.search(line) or _REGISTER_VARIABLE.search(line):
                continue
            owner = None
            for j in range(i, -1, -1):
                macro = _MACRO.match(lines[j])
                if macro and all(previous.rstrip().endswith("\\") for previous in lines[j:i]):
                    owner = macro.group(1)
                    break
                function = _FUNCTION.match(lines[j]) if lines[j][:1].strip() else None
                if function:
                    owner = function.group(1)
                    break
            assert owner is not None, f"{path.name}:{i + 1}: an asm statement outside any function"
            owners.setdefault(owner, set()).add(path.name)
    return owners


def test_the_scan_finds_blocks_in_functions_and_macros(tmp_path: Path) -> None:
    (tmp_path / "hk_demo.c").write_text(
        'static int f(int x)\n{\n    register int r __asm__("r0") = x;\n'
        '    __asm__ volatile("add %0, %0, #1" : "+r"(r));\n    return r;\n}\n'
        '#define DEMO_BLOCK(X)                  \\\n    __asm__("nop" ::: "memory")\n'
        "/* __asm__( in a comment */\n"
    )
    assert asm_owners((tmp_path,)) == {"f": {"hk_demo.c"}, "DEMO_BLOCK": {"hk_demo.c"}}


def test_every_block_is_listed_with_its_test() -> None:
    found = set(asm_owners(KERNEL_PATH)) - NO_INSTRUCTIONS
    assert found - set(BLOCKS) == set(), "asm blocks without a listed test: add each to BLOCKS"
    assert set(BLOCKS) - found == set(), "listed blocks no longer in the kernels: remove them"


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_each_listed_test_names_its_block(block: str) -> None:
    test = next(HERE.parent.rglob(BLOCKS[block]), HERE / BLOCKS[block])  # in its family's folder
    assert test.is_file(), f"{block}: {BLOCKS[block]} does not exist"
    assert re.search(rf"\b{block}\b", test.read_text(encoding="utf-8")), (
        f"{BLOCKS[block]} does not name {block}: say in its docstring which assembly it covers"
    )


def test_no_struct_member_is_read_through_a_literal_offset() -> None:
    found = []
    for path in kernel_files(KERNEL_PATH):
        for number, line in enumerate(_code(path.read_text(encoding="utf-8")).splitlines(), 1):
            if '"' in line and _LITERAL_MEMBER.search(line):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, (
        "literal offsets from a fixed register in assembly (pass struct members as "
        '[name] "i"(offsetof(type, member)) operands):\n  ' + "\n  ".join(found)
    )
