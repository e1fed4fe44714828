"""CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV over NHWC tensors.

Each lowers to one ``hk_conv_*`` / ``hk_depthwise_*`` / ``hk_transpose_conv_*`` call. Padding,
per-channel multipliers and activation clamps are computed here exactly as LiteRT's Prepare
computes them (see ``weighted_prepare``); the multipliers become operator constants. Types: float32,
int8 (per-channel int8 filter, int32 bias) and int16x8 (int8 filter, int64 bias, or int32 bias
when the operator's quantized_bias_type says INT32, which is the accumulator LiteRT then uses).

For int8 CONV_2D and DEPTHWISE_CONV_2D with a constant filter (and bias), the bias with the
input offset folded in becomes a constant too, and CONV_2D gets a scratch buffer for one output
pixel's receptive field: together they enable the kernels' Helium, DSP and portable fast paths.
At goal size the folded bias instead replaces the model's bias where no tap is ever padded (and
nothing else reads that bias), with an input offset of 0: no new constant (``_bias_folds``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor, AirTensorType
from helia_aot.aot.operators import KernelVariant
from helia_aot.codegen import c_float
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.float16 import (
    F16_ACCUMULATION,
    FLOAT16_RESTRICTION,
    f16_accumulation_fields,
)
from helia_aot_ops_builtin.common.hybrid import HYBRID_RESTRICTION, hybrid_weight_problems, is_hybrid
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.kernel_cycles import IM2COL_VALUES, layer_choice, modeled_choice
from helia_aot_ops_builtin.common.parsing import activation_name, padding_name, simple_parser
from helia_aot_ops_builtin.common.quantization import (
    ACTIVATION_RESTRICTION,
    FUSED_ACTIVATIONS,
    float_clamp,
    quantized_clamp,
)
from helia_aot_ops_builtin.common.weighted_prepare import (
    KERNEL_SUFFIXES,
    conv_multipliers,
    conv_s8_scratch_bytes,
    filter_problems,
    int16_bias_problems,
    offset_bias,
    tensor_type_name,
    window_geometry,
)
from helia_aot_ops_builtin.conv.im2col_packing import (
    im2col_applies,
    im2col_column,
    im2col_general,
    im2col_half,
    im2col_packed,
    im2col_quant,
)
from helia_aot_ops_builtin.conv.row_stream import RowGeometry, backward, ring_rows

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

# The stack a goal-size depthwise row loop may give its once-per-layer offset_bias (64 channels:
# KWS's depthwise layers); wider layers fold in every row call instead.
ROWS_FOLD_STACK_BYTES = 256

_COMMON_RESTRICTIONS = (
    "Input, filter and output are 4-D NHWC tensors with static shapes.",
    "Types: float32; int8 activations with a symmetric int8 filter (per-channel or per-tensor) "
    "and int32 bias; int16 activations (zero point 0) with an int8 filter and int64 bias, or "
    "int32 bias when quantized_bias_type is INT32.",
    ACTIVATION_RESTRICTION,
)


@dataclass(slots=True)
class AirConv2DOptions(AirOperatorOptions):
    """CONV_2D options as LiteRT stores them, plus what a graph transform may add.

    ``explicit_padding`` (top, bottom, left, right) replaces ``padding`` when set: the
    TRANSPOSE_REVERSE_CONV transform needs pads SAME and VALID cannot express.
    ``rewritten_from`` names the operator type a transform rewrote into this one, so the MAC
    count keeps the original's definition.
    """

    padding: str = "SAME"
    stride_h: int = 1
    stride_w: int = 1
    dilation_h: int = 1
    dilation_w: int = 1
    activation: str = "NONE"
    quantized_bias_type: str = "FLOAT32"
    explicit_padding: tuple[int, int, int, int] | None = None
    rewritten_from: str = ""


@dataclass(slots=True)
class AirDepthwiseConv2DOptions(AirConv2DOptions):
    """DEPTHWISE_CONV_2D options; LiteRT ignores depth_multiplier and derives it from shapes."""

    depth_multiplier: int = 1


@dataclass(slots=True)
class AirTransposeConvOptions(AirOperatorOptions):
    """TRANSPOSE_CONV options (no dilation in LiteRT)."""

    padding: str = "SAME"
    stride_h: int = 1
    stride_w: int = 1
    activation: str = "NONE"
    quantized_bias_type: str = "FLOAT32"


def _window_fields(
    raw: litert.Conv2DOptionsT | litert.DepthwiseConv2DOptionsT | litert.TransposeConvOptionsT,
    quantized_bias_type: int,
) -> dict[str, Any]:
    """The fields the three tables share; ``quantized_bias_type`` is not one of them
    (DepthwiseConv2DOptions has none: its bias type is the default, FLOAT32)."""
    return {
        "padding": padding_name(raw.padding),
        "stride_h": int(raw.strideH),
        "stride_w": int(raw.strideW),
        "activation": activation_name(raw.fusedActivationFunction),
        "quantized_bias_type": tensor_type_name(quantized_bias_type),
    }


def _conv_options(raw: litert.Conv2DOptionsT | None) -> AirConv2DOptions:
    if raw is None:
        return AirConv2DOptions()
    return AirConv2DOptions(
        **_window_fields(raw, raw.quantizedBiasType),
        dilation_h=int(raw.dilationHFactor),
        dilation_w=int(raw.dilationWFactor),
    )


def _depthwise_options(raw: litert.DepthwiseConv2DOptionsT | None) -> AirDepthwiseConv2DOptions:
    if raw is None:
        return AirDepthwiseConv2DOptions()
    return AirDepthwiseConv2DOptions(
        **_window_fields(raw, 0),
        dilation_h=int(raw.dilationHFactor),
        dilation_w=int(raw.dilationWFactor),
        depth_multiplier=int(raw.depthMultiplier),
    )


def _transpose_conv_options(raw: litert.TransposeConvOptionsT | None) -> AirTransposeConvOptions:
    if raw is None:
        return AirTransposeConvOptions()
    return AirTransposeConvOptions(**_window_fields(raw, raw.quantizedBiasType))


parse_conv_2d = simple_parser(AirOpType.CONV_2D.value, _conv_options)
parse_depthwise_conv_2d = simple_parser(AirOpType.DEPTHWISE_CONV_2D.value, _depthwise_options)
parse_transpose_conv = simple_parser(AirOpType.TRANSPOSE_CONV.value, _transpose_conv_options)


_READERS: tuple[Any, int, dict[str, int]] | None = None


def _readers(model: Any) -> dict[str, int]:
    """How many operator inputs name each tensor, counted once per model (each goal-size
    convolution asks, so a long chain stays linear): the last model's counts are kept while its
    operator list is the same. A stale count could only fold a shared bias (one more constant,
    never a wrong result: the other readers keep the model's bias)."""
    global _READERS
    cached = _READERS
    if cached is not None and cached[0] is model and cached[1] == len(model.operators):
        return cached[2]
    counts: dict[str, int] = {}
    for op in model.operators:
        for t in op.input_ids:
            if t:
                counts[t] = counts.get(t, 0) + 1
    _READERS = (model, len(model.operators), counts)
    return counts


class _WindowOperator(KernelCallOperator):
    """Shared contract of the three convolutions: operand roles, types and requantization."""

    SUPPORTED_DTYPES: tuple[type, ...] = (np.float32, np.float16, np.int8, np.int16)
    FAMILY = ""
    OPTIONS: type = AirConv2DOptions
    INPUT, FILTER, BIAS = 0, 1, 2
    CHANNEL_AXIS = 0  # the filter's output-channel axis
    FIXED_AFTER_RESOLVE: ClassVar[tuple[str, ...]] = (
        "kind",
        "generic_kernel",
        "folds_offset",
        "_spatial",
    )  # see AotOperator

    @property
    def options(self) -> Any:
        return self.typed_options(self.OPTIONS)

    @property
    def source(self) -> AirTensor:
        return self.required_input(self.INPUT)

    @property
    def weights(self) -> AirTensor:
        return self.required_input(self.FILTER)

    @property
    def bias(self) -> AirTensor | None:
        return self.input_or_none(self.BIAS)

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    @property
    def channels(self) -> int:
        return int(self.target.shape[-1]) if self.target.shape else 0

    def _spatial(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """((output height, top padding), (output width, left padding)): each convolution's own."""
        raise NotImplementedError(f"{type(self).__name__} does not define its output geometry")

    def kind(self) -> str | None:
        if self.FAMILY in ("conv", "depthwise") and is_hybrid(self.source, self.weights, self.target):
            return "hybrid"
        key = (self.source.dtype.numpy.type, self.weights.dtype.numpy.type, self.target.dtype.numpy.type)
        kind = KERNEL_SUFFIXES.get(key)
        if kind == "s16" and self.options.quantized_bias_type == "INT32":
            kind = "s16_b32"
        return kind

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs its own family (``_Float16``, Helium f16 on the M55), without the int8 paths.
        if self.kind() == "f16":
            return (f"{self.FAMILY}_f16",)
        if self.kind() == "hybrid":
            return ("conv_hybrid",)
        if self.int4_per_use():
            return (f"{self.FAMILY}_s4",)
        # The general loop lives in a family of its own (hk_<family>_generic.c) so that adding it
        # leaves the fast paths' translation unit, and so their speed, exactly as it was.
        if self.kind() == "s8" and self.generic_kernel():
            return (f"{self.FAMILY}_generic",)
        return (self.FAMILY,)

    def params_type(self) -> str:
        """The kernel's params struct (without ``hk_``): the float16 family has its own."""
        if self.kind() == "hybrid":
            return "conv_hybrid_params_t"
        return f"{self.FAMILY}_f16_params_t" if self.kind() == "f16" else f"{self.FAMILY}_params_t"

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def kernel_function(self) -> str:
        if self.int4_per_use():
            return f"{self.FAMILY}_s8_s4"
        if self.kind() == "s8" and self.generic_kernel():
            return f"{self.FAMILY}_s8_generic"
        return f"{self.FAMILY}_{self.kind()}"

    def knob_values(self, knob: str) -> tuple[str, ...]:
        """int8 CONV_2D and DEPTHWISE_CONV_2D offer their fast paths (``specialized``, the
        dispatching entry) or the general loop alone (``generic``); other types have one kernel.
        float16 CONV_2D and DEPTHWISE_CONV_2D offer both ``accumulation`` values: float sums
        (``precise``) or float16 Helium lanes (``fast``)."""
        if knob == "kernel" and self.FAMILY in ("conv", "depthwise"):
            return ("specialized", "generic") if self.kind() == "s8" else ("generic",)
        if knob == "accumulation" and self.FAMILY in ("conv", "depthwise") and self.kind() == "f16":
            return F16_ACCUMULATION
        return super().knob_values(knob)

    def kernel_shape(self) -> tuple[int, ...] | None:
        """The layer's shape as the kernel cycle table describes it (``common.kernel_cycles``):
        int8 CONV_2D (height, width, input channels, filters, filter height and width, stride)
        and DEPTHWISE_CONV_2D (height, width, channels, filter height and width, stride)."""
        if self.FAMILY not in ("conv", "depthwise") or self.kind() != "s8":
            return None
        _, h, w, cin = (int(d) for d in self.source.shape)
        oc, kh, kw = int(self.weights.shape[0]), int(self.weights.shape[1]), int(self.weights.shape[2])
        stride = int(self.options.stride_h)
        if self.FAMILY == "depthwise":
            return (h, w, self.channels, kh, kw, stride)
        return (h, w, cin, oc, kh, kw, stride)

    def modeled_knob_choice(self, knob: str, goal: str, offered: tuple[str, ...], today: str) -> str | None:
        """The ``kernel`` the kernel cycle table prefers for this layer's shape (``common.kernel_cycles``)."""
        return layer_choice(self, knob, goal, offered, today)

    def generic_kernel(self) -> bool:
        """Whether the ``kernel`` knob resolved to ``generic`` (specialized when never resolved),
        or int4 weights are read per use (that kernel is the general loop on nibbles)."""
        return self.int4_per_use() or self.knob("kernel", "specialized") == "generic"

    def resolve_int4(self) -> None:
        """With an int4 filter: its re-laid-out copies become int4 too (``int4_weights``)."""
        if self.int4_filter():
            from helia_aot_ops_builtin.common.int4_weights import resolve_int4  # int4 models only

            resolve_int4(self, per_use=self.int4_per_use())

    def int4_filter(self) -> bool:
        """Whether the filter is int4 (packed in the module, see ``int4_weights``)."""
        return self.weights is not None and self.weights.dtype is AirTensorType.INT4

    def int4_per_use(self) -> bool:
        """Int4 weights read packed by ``hk_<family>_s8_s4`` (goal ``size``, int8): no int8 copy
        of the filter; other goals unpack it once per run for the int8 kernels (``int4_weights``)."""
        return (
            self.FAMILY in ("conv", "depthwise")
            and self.int4_filter()
            and self.optimization_goal == "size"
            and self.kind() == "s8"
            and self._bias_in_words()
        )

    def _bias_in_words(self) -> bool:
        """Whether the per-use kernels' channel words can carry the bias (``channel_words``)."""
        from helia_aot_ops_builtin.common.int4_weights import channel_words_fit  # int4 models only

        return channel_words_fit(self.bias, self.channels)

    # -- in place, row by row (goal size; see helia_aot_ops_builtin.conv.row_stream) ---------------
    ring: int = 0
    row_block: int = 1
    rows_in_place: bool = False

    def row_geometry(self) -> RowGeometry | None:
        """The row loop's numbers, or None: only CONV_2D and DEPTHWISE_CONV_2D over one image
        whose input and output have one element type stream their rows."""
        if self.FAMILY not in ("conv", "depthwise") or self.kind() not in ("s8", "s16", "f32"):
            return None
        if self.int4_filter() and not self.int4_per_use():  # unpacked once, before the whole run
            return None
        source, target = self.source, self.target
        if len(source.shape) != 4 or len(target.shape) != 4 or source.shape[0] != 1:
            return None
        if source.dtype != target.dtype:
            return None
        (oh, pad_top), _ = self._spatial()
        _, h, w, c = source.shape
        _, _, ow, oc = target.shape
        _, kh, _, _ = self.weights.shape
        item = source.dtype.itemsize
        return RowGeometry(
            int(h),
            int(oh),
            int(w * c * item),
            int(ow * oc * item),
            self.options.stride_h,
            int(pad_top),
            (int(kh) - 1) * self.options.dilation_h + 1,
        )

    def inplace_rows_bytes(self, block: int = 1) -> int | None:
        """Bytes of the ring of output rows writing in place needs, computing ``block`` rows
        per kernel call, or None when it cannot.

        The planner's hook (goal ``size``): it asks before it decides, and calls
        :meth:`enable_inplace_rows` where the input dies at this operator and the ring is
        smaller than what sharing saves (then asks again for larger blocks)."""
        if self.patch_stage is not None:
            return None  # the stage's band loop already keeps only a band of each output
        geometry = self.row_geometry()
        rows = None if geometry is None else ring_rows(geometry, block)
        return None if geometry is None or rows is None else rows * geometry.output_row_bytes

    def enable_inplace_rows(self, block: int = 1) -> None:
        """Reserve the ring (a scratch buffer the plan counts) and let output 0 share input 0;
        each kernel call computes ``block`` output rows."""
        geometry = self.row_geometry()
        rows = None if geometry is None else ring_rows(geometry, block)
        if geometry is None or rows is None:
            raise ValueError(f"operator {self.op.id} cannot write its output in place")
        self.ring = rows
        self.row_block = block
        self.add_scratch("rows", rows * geometry.output_row_bytes, alignment=16)
        self.INPLACE_INPUTS = (self.INPUT,)
        self.INPLACE_GROWS = backward(geometry)

    # -- patch-based execution (goal size; see helia_aot.pipeline.patch_plan) -----------------
    patch_stage: Any = None
    patch_position: int = 0
    patch_members: list[Any] = []  # noqa: RUF012 (replaced per instance, never mutated)

    def patch_geometry(self) -> RowGeometry | None:
        """The rows a band of this operator reads and writes, or None when it cannot run in a
        patch stage (the same operators and types as the in-place row loop)."""
        return None if self.rows_in_place or self.ring else self.row_geometry()

    def join_patch_stage(self, stage: Any, members: list[Any]) -> None:
        """Run as one of ``members``, the operators of ``stage`` in order: the first operator
        runs the whole band loop and owns the patch buffer (a scratch buffer the plan counts);
        the others run nothing.
        The kernel's placement of its buffer in dead bytes is given up: in a stage, the input's
        consumed rows and the output's unwritten rows are other bands' data."""
        position = next(i for i, m in enumerate(members) if m is self)
        self.patch_stage, self.patch_position, self.patch_members = stage, position, list(members)
        self.reusable_scratch.clear()
        if position == 0:
            stage.buffer_id = self.add_scratch("patches", stage.buffer_bytes, alignment=16)

    def leave_patch_stage(self) -> None:
        """Undo :meth:`join_patch_stage` (the planner's measure did not confirm the stage)."""
        if self.patch_position == 0 and "patches" in self.op.named_tensors:
            tid = self.op.named_tensors.pop("patches")
            self.model.tensors.pop(tid, None)
            self.patch_stage.buffer_id = None
        self.patch_stage, self.patch_position, self.patch_members = None, 0, []

    def _patch_values(self) -> dict[str, Any]:
        """The band loop's template values: each member's params, kernel and pointers."""
        stage = self.patch_stage
        members = self.patch_members
        layers = []
        for j, member in enumerate(members):
            values = KernelCallOperator.compute_values(member)  # the whole-tensor call
            geometry = member.patch_geometry()
            item = member.source.dtype.itemsize
            layers.append(
                {
                    "op": member,
                    "function": values["function"],
                    "params_type": values["params_type"],
                    "fields": values["fields"],
                    "weights": values["args"][1],
                    "bias": values["args"][2],
                    "input": member.ptr(member.source, const=True),
                    "output": member.ptr(member.target),
                    "in_elems": geometry.input_row_bytes // item,
                    "out_elems": geometry.output_row_bytes // item,
                    "first": j == 0,
                    "last": j == len(members) - 1,
                }
            )
        table = []
        for band in stage.band_table:
            row = []
            for j, call in enumerate(band):
                in_offset = call.in_start - (band[j - 1].buffer_start if j else 0)
                out_offset = call.out_start - (0 if j == len(band) - 1 else call.buffer_start)
                if not call.out_rows:
                    in_offset = out_offset = 0
                row.append(
                    [in_offset, call.in_rows, call.pad_top, call.out_rows, out_offset, call.keep, call.drop]
                )
            table.append(row)
        families = dict.fromkeys(f for member in members for f in member.kernel_families())
        return {
            "stage": stage,
            "layers": layers,
            "band_table": table,
            "kernel_headers": [f"{self.prefix}_hk_{f}.h" for f in families],
        }

    def on_placed(self, memory_plan: Any) -> None:
        """Stream rows only where the plan did give the output the input's bytes."""
        super().on_placed(memory_plan)
        if self.patch_stage is not None:
            self.TEMPLATE = "patch_stage.c.mako" if self.patch_position == 0 else "patch_member.c.mako"
            return
        if not self.ring:
            return
        here = memory_plan.placements.get(self.source.id)
        there = memory_plan.placements.get(self.target.id)
        self.rows_in_place = (
            here is not None
            and there is not None
            and (here.region, here.offset) == (there.region, there.offset)
        )
        self.TEMPLATE = "conv_rows.c.mako" if self.rows_in_place else KernelCallOperator.TEMPLATE

    def compute_values(self) -> dict[str, Any]:
        values = super().compute_values()
        if self.patch_stage is not None:
            if self.patch_position == 0:
                values.update(self._patch_values())
            values["stage_host"] = self.patch_stage.operators[0]
            return values
        geometry = self.row_geometry()
        if self.rows_in_place and geometry is not None:
            item = self.source.dtype.itemsize
            values["rows"] = {
                "geometry": geometry,
                "ring": self.ring,
                "block": self.row_block,
                "ring_ptr": self.ptr(self.get_local_tensor("rows"), ctype=self.target.ctype),
                "in_elems": geometry.input_row_bytes // item,
                "out_elems": geometry.output_row_bytes // item,
                "backward": backward(geometry),
                "in_ctype": self.source.ctype,
                "out_ctype": self.target.ctype,
                "fold_channels": self.rows_fold_channels(),
            }
        return values

    def rows_fold_channels(self) -> int:
        """Goal size's int8 depthwise row loop: how many channels of ``offset_bias`` it folds
        once per layer on its own stack (0: none). Each row call would otherwise fold the input
        offset again (KWS: 7,200 M55 instructions a layer); a stored ``offset_bias`` is a
        constant size does not add. Only one row per call: a block of rows folds once per
        block already, and along its long rows the fold-free loop is the faster (VWW's 24x24
        layer: 6,200 M55 instructions more from offset_bias). Capped at ROWS_FOLD_STACK_BYTES."""
        if self.FAMILY != "depthwise" or self.kind() != "s8" or self.bias_folded or self.row_block != 1:
            return 0
        if self.int4_filter():  # hk_depthwise_s8_s4 reads no offset_bias (nor an int8 filter)
            return 0
        if not self.adds_offset_per_input() or self.source.zero_point() == 0:
            return 0
        return self.channels if 4 * self.channels <= ROWS_FOLD_STACK_BYTES else 0

    def kernel_variants(self) -> list[KernelVariant]:
        if self.FAMILY not in ("conv", "depthwise") or self.kind() != "s8":
            return super().kernel_variants()
        folds = self.weights.is_constant and (self.bias is None or self.bias.is_constant)
        folds = folds and not self.adds_offset_per_input()
        pad = 4 if self.FAMILY == "conv" else 1
        const = 4 * (-(-self.channels // pad) * pad) if folds else 0
        return [
            KernelVariant("kernel", "specialized", self.specialized_scratch_bytes() if folds else 0, const),
            KernelVariant("kernel", "generic"),
        ]

    def specialized_scratch_bytes(self) -> int:
        """The scratch the specialized kernel asks for (0: none)."""
        return 0

    def geometry_problems(self) -> Iterable[str]:
        raise NotImplementedError

    def check(self) -> Iterable[str]:
        if self.source is None or self.weights is None:
            yield "the input or the filter is missing"
            return
        if self.int4_filter() and self.FAMILY not in ("conv", "depthwise"):
            yield "an int4 filter is supported for CONV_2D and DEPTHWISE_CONV_2D only"
            return
        if self.int4_filter() and not self.weights.is_constant:
            yield "int4 weights must be constant"
        if self.int4_filter() and self.FAMILY == "depthwise" and self.source.dtype.itemsize == 2:
            yield (
                "an int4 filter with int16 activations is not supported: LiteRT's reference kernel "
                "reads the packed bytes as int8 without unpacking them, so no module can match it"
            )
            return
        opts = self.options
        kind = self.kind()
        if kind is None:
            hybrid = (
                self.TYPE == AirOpType.TRANSPOSE_CONV.value
                and self.source.dtype.numpy == np.float32
                and self.weights.dtype.numpy == np.int8
            )
            yield (
                f"types {self.source.dtype} input, {self.weights.dtype} filter, "
                f"{self.target.dtype} output are not supported"
                + (
                    " (LiteRT's hybrid TRANSPOSE_CONV, float32 activations with int8 weights, is not "
                    "converted yet: keep the layer float32 or quantize it fully)"
                    if hybrid
                    else ""
                )
            )
            return
        if opts.activation not in FUSED_ACTIVATIONS:
            yield f"fused activation {opts.activation} is not supported"
        if opts.padding not in ("SAME", "VALID"):
            yield f"padding {opts.padding} is not SAME or VALID"
            return
        if any(len(t.shape) != 4 for t in (self.source, self.weights, self.target)):
            yield "input, filter and output must be 4-D"
            return
        problems = list(self.geometry_problems())
        yield from problems
        if problems:
            return
        bias = self.bias
        if bias is not None and bias.size != self.channels:
            yield f"bias {label(bias)} has {bias.size} elements for {self.channels} output channels"
        if kind == "hybrid":
            if self.int4_filter() and self.FAMILY == "depthwise":
                yield (
                    "an int4 filter with float32 activations (hybrid) is not supported: LiteRT's "
                    "reference kernel refuses it (FLOAT32 with filter type INT4), so there is "
                    "nothing to match; use an int8 filter"
                )
                return
            if self.FAMILY == "conv" and bias is None:
                yield (
                    "a hybrid CONV_2D (float32 activations, int8 or int4 filter) needs a bias: "
                    "LiteRT's CONV_2D refuses one without (its Prepare requires the bias operand), "
                    "so there is nothing to match; give the layer a float32 bias of zeros"
                )
                return
            yield from hybrid_weight_problems(self.weights, self.channels, self.CHANNEL_AXIS, bias)
            yield from self.hybrid_problems()
            return
        if kind in ("f32", "f16"):
            want = np.float32 if kind == "f32" else np.float16
            if bias is not None and bias.dtype.numpy != want:
                yield f"bias {label(bias)} must be {np.dtype(want).name}"
            return
        for tensor in (self.source, self.target):
            if tensor.quantization is None or tensor.quantization.per_channel:
                yield f"{label(tensor)} must be quantized per tensor"
                return
        yield from filter_problems(self.weights, self.channels, self.CHANNEL_AXIS)
        if kind == "s8":
            if bias is not None and bias.dtype.numpy != np.int32:
                yield f"bias {label(bias)} must be int32"
        else:
            if self.source.zero_point() != 0 or self.target.zero_point() != 0:
                yield "int16 input and output need zero points of 0"
            yield from int16_bias_problems(
                bias, opts.quantized_bias_type, int32_allowed=self.FAMILY != "depthwise"
            )
            if kind == "s16":
                yield from self.wide_shift_problems()

    def wide_shift_problems(self) -> Iterable[str]:
        """LiteRT's 64-bit MultiplyByQuantizedMultiplier (the int64-bias 16x8 kernels) rounds by
        ``1 << (14 - shift)``: a shift above 14 (an effective scale of 2^14 or more) makes that a
        negative shift count, undefined in the reference, so there is nothing to match."""
        _, shifts = conv_multipliers(self.source, self.weights, self.target, self.channels)
        if shifts.size and int(shifts.max()) > 14:
            yield (
                f"the effective output scale (input * filter / output) reaches "
                f"2^{int(shifts.max()) - 1}; the int16 requantization with an int64 bias is "
                "defined below 2^14 only (LiteRT's 64-bit MultiplyByQuantizedMultiplier): "
                "requantize the layer with a larger output scale"
            )

    # -- hybrid: float32 activations, int8 filter (hk_conv_hybrid.h) ---------------------------
    def hybrid_per_channel(self) -> bool:
        """LiteRT's per-channel hybrid form: every depthwise, a CONV_2D whose filter scales
        differ or that is grouped; else the per-tensor form (symmetric image quantization)."""
        if self.FAMILY == "depthwise":
            return True
        scales = np.asarray(self.weights.required_quantization().scale, np.float32).reshape(-1)
        grouped = int(self.source.shape[3]) != int(self.weights.shape[3])
        return bool(np.any(scales != scales[0])) or grouped

    def hybrid_problems(self) -> Iterable[str]:
        """A per-channel form needs a scale per output channel (LiteRT indexes them so)."""
        scales = np.asarray(self.weights.required_quantization().scale).reshape(-1)
        if self.hybrid_per_channel() and scales.size != self.channels:
            yield (
                f"hybrid {self.op.op_type} needs {self.channels} filter scales (one per output "
                f"channel), the filter has {scales.size}"
            )

    def hybrid_fields(self) -> list[tuple[str, str]]:
        lo, hi = float_clamp(self.options.activation)
        scales = np.asarray(self.weights.required_quantization().scale, np.float32).reshape(-1)
        channel = "NULL"
        if self.hybrid_per_channel():
            channel = self.ptr(self.get_local_tensor("channel_scale"), const=True)
        # The depthwise fields name no output channel count; the hybrid kernels read it.
        count = [("output_channels", str(self.channels))] if self.FAMILY == "depthwise" else []
        return count + [
            ("per_channel", "1" if self.hybrid_per_channel() else "0"),
            ("filter_scale", c_float(float(scales[0]))),
            ("channel_scale", channel),
            ("act_min_f32", c_float(lo)),
            ("act_max_f32", c_float(hi)),
        ]

    def on_resolve(self) -> None:
        if self.kind() == "hybrid":
            # One batch image quantized at a time, as the reference quantizes each on its own.
            n, h, w, c = (int(d) for d in self.source.shape)
            self.add_scratch("quantized_image", h * w * c, alignment=4)
            if self.hybrid_per_channel():
                scales = np.asarray(self.weights.required_quantization().scale, np.float32).reshape(-1)
                self.intern_constant_array("channel_scale", scales, alignment=4)
            return
        if self.kind() not in ("f32", "f16"):
            mult, shift = conv_multipliers(self.source, self.weights, self.target, self.channels)
            self.intern_constant_array("output_multiplier", mult)
            if self.int4_per_use():
                # Each channel's bias and shift in one int32 word (hk_int4.h): 4 B a channel
                # less than an int32 bias and an int32 shift; the model's bias is not read.
                from helia_aot_ops_builtin.common.int4_weights import channel_words

                words = channel_words(None if self.bias is None else self.bias.data, shift)
                assert words is not None  # int4_per_use checked that the bias fits
                shift = words
            self.intern_constant_array("output_shift", shift)
        if self.folds_offset():
            bias = None if self.bias is None else self.bias.data
            folded = offset_bias(
                self.weights.required_data(),
                bias,
                -self.source.zero_point(),
                self.CHANNEL_AXIS,
                pad_to=4 if self.FAMILY == "conv" else 1,
            )
            self.intern_constant_array("offset_bias", folded)
        self.bias_folded = self._bias_folds()
        if self.bias_folded:
            assert self.bias is not None  # _bias_folds checked it
            folded = offset_bias(
                self.weights.required_data(), self.bias.data, -self.source.zero_point(), self.CHANNEL_AXIS
            )
            self.intern_constant_array("folded_bias", folded)
        elif "folded_bias" in self.op.named_tensors:  # resolved again under another goal
            self.model.tensors.pop(self.op.named_tensors.pop("folded_bias"), None)
        self.resolve_int4()

    # -- goal size: the input offset folded into the bias it replaces -------------------------
    bias_folded: bool = False  # set at Resolve (_bias_folds)

    def _bias_folds(self) -> bool:
        """Whether goal size's kernels run from ``bias + input_offset * Sum(w)`` in place of the
        model's bias, with an input offset of 0: exact where no tap is ever padded (every
        window inside the input, so each window's offset term is the whole filter's), and free
        where this operator is the constant bias's only reader (the folded copy then replaces
        it: the same int32 per channel, so the constants do not grow). Otherwise the kernels
        keep today's size form (the model's bias, filter sums taken at run time)."""
        bias = self.bias
        if not (
            self.FAMILY in ("conv", "depthwise")
            and self.kind() == "s8"
            and not self.generic_kernel()
            and self.adds_offset_per_input()
            and bias is not None
            and bias.is_constant
            and self.weights.is_constant
            and self._windows_inside()
        ):
            return False
        model = self.model
        if bias.id in model.outputs or any(
            bias.id in region.inputs or bias.id in region.outputs for region in model.regions.values()
        ):
            return False
        return _readers(model).get(bias.id, 0) == 1

    def _windows_inside(self) -> bool:
        """Whether every window lies wholly inside the input (VALID, or SAME that pads nothing)."""
        (oh, pad_top), (ow, pad_left) = self._spatial()
        _, h, w, _ = self.source.shape
        _, kh, kw, _ = self.weights.shape  # [O or 1, H, W, I or C]: the window at 1 and 2
        o = self.options
        return bool(
            pad_top == 0
            and pad_left == 0
            and (oh - 1) * o.stride_h + (kh - 1) * o.dilation_h + 1 <= h
            and (ow - 1) * o.stride_w + (kw - 1) * o.dilation_w + 1 <= w
        )

    def reads_input(self, position: int) -> bool:
        """The model's bias is not read where the folded copy replaces it (goal size), nor by
        the int4 per-use kernels, whose channel words carry it."""
        return not (position == self.BIAS and (self.bias_folded or self.int4_per_use()))

    def folds_offset(self) -> bool:
        """Whether the int8 fast paths get ``offset_bias``: it needs the filter and bias as data,
        and goal ``size`` keeps the model's own constants (:meth:`adds_offset_per_input`)."""
        return (
            self.FAMILY in ("conv", "depthwise")
            and self.kind() == "s8"
            and not self.generic_kernel()
            and self.weights.is_constant
            and (self.bias is None or self.bias.is_constant)
            and not self.adds_offset_per_input()
        )

    def adds_offset_per_input(self) -> bool:
        """Goal ``size``: the int8 fast loops run from the model's bias, adding the input offset
        to each input as the reference does, instead of from a folded ``offset_bias`` constant
        (4 B per output channel; KWS has 9 such layers of 64 channels). Constants stay the
        generic kernels' and no fast-path buffer is asked for (the convolution runs
        hk_conv_s8_unfolded: Helium's four-filter loop, the general loop elsewhere). Where no
        tap is padded the offset is folded into the bias it replaces (:meth:`_bias_folds`)."""
        return self.optimization_goal == "size"

    def goal_size_savings(self) -> tuple[int, int]:
        """What goal size's form gives up here: the folded ``offset_bias`` stored beside the
        model's bias (size stores no second copy: it runs from the model's bias, or folds the
        offset into the bias it replaces where no tap is padded) and the fast path's buffer,
        when this module has them."""
        if not self.folds_offset() or "offset_bias" not in self.op.named_tensors:
            return (0, 0)
        scratch = self.get_local_tensor("scratch").nbytes if self.has_scratch("scratch") else 0
        return (self.get_local_tensor("offset_bias").nbytes, scratch)

    def fast_path_fields(self) -> list[tuple[str, str]]:
        """The params fields of the int8 fast paths (all absent: the kernel's generic loop)."""
        if not self.folds_offset():
            return []
        return [("offset_bias", self.ptr(self.get_local_tensor("offset_bias"), const=True))]

    def activation_fields(self) -> list[tuple[str, str]]:
        """The clamp (and, quantized, the offsets and multiplier tables) of the params struct."""
        if self.kind() == "hybrid":
            return self.hybrid_fields()
        if self.kind() in ("f32", "f16"):
            lo, hi = float_clamp(self.options.activation)
            clamp = [("act_min_f32", c_float(lo)), ("act_max_f32", c_float(hi))]
            accumulates = self.kind() == "f16" and self.FAMILY in ("conv", "depthwise")
            return clamp + (f16_accumulation_fields(self) if accumulates else [])
        lo, hi = quantized_clamp(self.options.activation, self.target)
        offset = 0 if self.bias_folded else -self.source.zero_point()  # folded: in the bias
        return [
            ("input_offset", str(offset)),
            ("output_offset", str(self.target.zero_point())),
            ("act_min", str(lo)),
            ("act_max", str(hi)),
            ("output_multiplier", self.ptr(self.get_local_tensor("output_multiplier"), const=True)),
            ("output_shift", self.ptr(self.get_local_tensor("output_shift"), const=True)),
        ]

    def data_args(self) -> list[str]:
        if self.kind() == "hybrid":
            scratch = self.ptr(self.get_local_tensor("quantized_image"), ctype="int8_t")
            return [
                self.data_ptr(self.source),
                self.data_ptr(self.weights),
                self.data_ptr(self.bias),
                scratch,
                self.ptr(self.target),
            ]
        bias = self.get_local_tensor("folded_bias") if self.bias_folded else self.bias
        if self.int4_per_use():
            bias = None  # in the channel words (output_shift)
        return [
            self.data_ptr(self.source),
            self.data_ptr(self.weights),
            self.data_ptr(bias),
            self.ptr(self.target),
        ]


class Conv2DOperator(_WindowOperator):
    """CONV_2D (grouped when the input has a multiple of the filter's input channels)."""

    TYPE = AirOpType.CONV_2D.value
    FAMILY = "conv"
    KNOB_FAMILY = "conv_s8"
    HYBRID_WEIGHT_DTYPES = ("int8", "int4")  # hybrid, int4 unpacked once (hk_conv_hybrid.h)
    WEIGHT_DTYPES = ("int4",)  # constant, packed: helia_aot_ops_builtin.common.int4_weights
    im2col_general: int = 0  # hk_conv_im2col_params_t.general, set with its tables at Resolve
    FIXED_AFTER_RESOLVE = ("im2col_shape", "im2col_in_place")  # with _WindowOperator's
    RESTRICTIONS = _COMMON_RESTRICTIONS + (
        "The filter may also be a constant int4 tensor (per-channel or per-tensor) wherever an "
        "int8 one is accepted.",
        "Input channels must be a multiple of the filter's, and output channels of the group count.",
        FLOAT16_RESTRICTION,
        HYBRID_RESTRICTION,
    )

    def _spatial(self) -> tuple[tuple[int, int], tuple[int, int]]:
        o, (_, h, w, _), (_, kh, kw, _) = self.options, self.source.shape, self.weights.shape
        if o.explicit_padding is not None:
            top, bottom, left, right = o.explicit_padding
            return (
                ((h + top + bottom - (kh - 1) * o.dilation_h - 1) // o.stride_h + 1, top),
                ((w + left + right - (kw - 1) * o.dilation_w - 1) // o.stride_w + 1, left),
            )
        return (
            window_geometry(o.padding, h, kh, o.stride_h, o.dilation_h),
            window_geometry(o.padding, w, kw, o.stride_w, o.dilation_w),
        )

    def geometry_problems(self) -> Iterable[str]:
        o = self.options
        if min(o.stride_h, o.stride_w, o.dilation_h, o.dilation_w) < 1:
            yield "strides and dilations must be positive"
            return
        if o.explicit_padding is not None and min(o.explicit_padding) < 0:
            yield f"explicit padding {o.explicit_padding} has a negative pad"
            return
        n, _, _, c = self.source.shape
        oc, kh, kw, fic = self.weights.shape
        if min(kh, kw, fic, oc) < 1 or c % fic != 0 or oc % (c // fic) != 0:
            yield (
                f"a filter of shape {tuple(self.weights.shape)} does not fit {c} input channels "
                "(grouped convolution needs a whole number of filters per group)"
            )
            return
        (oh, _), (ow, _) = self._spatial()
        if tuple(self.target.shape) != (n, oh, ow, oc):
            yield f"output shape {tuple(self.target.shape)} is not the expected {(n, oh, ow, oc)}"

    def macs(self) -> int:
        if self.options.rewritten_from == AirOpType.TRANSPOSE_CONV.value:
            n, h, w, _ = self.source.shape  # one per weight for each input row, as TRANSPOSE_CONV
            return self.weights.size * n * h * w
        n, oh, ow, _ = self.target.shape
        return self.weights.size * n * oh * ow

    def kernel(self) -> KernelCall:
        o = self.options
        n, h, w, c = self.source.shape
        oc, kh, kw, fic = self.weights.shape
        (oh, pad_top), (ow, pad_left) = self._spatial()
        fields = [
            ("batches", n),
            ("input_height", h),
            ("input_width", w),
            ("input_channels", c),
            ("filter_height", kh),
            ("filter_width", kw),
            ("filter_input_channels", fic),
            ("output_height", oh),
            ("output_width", ow),
            ("output_channels", oc),
            ("stride_height", o.stride_h),
            ("stride_width", o.stride_w),
            ("dilation_height", o.dilation_h),
            ("dilation_width", o.dilation_w),
            ("pad_top", pad_top),
            ("pad_left", pad_left),
        ]
        fields = [(k, str(v)) for k, v in fields] + self.activation_fields() + self.fast_path_fields()
        if self.uses_im2col():
            # hk_conv_im2col_params_t wraps hk_conv_s8's params (designated as .conv.<field>).
            # Reading pixels in place it takes no scratch (a buffer in dead bytes is the other
            # cores' alone).
            in_place = self.im2col_in_place()
            fields = [(f"conv.{k}", v) for k, v in fields if not (in_place and k.startswith("scratch"))]
            fields += [
                ("packed", self.ptr(self.get_local_tensor("im2col_filter"), const=True)),
                ("column", str(im2col_column(kh, kw, fic))),
                ("quant", self.ptr(self.get_local_tensor("im2col_quant"), const=True)),
                ("general", str(self.im2col_general)),
                ("half", str(int(im2col_half(kh, kw, fic)))),
            ]
        return KernelCall(
            self.kernel_function(),
            self.data_args(),
            self.params_type(),
            dict(fields),
            params_in_run=True,
        )

    def im2col_shape(self) -> bool:
        """Whether the int8 fast path folds the offset here, the geometry suits the im2col kernel
        (a window over few input channels, see ``im2col_packing``) and the cycle model keeps it
        (:meth:`im2col_modeled`)."""
        if not self.folds_offset():
            return False
        _, kh, kw, fic = self.weights.shape
        if not im2col_applies(int(kh), int(kw), int(fic), int(self.source.shape[3])):
            return False
        return self.im2col_modeled()

    def im2col_modeled(self) -> bool:
        """Whether the kernel cycle table keeps the im2col kernel for this shape on this core
        (``common.kernel_cycles``, decision ``conv_im2col``): at ``latency`` and ``balanced`` the
        direct fast path replaces it where its modeled cycles are fewer and its instructions no
        more; both use the same scratch, so the arena stays. No rows (other cores): kept."""
        shape = self.kernel_shape()
        if shape is None:
            return True
        cpu = str(self.platform.cpu)
        choice = modeled_choice("conv_im2col", cpu, shape, self.optimization_goal, IM2COL_VALUES, "im2col")
        return choice != "direct"

    im2col_off: bool = False  # set while the other cores' call is rendered

    def uses_im2col(self) -> bool:
        """Whether Helium calls hk_conv_s8_im2col: the shape suits it, its packed filters exist,
        and the fast path's own scratch (which holds its two columns) was kept, not borrowed
        from dead bytes (hk_conv_s8_reuse) nor given up, and rows are not streamed in place
        (that template narrows hk_conv_s8's params row by row)."""
        return (
            not self.im2col_off
            and self.im2col_shape()
            and "im2col_filter" in self.op.named_tensors
            and (self.im2col_in_place() or (self.has_scratch("scratch") and not self.reuses_scratch()))
            and not self.rows_in_place
        )

    def im2col_in_place(self) -> bool:
        """Whether the im2col kernel reads its pixels in place, with no scratch: an unpadded 1x1
        filter whose pixels fit half a vector (two pixels per vector)."""
        (_, pad_top), (_, pad_left) = self._spatial()
        _, kh, kw, fic = self.weights.shape
        return (kh, kw, pad_top, pad_left) == (1, 1, 0, 0) and im2col_half(1, 1, int(fic))

    def kernel_variants(self) -> list[KernelVariant]:
        variants = super().kernel_variants()
        if self.im2col_shape():
            # The packed filters and requantization table are constants it adds.
            oc, kh, kw, fic = self.weights.shape
            groups = -(-int(oc) // 4)
            packed = groups * 4 * im2col_column(int(kh), int(kw), int(fic)) + groups * 48
            variants[0] = replace(variants[0], const_bytes=variants[0].const_bytes + packed)
        return variants

    def scratch_bytes(self) -> int:
        """``hk_conv_s8_scratch_size`` for this geometry (0: no fast path, no scratch)."""
        if not self.folds_offset():
            return 0
        return self.specialized_scratch_bytes()

    def specialized_scratch_bytes(self) -> int:
        oc, kh, kw, fic = self.weights.shape
        return conv_s8_scratch_bytes(kh, kw, fic, self.source.shape[3], oc)

    def on_resolve(self) -> None:
        super().on_resolve()
        size = self.scratch_bytes()
        if size:
            # 16-byte aligned: the Helium path reads it in whole vectors, the DSP path in words.
            # Optional: without it Helium runs hk_conv_s8_lean (accumulators in registers) and
            # other cores the generic loop, so the planner may drop it where it would raise
            # the arena (dilated widths have no lean variant, so they keep it).
            lean = self.options.dilation_w == 1
            self.add_scratch("scratch", size, alignment=16, optional=lean, free_on=self._scratch_free_on())
            if lean and self._bands_fit(size):
                self.reusable_scratch["scratch"] = self.INPUT
        # After the scratch, so the tensors other cores' calls name keep their numbers.
        if self.im2col_shape():
            self.intern_constant_array(
                "im2col_filter", im2col_packed(self.weights.required_data()), alignment=16
            )
            mult = self.get_local_tensor("output_multiplier").required_data()
            shift = self.get_local_tensor("output_shift").required_data()
            folded = self.get_local_tensor("offset_bias").required_data()
            self.intern_constant_array("im2col_quant", im2col_quant(folded, mult, shift), alignment=16)
            self.im2col_general = im2col_general(mult, shift)
            self.resolve_int4()  # again: the im2col filter is int4 too

    def _bands_fit(self, need: int) -> bool:
        """Whether hk_conv_s8_reuse finds ``need`` bytes for every band of output rows, with the
        input dying here: the output rows after the first band (less 15 bytes of alignment),
        then the input rows above the next band's first window row (hk_conv_reuse.c's rule)."""
        n, h, w, cin = self.source.shape
        _, oh, ow, oc = self.target.shape
        (_, pad_top), _ = self._spatial()
        row_in, row_out = w * cin, ow * oc
        for b in range(n):
            oy = 0
            while oy < oh:
                if (b * h + max(oy * self.options.stride_h - pad_top, 0)) * row_in >= need:
                    break
                ends = [e for e in range(oh, oy, -1) if (n * oh - b * oh - e) * row_out - 15 >= need]
                if not ends:
                    return False
                oy = ends[0]
        return True

    def _scratch_free_on(self) -> tuple[str, ...]:
        """Where dropping the buffer costs no instructions: Helium's pointwise path over at most
        16 channels (conv_small_s8) never reads it, so hk_conv_s8_lean runs the same code; the
        DSP and scalar paths use it for every geometry (without it they take the generic loop)."""
        (_, pad_top), (_, pad_left) = self._spatial()
        _, kh, kw, _ = self.weights.shape
        pointwise = (kh, kw, pad_top, pad_left) == (1, 1, 0, 0)
        return ("mve",) if pointwise and self.source.shape[3] <= 16 else ()

    def reuses_scratch(self) -> bool:
        """Whether the planner put the fast path's buffer in this operator's dead bytes."""
        return "scratch" in self.reused_scratch

    def kernel_families(self) -> tuple[str, ...]:
        if self.uses_im2col():
            return ("conv_im2col", *self.without_im2col(self.kernel_families))
        if self.reuses_scratch():
            return ("conv_reuse",)
        if self.unfolded():
            return ("conv_unfolded",)
        return super().kernel_families()

    def unfolded(self) -> bool:
        """Goal size's int8 fast loop: from the model's bias, no buffer (hk_conv_unfolded.h)."""
        return self.kind() == "s8" and not self.generic_kernel() and self.adds_offset_per_input()

    def unfolded_entry(self) -> str:
        """Goal size's entry for this layer, named here so a module links only the loops its
        layers take (see helia_aot_ops_builtin.conv.unfolded_entries); row loops and patch stages call
        the same one on row slices (a 1x1 slice stays unpadded)."""
        from helia_aot_ops_builtin.conv.unfolded_entries import geometry_entry, layer_entry  # goal size only

        _, kh, kw, fic = (int(d) for d in self.weights.shape)
        (_, pad_top), (_, pad_left) = self._spatial()
        entry = geometry_entry(int(self.source.shape[3]), (kh, kw, fic), (pad_top, pad_left))
        return layer_entry(self.model, entry)

    def without_im2col(self, method: Any) -> Any:
        """``method()`` as it answers for the call the other cores make (im2col is Helium's)."""
        self.im2col_off = True
        try:
            return method()
        finally:
            self.im2col_off = False

    def on_placed(self, memory_plan: Any) -> None:
        """Where Helium takes the im2col kernel the run function chooses by core: the template
        renders both calls under ``HK_HAVE_MVE``, so the other cores' code is exactly as
        without it."""
        super().on_placed(memory_plan)
        if self.uses_im2col():
            self.TEMPLATE = "conv_im2col.c.mako"

    def compute_values(self) -> dict[str, Any]:
        values = super().compute_values()
        if self.uses_im2col():
            values["fallback"] = self.without_im2col(super().compute_values)
        return values

    def kernel_function(self) -> str:
        """The int8 entry is chosen here, where the plan says whether the fast path's buffer was
        kept: ``hk_conv_s8_scratch`` (the fast path alone) where it was, ``hk_conv_s8_scratch_free``
        (Helium's lean path, else the general loop) where it was dropped or never asked for, so a
        module links only the code it calls (``hk_conv_s8`` reaches both at run time)."""
        if self.uses_im2col():
            return "conv_s8_im2col"
        if self.reuses_scratch():
            return "conv_s8_reuse"
        if self.unfolded():
            return self.unfolded_entry()
        entry = super().kernel_function()
        if entry != "conv_s8":
            return entry
        return "conv_s8_scratch" if self.scratch_kept() else "conv_s8_scratch_free"

    def scratch_kept(self) -> bool:
        """Whether the fast path runs: its buffer was asked for (the offset folds, the filter is
        ungrouped) and the planner kept it; int8 input offsets always fit the path's range."""
        return self.scratch_bytes() > 0 and self.has_scratch("scratch")

    def params_type(self) -> str:
        return "conv_im2col_params_t" if self.uses_im2col() else super().params_type()

    def data_args(self) -> list[str]:
        args = super().data_args()
        if self.reuses_scratch() and not self.uses_im2col():
            args[0] = self.ptr(self.source)  # the kernel overwrites the consumed input rows
        return args

    def fast_path_fields(self) -> list[tuple[str, str]]:
        fields = super().fast_path_fields()
        size = self.scratch_bytes()
        if size and self.has_scratch("scratch"):
            fields += [
                ("scratch", self.ptr(self.get_local_tensor("scratch"), ctype="void")),
                ("scratch_size", str(size)),
            ]
        return fields


class DepthwiseConv2DOperator(_WindowOperator):
    """DEPTHWISE_CONV_2D: output channel ic * multiplier + m filters input channel ic."""

    TYPE = AirOpType.DEPTHWISE_CONV_2D.value
    FAMILY = "depthwise"
    KNOB_FAMILY = "depthwise_s8"
    HYBRID_WEIGHT_DTYPES = ("int8",)  # LiteRT's hybrid depthwise refuses int4
    WEIGHT_DTYPES = ("int4",)  # constant, packed: helia_aot_ops_builtin.common.int4_weights
    OPTIONS = AirDepthwiseConv2DOptions
    CHANNEL_AXIS = 3
    RESTRICTIONS = (
        "Input, filter and output are 4-D NHWC tensors with static shapes; the filter is "
        "[1, height, width, channels] with channels a multiple of the input's.",
        "Types: float32; int8 activations with a symmetric int8 or constant int4 filter and int32 "
        "bias; int16 activations (zero point 0) with an int8 filter and int64 bias (LiteRT's "
        "reference reads an int4 filter there without unpacking it).",
        ACTIVATION_RESTRICTION,
        FLOAT16_RESTRICTION,
        HYBRID_RESTRICTION,
    )

    def _spatial(self) -> tuple[tuple[int, int], tuple[int, int]]:
        o, (_, h, w, _), (_, kh, kw, _) = self.options, self.source.shape, self.weights.shape
        return (
            window_geometry(o.padding, h, kh, o.stride_h, o.dilation_h),
            window_geometry(o.padding, w, kw, o.stride_w, o.dilation_w),
        )

    def geometry_problems(self) -> Iterable[str]:
        o = self.options
        if min(o.stride_h, o.stride_w, o.dilation_h, o.dilation_w) < 1:
            yield "strides and dilations must be positive"
            return
        n, _, _, c = self.source.shape
        one, kh, kw, oc = self.weights.shape
        if one != 1 or min(kh, kw, c) < 1 or oc % c != 0 or oc < c:
            yield f"filter shape {tuple(self.weights.shape)} does not fit {c} input channels"
            return
        (oh, _), (ow, _) = self._spatial()
        if tuple(self.target.shape) != (n, oh, ow, oc):
            yield f"output shape {tuple(self.target.shape)} is not the expected {(n, oh, ow, oc)}"

    def macs(self) -> int:
        n, oh, ow, _ = self.target.shape
        return self.weights.size * n * oh * ow

    def kernel(self) -> KernelCall:
        o = self.options
        n, h, w, c = self.source.shape
        _, kh, kw, oc = self.weights.shape
        (oh, pad_top), (ow, pad_left) = self._spatial()
        fields = [
            ("batches", n),
            ("input_height", h),
            ("input_width", w),
            ("input_channels", c),
            ("depth_multiplier", oc // c),
            ("filter_height", kh),
            ("filter_width", kw),
            ("output_height", oh),
            ("output_width", ow),
            ("stride_height", o.stride_h),
            ("stride_width", o.stride_w),
            ("dilation_height", o.dilation_h),
            ("dilation_width", o.dilation_w),
            ("pad_top", pad_top),
            ("pad_left", pad_left),
        ]
        fields = [(k, str(v)) for k, v in fields] + self.activation_fields() + self.fast_path_fields()
        return KernelCall(
            self.kernel_function(),
            self.data_args(),
            self.params_type(),
            dict(fields),
            params_in_run=True,
        )


class TransposeConvOperator(_WindowOperator):
    """TRANSPOSE_CONV: inputs are (output_shape, filter [O, H, W, I], input, optional bias)."""

    TYPE = AirOpType.TRANSPOSE_CONV.value
    FAMILY = "transpose_conv"
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8, np.int16)
    OPTIONS = AirTransposeConvOptions
    INPUT, FILTER, BIAS = 2, 1, 3
    RESTRICTIONS = _COMMON_RESTRICTIONS + (
        "The output shape must be static, and SAME/VALID padding of it must give the input's size.",
        FLOAT16_RESTRICTION,
    )

    def reads_input(self, position: int) -> bool:
        # The output shape operand is checked against the output tensor at conversion.
        return position != 0 and super().reads_input(position)

    def _spatial(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(input size, leading pad) per axis, from the output size as LiteRT's Eval does."""
        o, (_, oh, ow, _), (_, kh, kw, _) = self.options, self.target.shape, self.weights.shape
        return (
            window_geometry(o.padding, oh, kh, o.stride_h),
            window_geometry(o.padding, ow, kw, o.stride_w),
        )

    def geometry_problems(self) -> Iterable[str]:
        o = self.options
        if min(o.stride_h, o.stride_w) < 1:
            yield "strides must be positive"
            return
        shape_tensor = self.input_or_none(0)
        if (
            shape_tensor is not None
            and shape_tensor.is_constant
            and tuple(int(v) for v in np.asarray(shape_tensor.data).reshape(-1)) != tuple(self.target.shape)
        ):
            wanted = shape_tensor.required_data().tolist()
            yield f"output_shape {wanted} differs from the output tensor's shape"
        n, h, w, c = self.source.shape
        oc, kh, kw, ic = self.weights.shape
        if ic != c or min(kh, kw, oc) < 1:
            yield f"filter shape {tuple(self.weights.shape)} does not fit {c} input channels"
            return
        if self.target.shape[0] != n or self.target.shape[3] != oc:
            yield f"output shape {tuple(self.target.shape)} does not match batch {n} and {oc} filters"
        (ih, _), (iw, _) = self._spatial()
        if (ih, iw) != (h, w):
            yield (
                f"{o.padding} padding of output {tuple(self.target.shape[1:3])} expects input "
                f"{(ih, iw)}, not {(h, w)}"
            )

    def macs(self) -> int:
        n, h, w, _ = self.source.shape
        return self.weights.size * n * h * w

    def kernel(self) -> KernelCall:
        o = self.options
        n, h, w, c = self.source.shape
        oc, kh, kw, _ = self.weights.shape
        _, oh, ow, _ = self.target.shape
        (_, pad_top), (_, pad_left) = self._spatial()
        fields = [
            ("batches", n),
            ("input_height", h),
            ("input_width", w),
            ("input_channels", c),
            ("filter_height", kh),
            ("filter_width", kw),
            ("output_height", oh),
            ("output_width", ow),
            ("output_channels", oc),
            ("stride_height", o.stride_h),
            ("stride_width", o.stride_w),
            ("pad_top", pad_top),
            ("pad_left", pad_left),
        ]
        fields = [(k, str(v)) for k, v in fields] + self.activation_fields()
        return KernelCall(
            self.kernel_function(),
            self.data_args(),
            self.params_type(),
            dict(fields),
            params_in_run=True,
        )


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.CONV_2D.value,
        parse_conv_2d,
        AirConv2DOptions,
        Conv2DOperator,
        arity=Arity(2, 3, optional=(2,)),
    ),
    OperatorRecord(
        AirOpType.DEPTHWISE_CONV_2D.value,
        parse_depthwise_conv_2d,
        AirDepthwiseConv2DOptions,
        DepthwiseConv2DOperator,
        arity=Arity(2, 3, optional=(2,)),
    ),
    OperatorRecord(
        AirOpType.TRANSPOSE_CONV.value,
        parse_transpose_conv,
        AirTransposeConvOptions,
        TransposeConvOperator,
        arity=Arity(3, 4, optional=(3,)),
    ),
]
