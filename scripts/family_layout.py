"""The built-in pack's layout by operator family: the table of which file belongs where, the move, the check.

The built-in pack (helia_aot_ops_builtin) keeps each operator family in one folder: its operator
modules, their helpers, their Mako templates and their C kernels; ``common/`` holds what several
families share (the operator base class, the C headers every kernel includes). Its tests mirror
it: ``tests/ops_builtin/<family>/``, with shared test helpers in ``tests/ops_builtin/support/``.
This script holds the table (:data:`PACK` and :data:`TESTS`) and:

- moves every file to its family folder with ``git mv`` (from the old horizontal layout, ``ops/``,
  ``kernels/``, ``templates/`` and helper modules at the top, or from wherever it sits), then
  rewrites what names the old places: Python imports and dotted module names, test imports, and
  file paths in code, docs and benches. It is idempotent, so after merging work done on the old
  layout run it again (files already in place stay, the rewrites find nothing more to do)::

      .venv/bin/python scripts/family_layout.py --apply

- ``--check`` (run by tests/ops_builtin/test_family_layout.py) fails when a file sits outside its
  family, or when a file is in no family: then it says where such a file goes.

Where a new file goes: a kernel's fast path ``hk_<name>_{mve,dsp,scalar}.c`` beside its header
``hk_<name>.h`` (the kernel library finds a family's sources in the folder of its header); any
other new file into the family whose operators use it (``common/`` when several families do), and
its name into the table below.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "helia_aot_ops_builtin"
PACK_DIR = ROOT / "helia_aot_ops_builtin" / "src" / PACKAGE
TEST_DIR = ROOT / "tests" / "ops_builtin"

FAMILIES = {
    "common": "what several families share: the operator base class, the kernel-call base, parsing and "
    "quantization helpers, and the C headers every kernel includes",
    "conv": "CONV_2D, TRANSPOSE_CONV and DEPTHWISE_CONV_2D's operator classes, row streaming and patches, "
    "the convolution kernels",
    "depthwise": "the depthwise-convolution kernels (the operator class is conv/conv.py's)",
    "transpose_conv": "the transposed-convolution kernels (the operator class is conv/conv.py's)",
    "fully_connected": "FULLY_CONNECTED and BATCH_MATMUL",
    "elementwise": "binary and unary arithmetic, comparisons, logical operators, CAST",
    "activation": "activations, their lookup tables, SOFTMAX and the row normalizations",
    "pooling": "AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D",
    "data_movement": "reshapes, copies, slices, pads, concatenation, transposes, RESIZE_*, the data movers",
    "index": "GATHER, GATHER_ND, SCATTER_ND, ONE_HOT, ARG_MIN/MAX, CUMSUM and the dynamic slices",
    "reduce": "the REDUCE_* / SUM / MEAN reductions",
    "recurrent": "LSTM, GRU, RNN and SVDF",
    "control_flow": "IF, WHILE, resource variables and custom (Ethos-U) operators",
    "quantize": "QUANTIZE and DEQUANTIZE",
    "onnx_requant": "the integer operators of a model that asks for onnxruntime's requantization "
    "(float multiplier, round half to even), their transform and kernels",
}

PACK: dict[str, tuple[str, ...]] = {
    "common": (
        "base.py",
        "c_struct.py",
        "float16.py",
        "kernel_call.py",
        "libm.py",
        "parsing.py",
        "quantization.py",
        "rescale.py",
        "weighted_prepare.py",
        "kernel_call.c.mako",
        "hk_common.h",
        "hk_dot_s16.h",
        "hk_f16.h",
        "hk_f16_dot.h",
        "hk_f32_mve.h",
        "hk_fixedpoint.h",
        "hk_isa.h",
        "hk_requant.h",
        "hk_shapes.h",
        "hk_simd.h",
        "hk_window.h",
        "hybrid.py",
        "int4_weights.py",
        "kernel_cycles.py",
        "kernel_cycles.json",
        "hk_hybrid_quant.h",
        "hk_int4.h",
        "hk_int4.c",
    ),
    "conv": (
        "conv.py",
        "im2col_packing.py",
        "row_stream.py",
        "unfolded_entries.py",
        "conv_im2col.c.mako",
        "conv_rows.c.mako",
        "patch_member.c.mako",
        "patch_stage.c.mako",
        "hk_conv.h",
        "hk_conv_dots4.h",
        "hk_conv_f16.h",
        "hk_conv_f32.h",
        "hk_conv_generic.h",
        "hk_conv_im2col.h",
        "hk_conv_paths.h",
        "hk_conv_reuse.h",
        "hk_conv_s16.h",
        "hk_conv_unfolded.h",
        "hk_conv_unfolded_im2col.h",
        "hk_conv_hybrid.h",
        "hk_conv_hybrid.c",
        "hk_conv_s4.h",
        "hk_conv_s4.c",
        "hk_conv_s4_mve.c",
        "hk_conv_s4_dsp.c",
        "hk_conv_loop.h",
        "hk_conv_taps.h",
    ),
    "transpose_conv": (
        "hk_transpose_conv.h",
        "hk_transpose_conv_f16.h",
    ),
    "depthwise": (
        "hk_depthwise.h",
        "hk_depthwise_f16.h",
        "hk_depthwise_f32.h",
        "hk_depthwise_generic.h",
        "hk_depthwise_paths.h",
        "hk_depthwise_s16.h",
        "hk_depthwise_walk.h",
        "hk_depthwise_s4.h",
        "hk_depthwise_s4.c",
        "hk_depthwise_s4_mve.c",
        "hk_depthwise_s4_dsp.c",
        "hk_depthwise_loop.h",
    ),
    "fully_connected": (
        "fully_connected.py",
        "fc_helium.py",
        "fc_integer_requant.py",
        "fc_helium.c.mako",
        "hk_batch_matmul.h",
        "hk_batch_matmul_f16.h",
        "hk_fc_dot.h",
        "hk_fc_requant.h",
        "hk_fully_connected.h",
        "hk_fully_connected_f16.h",
        "hk_fully_connected_f32.h",
        "hk_fully_connected_generic.h",
        "hk_fully_connected_paths.h",
        "hk_fully_connected_s16.h",
        "hk_batch_matmul_hybrid.h",
        "hk_batch_matmul_hybrid.c",
        "hk_fully_connected_hybrid.h",
        "hk_fully_connected_hybrid.c",
        "hk_fully_connected_s4.h",
        "hk_fully_connected_s4.c",
        "fc_block_sparse.py",
        "hk_fully_connected_sparse.h",
        "hk_fully_connected_sparse.c",
    ),
    "elementwise": (
        "binary.py",
        "binary_math.py",
        "cast.py",
        "comparison.py",
        "unary_math.py",
        "binary_f16_call.py",
        "broadcast_geometry.py",
        "elementwise_tables.py",
        "walk_geometry.py",
        "hk_binary.h",
        "hk_binary_f16.h",
        "hk_binary_paths.h",
        "hk_binary_wide.h",
        "hk_cast.h",
        "hk_compare.h",
        "hk_math.h",
        "hk_unary.h",
        "hk_unary_f16.h",
        "hk_walk.h",
        "hk_div_quant.h",
        "hk_div_quant.c",
        "hk_math_narrow.h",
        "hk_math_narrow.c",
    ),
    "activation": (
        "activation.py",
        "activation_tables.py",
        "row_normalization.py",
        "softmax.py",
        "activation_quantization.py",
        "softmax_scaling.py",
        "hk_act_f32.h",
        "hk_activation_f16.h",
        "hk_elu.h",
        "hk_gelu.h",
        "hk_hard_swish.h",
        "hk_leaky_relu.h",
        "hk_log_softmax.h",
        "hk_normalization.h",
        "hk_prelu.h",
        "hk_relu.h",
        "hk_sigmoid.h",
        "hk_softmax.h",
        "hk_softmax_f16.h",
        "hk_table.h",
    ),
    "onnx_requant": (
        "onnx_operators.py",
        "onnx_qlinear.py",
        "onnx_lookup.py",
        "onnx_resize.py",
        "hk_onnx_requant.h",
        "hk_onnx_requant_paths.h",
        "hk_onnx_qlinear.h",
        "hk_onnx_resize.h",
    ),
    "pooling": (
        "pool.py",
        "hk_pool.h",
        "hk_pool_f16.h",
        "hk_pool_walk.h",
    ),
    "data_movement": (
        "concatenation.py",
        "generators.py",
        "mirror_pad.py",
        "pad.py",
        "reshape.py",
        "resize.py",
        "reverse.py",
        "shape.py",
        "slice.py",
        "space_batch.py",
        "space_depth.py",
        "split.py",
        "tile.py",
        "transpose.py",
        "layout.py",
        "movers.py",
        "constant_output.c.mako",
        "reshape.c.mako",
        "resize.c.mako",
        "strided_copies.c.mako",
        "hk_copy.h",
        "hk_resize.h",
        "densify.py",
    ),
    "index": (
        "argminmax.py",
        "cumsum.py",
        "gather.py",
        "gather_nd.py",
        "one_hot.py",
        "update_slice.py",
        "index_geometry.py",
        "argminmax.c.mako",
        "gather.c.mako",
        "hk_argminmax.h",
        "hk_cumsum.h",
        "hk_gather.h",
        "hk_index.h",
    ),
    "reduce": ("reduce.py", "hk_reduce.h", "hk_reduce_f16.h"),
    "recurrent": (
        "gru.py",
        "lstm.py",
        "rnn.py",
        "svdf.py",
        "gru_fusion.py",
        "lstm.c.mako",
        "hk_gru.h",
        "hk_gru_f16.h",
        "hk_lstm.h",
        "hk_lstm_f16.h",
        "hk_rnn.h",
        "hk_svdf.h",
        "hk_svdf_f16.h",
        "hk_lstm_hybrid.h",
        "hk_lstm_hybrid.c",
        "hk_rnn_hybrid.h",
        "hk_rnn_hybrid.c",
        "hk_svdf_hybrid.h",
        "hk_svdf_hybrid.c",
    ),
    "control_flow": (
        "control_flow.py",
        "ethos_u.py",
        "variables.py",
        "resource_variables.py",
        "control_flow.c.mako",
    ),
    "quantize": (
        "quantize.py",
        "hk_quantize.h",
        "hk_quantize_f16.h",
        "hk_dequantize_channel.h",
        "hk_dequantize_channel.c",
    ),
}
"""Family -> its files by name. A kernel family's sources (``hk_<name>.c`` and its fast paths
``hk_<name>_{mve,dsp,scalar}.c``) are not listed: they go where ``hk_<name>.h`` goes."""

PACK_STAYS = ("__init__.py", "plugin.py", "families.py", "py.typed")
"""Files of the package's top folder that belong to no family (the entry point and its tables)."""
PACK_OTHER_FOLDERS = ("transforms",)
"""Folders of the package that are no family (graph transforms run before any operator exists)."""
OLD_FOLDERS = ("ops", "kernels", "templates")
"""The horizontal layout's folders, emptied and removed by the move."""

TESTS: dict[str, tuple[str, ...]] = {
    "support": (
        "activation_refmodels.py",
        "asm_harness.py",
        "cbuild.py",
        "control_flow_models.py",
        "conv_family_refmodels.py",
        "cross_check.py",
        "elementwise_ctypes.py",
        "elementwise_refmodels.py",
        "onnx_qdq_refmodels.py",
        "index_model.py",
        "lstm_models.py",
        "recurrent_models.py",
        "strided_copy_model.py",
        "dynamic_shape_models.py",
        "empty_scalar_models.py",
        "hybrid_models.py",
        "linked_host.py",
        "reference_dtypes.py",
        "sparse_models.py",
        "single_op.py",
        "variable_models.py",
        "float16_cases.py",
        "index_kernels.py",
    ),
    "common": (
        "test_asm_inventory.py",
        "test_dsp_fast_paths.py",
        "test_fc_pool_binary_paths.py",
        "test_fixedpoint_helpers.py",
        "test_float16_cross_compile.py",
        "test_float16_ops.py",
        "test_portable_sources.py",
        "test_quantization.py",
        "test_requant.py",
        "test_requant_modes_cross.py",
        "test_wide_fast_paths.py",
        "kernels/test_int4.py",
        "test_hybrid_ops.py",
        "test_dynamic_input_shapes.py",
        "test_kernel_cycles.py",
    ),
    "conv": (
        "test_asm_unfolded_blocks.py",
        "test_conv.py",
        "test_conv_family_cross_compile.py",
        "test_conv_family_litert_models.py",
        "test_conv_family_ops.py",
        "test_conv_im2col_hypothesis.py",
        "test_conv_im2col_selection.py",
        "test_conv_pairs_hypothesis.py",
        "test_conv_paths.py",
        "test_conv_q30_dsp_hypothesis.py",
        "test_conv_quads_hypothesis.py",
        "test_conv_reuse.py",
        "test_conv_unfolded_hypothesis.py",
        "test_conv_unfolded_im2col_hypothesis.py",
        "test_conv_unfolded_rows_hypothesis.py",
        "test_memory_size_goal.py",
        "test_patch_execution.py",
        "test_row_stream.py",
        "test_size_bias_fold.py",
        "test_size_goal_chains_cross.py",
        "test_transpose_conv.py",
        "test_unfolded_entries.py",
    ),
    "depthwise": (
        "test_depthwise.py",
        "test_depthwise_3x3_dsp_hypothesis.py",
        "test_depthwise_offset_bias_hypothesis.py",
        "test_depthwise_rows_hypothesis.py",
    ),
    "fully_connected": (
        "test_batch_matmul.py",
        "test_fc_block_sparse.py",
        "test_fc_blocks_hypothesis.py",
        "test_fc_helium.py",
        "test_fc_helium_platform.py",
        "test_fc_integer_requant.py",
        "test_fully_connected.py",
    ),
    "elementwise": (
        "test_binary.py",
        "test_cast.py",
        "test_cast_ops.py",
        "test_elementwise_cross_compile.py",
        "test_elementwise_litert_models.py",
        "test_elementwise_math_kernels.py",
        "test_elementwise_math_models.py",
        "test_elementwise_ops.py",
        "test_int32_arithmetic_ops.py",
        "test_int_arithmetic_kernels.py",
        "test_reference_dtypes.py",
        "test_div_quantized.py",
    ),
    "activation": (
        "test_activation.py",
        "test_activation_cross_compile.py",
        "test_activation_litert_models.py",
        "test_activation_norm_ops.py",
        "test_activation_ops.py",
        "test_activation_reference_tables.py",
        "test_row_normalization.py",
        "test_softmax.py",
    ),
    "pooling": ("test_pool.py",),
    "onnx_requant": (
        "conftest.py",
        "onnx_requant_ctypes.py",
        "onnx_single_ops.py",
        "test_onnx_add.py",
        "test_onnx_average_pool_2d.py",
        "test_onnx_batch_normalization.py",
        "test_onnx_batch_matmul.py",
        "test_onnx_conv_2d.py",
        "test_onnx_depthwise_conv_2d.py",
        "test_onnx_fully_connected.py",
        "test_onnx_leaky_relu.py",
        "test_onnx_logistic.py",
        "test_onnx_mean.py",
        "test_onnx_mul.py",
        "test_onnx_quantize.py",
        "test_onnx_resize_bilinear.py",
        "test_onnx_softmax.py",
        "test_onnx_sub.py",
        "test_onnx_requant_kernels.py",
        "test_onnx_qlinear_kernels.py",
        "test_onnx_requant_cross.py",
        "test_onnx_requant_fast_paths.py",
        "test_onnx_requant_modules.py",
    ),
    "data_movement": (
        "test_block_movers.py",
        "test_data_movement_cross_compile.py",
        "test_data_movement_ops.py",
        "test_layout.py",
        "test_movers_hypothesis.py",
        "test_resize.py",
        "test_shape_expressions.py",
        "test_slice_geometry.py",
        "test_strided_copy.py",
        "test_densify.py",
        "test_empty_and_scalar.py",
    ),
    "index": ("test_argminmax.py", "test_gather.py", "test_index.py", "test_index_ops.py"),
    "reduce": ("test_reduce.py", "test_reduce_minmax_prod.py", "test_reduce_prod_minmax.py"),
    "recurrent": ("test_lstm_hybrid.py", "test_svdf.py"),
    "control_flow": ("test_control_flow.py", "test_ethos_u.py", "test_resource_variables.py"),
    "quantize": ("test_quantize.py", "test_quantize_per_channel.py", "kernels/test_quantize_per_channel.py"),
}
"""Test folder -> its files by name (``support`` holds the helpers tests share). An entry
``kernels/<name>`` is that file of the old kernels/ folder where the old top folder has one of
the same name; it lands as ``<stem>_kernels.py`` (see :data:`TEST_RENAMES`)."""

OPERATOR_TESTS: dict[str, tuple[str, ...]] = {
    "conv": (
        "test_conv_2d.py",
        "test_depthwise_conv_2d.py",
    ),
    "elementwise": (
        "test_abs.py",
        "test_add.py",
        "test_add_flat_hypothesis.py",
        "test_add_n.py",
        "test_atan2.py",
        "test_ceil.py",
        "test_cos.py",
        "test_div.py",
        "test_equal.py",
        "test_exp.py",
        "test_floor.py",
        "test_floor_div.py",
        "test_floor_mod.py",
        "test_greater.py",
        "test_greater_equal.py",
        "test_less.py",
        "test_less_equal.py",
        "test_log.py",
        "test_logical_and.py",
        "test_logical_not.py",
        "test_logical_or.py",
        "test_maximum.py",
        "test_minimum.py",
        "test_mul.py",
        "test_neg.py",
        "test_not_equal.py",
        "test_pow.py",
        "test_round.py",
        "test_rsqrt.py",
        "test_select.py",
        "test_select_v2.py",
        "test_sign.py",
        "test_sin.py",
        "test_sqrt.py",
        "test_square.py",
        "test_squared_difference.py",
        "test_sub.py",
    ),
    "activation": (
        "test_elu.py",
        "test_gelu.py",
        "test_hard_swish.py",
        "test_l2_normalization.py",
        "test_leaky_relu.py",
        "test_local_response_normalization.py",
        "test_log_softmax.py",
        "test_logistic.py",
        "test_prelu.py",
        "test_relu.py",
        "test_relu6.py",
        "test_relu_0_to_1.py",
        "test_relu_n1_to_1.py",
        "test_tanh.py",
    ),
    "pooling": (
        "test_average_pool_2d.py",
        "test_max_pool_2d.py",
    ),
    "data_movement": (
        "test_batch_to_space_nd.py",
        "test_broadcast_to.py",
        "test_concatenation.py",
        "test_depth_to_space.py",
        "test_dilate.py",
        "test_expand_dims.py",
        "test_fill.py",
        "test_mirror_pad.py",
        "test_pack.py",
        "test_pad.py",
        "test_padv2.py",
        "test_reshape.py",
        "test_resize_bilinear.py",
        "test_resize_nearest_neighbor.py",
        "test_reverse_v2.py",
        "test_shape.py",
        "test_slice.py",
        "test_space_to_batch_nd.py",
        "test_space_to_depth.py",
        "test_split.py",
        "test_split_v.py",
        "test_squeeze.py",
        "test_strided_slice.py",
        "test_tile.py",
        "test_transpose.py",
        "test_unpack.py",
        "test_where.py",
        "test_zeros_like.py",
    ),
    "index": (
        "test_arg_max.py",
        "test_arg_min.py",
        "test_cumsum.py",
        "test_dynamic_update_slice.py",
        "test_gather_nd.py",
        "test_one_hot.py",
        "test_reverse_sequence.py",
        "test_scatter_nd.py",
    ),
    "reduce": (
        "test_mean.py",
        "test_reduce_max.py",
        "test_reduce_min.py",
        "test_reduce_prod.py",
        "test_sum.py",
    ),
    "recurrent": (
        "test_bidirectional_sequence_lstm.py",
        "test_gru.py",
        "test_rnn.py",
        "test_unidirectional_sequence_lstm.py",
        "test_unidirectional_sequence_rnn.py",
    ),
    "control_flow": (
        "test_assign_variable.py",
        "test_if.py",
        "test_read_variable.py",
        "test_while.py",
    ),
    "quantize": ("test_dequantize.py",),
}
"""Test folder -> the operators' own test files (``test_<operator>.py``, one per operator of the
family; tests/ops_builtin/test_operator_index.py asks for them), kept apart from :data:`TESTS`
so that adding an operator adds one line here."""
for _family, _names in OPERATOR_TESTS.items():
    TESTS[_family] = TESTS[_family] + _names

TEST_RENAMES = {"kernels/test_quantize_per_channel.py": "test_quantize_per_channel_kernels.py"}
TEST_STAYS = (
    "__init__.py",
    "test_family_layout.py",
    "test_operator_docs.py",
    "test_operator_index.py",
    "test_ops_and_check.py",
    "test_transforms.py",
)
"""Tests of the whole pack: they stay in tests/ops_builtin/."""
TEST_DROPPED = ("kernels/conftest.py",)
"""Old files the move deletes: the kernels folder's conftest only put that folder on sys.path,
for the helpers now imported as ``ops_builtin.support.<name>``."""

COPIED_SUFFIXES = (".c", ".h", ".mako")
"""The pack's kernels and templates are not rewritten: their text (comments naming modules by
their old dotted names among it) is copied into every module, which must stay byte-identical."""
FAST_PATH = re.compile(r"^(hk_\w+?)_(mve|dsp|scalar)\.c$")
TEXT_SUFFIXES = (".py", ".md", ".toml", ".mako", ".c", ".h", ".txt", ".json", ".yml", ".yaml", ".cfg")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def pack_family(name: str) -> str | None:
    """The family of a pack file called ``name``, or None when the table has no place for it."""
    for family, names in PACK.items():
        if name in names:
            return family
    if name.startswith("hk_") and name.endswith(".c"):
        fast = FAST_PATH.match(name)
        return pack_family((fast.group(1) if fast else name[:-2]) + ".h")
    return None


def test_place(relative: str) -> str | None:
    """The place (below tests/ops_builtin) of the test file at ``relative``, or None. An entry with
    a folder (``kernels/<name>``) names one old file; a plain entry any file of that name."""
    name = relative.rsplit("/", 1)[-1]
    plain = None
    for family, entries in TESTS.items():
        for entry in entries:
            place = f"{family}/{TEST_RENAMES.get(entry, entry.rsplit('/', 1)[-1])}"
            if relative in (entry, place):
                return place
            if "/" not in entry and name == entry and plain is None:
                plain = place
    return plain


def tracked(folder: Path) -> list[Path]:
    return [ROOT / line for line in git("ls-files", "--", str(folder.relative_to(ROOT))).splitlines()]


def pack_moves() -> dict[Path, Path]:
    """Old path -> new path of every pack file not in its family folder yet."""
    moves = {}
    for path in tracked(PACK_DIR):
        relative = path.relative_to(PACK_DIR)
        if relative.parts[0] in PACK_OTHER_FOLDERS or (len(relative.parts) == 1 and path.name in PACK_STAYS):
            continue
        if path.name == "__init__.py" and relative.parts[0] in OLD_FOLDERS:
            continue  # removed with its folder
        family = pack_family(path.name)
        if family is not None and relative != Path(family, path.name):
            moves[path] = PACK_DIR / family / path.name
    return moves


def test_moves() -> dict[Path, Path]:
    moves = {}
    for path in tracked(TEST_DIR):
        relative = path.relative_to(TEST_DIR).as_posix()
        if relative in TEST_STAYS or relative in TEST_DROPPED:
            continue
        if relative == "kernels/__init__.py":
            continue
        place = test_place(relative)
        if place is not None and place != relative:
            moves[path] = TEST_DIR / place
    return moves


def old_places() -> dict[Path, Path]:
    """Old horizontal place -> family place, for every file of the table, moved or not: what the
    rewrites replace, so a file merged in from work on the old layout gets its imports and paths
    rewritten even when nothing moves in this run."""
    found: dict[Path, Path] = {}
    for family, names in PACK.items():
        for name in names:
            new = PACK_DIR / family / name
            if name.endswith(".py"):
                found[PACK_DIR / "ops" / name] = new
                if name[:-3] not in PACK and name not in PACK_STAYS:
                    found[PACK_DIR / name] = new
            elif name.endswith(".mako"):
                found[PACK_DIR / "templates" / name] = new
    for path in PACK_DIR.glob("*/hk_*.*"):  # every kernel file where it sits now
        if path.parent.name in PACK:
            found[PACK_DIR / "kernels" / path.name] = path
    for folder, entries in TESTS.items():
        for entry in entries:
            name = entry.rsplit("/", 1)[-1]
            new = TEST_DIR / folder / TEST_RENAMES.get(entry, name)
            if "/" in entry:
                found[TEST_DIR / entry] = new
                continue
            found[TEST_DIR / name] = new
            if not any(f"kernels/{name}" in e for e in TESTS.values()):
                found[TEST_DIR / "kernels" / name] = new
    return found


def module_name(path: Path, base: Path, package: str) -> str:
    return ".".join([package, *path.relative_to(base).with_suffix("").parts])


def python_renames(moves: dict[Path, Path], base: Path, package: str) -> dict[str, str]:
    """Old dotted module name -> new, for the ``.py`` files among ``moves``."""
    return {
        module_name(old, base, package): module_name(new, base, package)
        for old, new in moves.items()
        if old.suffix == ".py" and old.name != "__init__.py"
    }


def path_renames(moves: dict[Path, Path]) -> dict[str, str]:
    """Old path -> new, in each form text names them by: from the repository's root
    (``helia_aot_ops_builtin/src/helia_aot_ops_builtin/ops/conv.py``), from the package's folder
    (``helia_aot_ops_builtin/ops/conv.py``), and inside it when the old path has a folder
    (``ops/conv.py``, ``kernels/hk_conv.c``, ``kernels/test_svdf.py``)."""
    table = {}
    for old, new in moves.items():
        table[old.relative_to(ROOT).as_posix()] = new.relative_to(ROOT).as_posix()
        base = PACK_DIR if PACK_DIR in old.parents else TEST_DIR
        inner_old, inner_new = old.relative_to(base).as_posix(), new.relative_to(base).as_posix()
        if base == PACK_DIR:
            table[f"{PACKAGE}/{inner_old}"] = f"{PACKAGE}/{inner_new}"
        if "/" in inner_old:
            table[inner_old] = inner_new
    return table


def rewrite_text(text: str, modules: dict[str, str], paths: dict[str, str], tests: dict[str, str]) -> str:
    """``text`` with every old module name, file path and test import replaced by its new one."""
    if modules:
        # from helia_aot_ops_builtin[.ops] import name  ->  from helia_aot_ops_builtin.<family> import name
        def from_import(match: re.Match[str]) -> str:
            parent, names = match.group(1), match.group(2)
            first = names.strip("( \n").split(",")[0].split(" as ")[0].strip()
            new = modules.get(f"{parent}.{first}")
            if new is None:
                return match.group(0)
            return f"from {new.rsplit('.', 1)[0]} import {names}"

        text = re.sub(rf"from ({PACKAGE}(?:\.ops)?) import ([\w, ]+|\([^)]*\))", from_import, text)
        names = "|".join(sorted((re.escape(m) for m in modules), key=len, reverse=True))
        text = re.sub(rf"(?<![\w.])({names})(?![\w])", lambda m: modules[m.group(1)], text)
    if paths:
        keys = "|".join(sorted((re.escape(k) for k in paths), key=len, reverse=True))
        text = re.sub(rf"(?<![\w./])({keys})(?![\w])", lambda m: paths[m.group(1)], text)
    if tests:
        text = rewrite_test_imports(text, tests)
    return text


def path_join(module: str) -> str:
    """``"a" / "b" / "c.py"`` for the module ``a.b.c``: how code joins a test file's path."""
    parts = module.split(".")
    return " / ".join([*(f'"{part}"' for part in parts[:-1]), f'"{parts[-1]}.py"'])


def rewrite_test_imports(text: str, tests: dict[str, str]) -> str:
    """Imports between test modules: relative, bare (through sys.path) or ``ops_builtin.kernels.``
    forms of a moved test module become ``ops_builtin.<folder>.<name>``."""

    def from_package(match: re.Match[str]) -> str:
        parent, names = match.group(1), match.group(2)
        new = tests.get(f"{parent}.{names.split(',')[0].split(' as ')[0].strip()}")
        return f"from {new.rsplit('.', 1)[0]} import {names}" if new else match.group(0)

    text = re.sub(r"from (ops_builtin(?:\.kernels)?) import ([\w, ]+)", from_package, text)
    for old, new in tests.items():  # Path joins: "ops_builtin" / "kernels" / "cbuild.py"
        text = text.replace(path_join(old), path_join(new))
    by_stem: dict[str, str] = {}
    for old, new in tests.items():
        stem = old.rsplit(".", 1)[-1]
        by_stem.setdefault(stem, new)
    for old, new in tests.items():
        text = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, text)
    for stem, new in by_stem.items():
        text = re.sub(rf"^(\s*)from \.(?:kernels\.)?{stem} import", rf"\1from {new} import", text, flags=re.M)
        text = re.sub(rf"^(\s*)from {stem} import", rf"\1from {new} import", text, flags=re.M)
        text = re.sub(
            rf"^(\s*)from \. import {stem}\b",
            rf"\1from {new.rsplit('.', 1)[0]} import {stem}",
            text,
            flags=re.M,
        )
    return text


def apply() -> int:
    moves = {**pack_moves(), **test_moves()}
    renames = {**old_places(), **moves}
    modules = python_renames({o: n for o, n in renames.items() if PACK_DIR in o.parents}, PACK_DIR, PACKAGE)
    tests = python_renames(
        {o: n for o, n in renames.items() if TEST_DIR in o.parents}, TEST_DIR, "ops_builtin"
    )
    paths = path_renames(renames)
    for old, new in sorted(moves.items()):
        new.parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(old), str(new))
        deeper = len(new.parts) - len(old.parts)
        if new.suffix == ".py" and deeper:  # Path(__file__).parents[1] / "data" is a folder further up now
            text = new.read_text(encoding="utf-8")
            new.write_text(
                re.sub(r"parents\[(\d+)\]", lambda m, d=deeper: f"parents[{int(m.group(1)) + d}]", text)
            )
    folders = {new.parent for new in moves.values()} | {PACK_DIR / family for family in PACK}
    for folder in sorted(folders):
        init = folder / "__init__.py"
        if folder.is_dir() and not init.exists():
            init.write_text(init_docstring(folder))
            git("add", str(init))
    for old in [*(PACK_DIR / d for d in OLD_FOLDERS), TEST_DIR / "kernels"]:
        if not old.is_dir():
            continue
        leftovers = ("__init__.py", "conftest.py", "__pycache__")
        if all(p.name in leftovers for p in old.iterdir()):
            for name in ("__init__.py", "conftest.py"):
                if (old / name).exists():
                    git("rm", "-q", str(old / name))
            shutil.rmtree(old, ignore_errors=True)
    changed = []
    for path in (ROOT / line for line in git("ls-files").splitlines()):
        if path.suffix not in TEXT_SUFFIXES or not path.is_file() or path == Path(__file__).resolve():
            continue
        if "tests/data/" in path.as_posix() or (PACK_DIR in path.parents and path.suffix in COPIED_SUFFIXES):
            continue
        text = path.read_text(encoding="utf-8")
        new_text = rewrite_text(text, modules, paths, tests)
        if path.suffix == ".py" and (TEST_DIR in path.parents or ROOT / "tests" in path.parents):
            new_text = support_imports(new_text)
        if new_text != text:
            path.write_text(new_text, encoding="utf-8")
            changed.append(path)
    print(f"moved {len(moves)} files, rewrote {len(changed)}")
    py = [str(p) for p in changed if p.suffix == ".py"]
    if py:
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run([*ruff, "check", "--fix", "--select", "I001", "-q", *py], cwd=ROOT, check=False)
        subprocess.run([*ruff, "format", "-q", *py], cwd=ROOT, check=False)
    for path in changed:  # a longer module path can push a docstring line past ruff's limit
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if path.suffix == ".py" and len(line) > LINE_LIMIT:
                print(f"rewrap by hand: {path.relative_to(ROOT)}:{number} has {len(line)} characters")
    return 0


def init_docstring(folder: Path) -> str:
    """The ``__init__.py`` of a new family folder: one docstring saying what the family holds."""
    title = folder.name.replace("_", " ")
    if folder.parent == PACK_DIR:
        text = f"The {title} family: {FAMILIES[folder.name]}."
    elif folder.name == "support":
        text = "Helpers the family tests share: kernel builds, reference models, model builders."
    else:
        text = f"Tests of the {title} family: {FAMILIES[folder.name]}."
    return '"""' + textwrap.fill(text, 100) + '"""\n'


def support_imports(text: str) -> str:
    """Bare and relative imports of the shared test helpers become ``ops_builtin.support.<name>``."""
    for name in TESTS["support"]:
        stem = name[:-3]
        text = re.sub(
            rf"^(\s*)from \.?(?:kernels\.)?{stem} import",
            rf"\1from ops_builtin.support.{stem} import",
            text,
            flags=re.M,
        )
        text = re.sub(
            rf"^(\s*)from \. import {stem}\b", rf"\1from ops_builtin.support import {stem}", text, flags=re.M
        )
        text = re.sub(
            rf"^(\s*)import {stem}\b", rf"\1from ops_builtin.support import {stem}", text, flags=re.M
        )
    return text


def check() -> list[str]:
    """Problems of the layout as it is on disk: files outside their family, files in no family,
    folders of more than :data:`FOLDER_LIMIT` source files."""
    problems = []
    for path in sorted(PACK_DIR.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        relative = path.relative_to(PACK_DIR)
        if relative.parts[0] in PACK_OTHER_FOLDERS:
            continue
        if len(relative.parts) == 1 and path.name in PACK_STAYS:
            continue
        if path.name == "__init__.py" and len(relative.parts) == 2 and relative.parts[0] in PACK:
            continue
        family = pack_family(path.name)
        if family is None:
            problems.append(
                f"{relative}: in no family. Put it in the folder of the family whose operators use it "
                f"(common/ when several do; a kernel fast path hk_<name>_<isa>.c beside hk_<name>.h) "
                f"and add its name to PACK in scripts/family_layout.py"
            )
        elif relative != Path(family, path.name):
            problems.append(f"{relative}: belongs in {family}/ (scripts/family_layout.py --apply moves it)")
    for path in sorted(TEST_DIR.rglob("*.py")):
        relative = path.relative_to(TEST_DIR).as_posix()
        if relative in TEST_STAYS or (path.name == "__init__.py" and relative.count("/") == 1):
            continue
        place = test_place(relative)
        if place is None:
            problems.append(
                f"tests/ops_builtin/{relative}: in no family. Put it in tests/ops_builtin/<family>/ "
                f"(shared helpers: support/) and add its name to TESTS in scripts/family_layout.py"
            )
        elif place != relative:
            problems.append(f"tests/ops_builtin/{relative}: belongs in tests/ops_builtin/{place}")
    for folder in sorted({p.parent for p in PACK_DIR.rglob("*") if p.suffix in SOURCE_SUFFIXES}):
        count = sum(1 for p in folder.iterdir() if p.suffix in SOURCE_SUFFIXES)
        if count > FOLDER_LIMIT:
            where = folder.relative_to(PACK_DIR)
            problems.append(f"{where}: {count} source files (at most {FOLDER_LIMIT}); split the family")
    return problems


LINE_LIMIT = 110
"""ruff's line length (the root pyproject.toml)."""
SOURCE_SUFFIXES = (".py", ".c", ".h", ".mako")
FOLDER_LIMIT = 42
"""At most this many source files in one folder ("about 40", issue 28)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--apply", action="store_true", help="move every file to its family and rewrite references"
    )
    mode.add_argument("--check", action="store_true", help="list files outside their family; exit 1 if any")
    args = parser.parse_args(argv)
    if args.apply:
        return apply()
    problems = check()
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
