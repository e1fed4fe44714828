"""The integer operators of a model that asks for onnxruntime's requantization.

A front end that records ``requantization: "onnx"`` in the AIR model's metadata (the ONNX front
end does, for QDQ models) has its int8 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL,
ADD, SUB, MUL, AVERAGE_POOL_2D and MEAN rewritten by the ONNX_REQUANTIZATION transform
(``transforms/onnx_requantization.py``) into the ``ONNX_*`` operators here, whose kernels
(``hk_onnx_requant.h``) requantize as onnxruntime's integer kernels do: the float32 multiplier
``input scale * weight scale / output scale``, the accumulator converted to float32 and
multiplied, rounded half to even. ADD, SUB and MUL dequantize, compute and quantize in float32 as
ONNX's QDQ definition says. A model without the metadata, or
with ``"litert"``, never meets these operators: its modules are what they always were.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from helia_aot.air import AirOperator, AirTensor
from helia_aot.codegen import c_float
from helia_aot.errors import UnsupportedModelError
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import CTable, KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.quantization import FUSED_ACTIVATIONS, quantized_clamp
from helia_aot_ops_builtin.common.weighted_prepare import window_geometry
from helia_aot_ops_builtin.conv.conv import AirConv2DOptions, AirDepthwiseConv2DOptions
from helia_aot_ops_builtin.elementwise.binary import AirAddOptions, AirMulOptions, AirSubOptions
from helia_aot_ops_builtin.fully_connected.fully_connected import (
    AirBatchMatMulOptions,
    AirFullyConnectedOptions,
    fold_fc_bias,
    pack_fc_filter,
)
from helia_aot_ops_builtin.pooling.pool import AirPool2DOptions
from helia_aot_ops_builtin.reduce.reduce import AirReducerOptions

F32 = np.float32
MADE = (
    "Made by the ONNX_REQUANTIZATION transform from the LiteRT-named operator in a model whose "
    "metadata asks for requantization 'onnx' (the ONNX front end); never read from a file."
)
PER_TENSOR = "Activations int8, quantized per tensor."


class _OnnxOperator(KernelCallOperator):
    KERNELS = ("onnx_requant",)
    SUPPORTED_DTYPES: tuple[type, ...] | None = (np.int8,)
    PARAMS_COMMENT = "{op_type} parameters, requantized as onnxruntime does"

    def call_role(self) -> str:
        return self.op.op_type.lower()

    def _per_tensor(self, *tensors: AirTensor) -> Iterable[str]:
        for t in tensors:
            if t.quantization is None or t.quantization.per_channel:
                yield f"{label(t)} must be quantized per tensor"

    def _activation(self) -> tuple[int, int]:
        return quantized_clamp(str(getattr(self.op.options, "activation", "NONE")), self.output_tensors[0])

    def _table(self, name: str, ctype: str, values: list[str], comment: str) -> CTable:
        return CTable(name, ctype, values, comment)


def _float_table(values: np.ndarray) -> list[str]:
    return [c_float(float(v)) for v in np.asarray(values, F32)]


class _OnnxWeighted(_OnnxOperator):
    """Shared checks and tables of the convolutions and FULLY_CONNECTED: constant int8 weights with
    zero zero points (per tensor or per output channel), an optional constant int32 bias."""

    CHANNEL_AXIS = 0

    def _weights(self) -> AirTensor:
        return self.input_tensors[1]

    def _bias(self) -> AirTensor | None:
        ins = self.input_tensors
        return ins[2] if len(ins) > 2 and ins[2] is not None else None

    def check(self) -> Iterable[str]:
        ins = self.input_tensors
        if len(ins) < 2 or ins[1] is None:
            yield "needs an input and weights"
            return
        x, w, y = ins[0], ins[1], self.output_tensors[0]
        yield from self._per_tensor(x, y)
        if not w.is_constant or w.dtype.numpy != np.int8 or w.quantization is None:
            yield f"weights {label(w)} must be constant int8 and quantized"
            return
        if np.any(np.asarray(w.quantization.zero_point) != 0):
            yield f"weights {label(w)} must have zero zero points (symmetric)"
        bias = self._bias()
        if bias is not None and (not bias.is_constant or bias.dtype.numpy != np.int32):
            yield f"bias {label(bias)} must be constant int32"
        if str(getattr(self.op.options, "activation", "NONE")) not in FUSED_ACTIVATIONS:
            yield "unsupported fused activation"

    def _multipliers(self, channels: int) -> np.ndarray:
        w = self._weights()
        scales = np.asarray(w.required_quantization().scale, F32)
        if scales.size == 1:
            scales = np.repeat(scales, channels)
        x, y = self.input_tensors[0], self.output_tensors[0]
        return (F32(x.scale()) * scales) / F32(y.scale())

    def _multiplier_table(self, channels: int) -> tuple[CTable, str]:
        mult = self._table(
            "multiplier",
            "float",
            _float_table(self._multipliers(channels)),
            "onnxruntime's float32 multipliers",
        )
        return mult, self.table_ref(mult)

    # -- the packed kernel (hk_onnx_conv_packed_s8): CONV_2D and FULLY_CONNECTED ------------------
    def _rows(self) -> np.ndarray:
        """The weights as [output channels, taps] rows (OHWI and [units, depth] flatten alike)."""
        w = self._weights().required_data()
        return np.asarray(w, np.int8).reshape(w.shape[0], -1)

    def _patch_bytes(self) -> int:
        """``hk_onnx_conv_patch_size``: 0 where every window is one pixel inside the image."""
        return 0

    def on_resolve(self) -> None:
        """The packed filter and the offset folded into the bias, made once here as LiteRT's packed
        FULLY_CONNECTED makes them (the kernel multiplies raw inputs); a gathered window's
        buffer where the windows are not single pixels read in place."""
        rows = self._rows()
        bias = self._bias()
        self.intern_constant_array("packed_filter", pack_fc_filter(rows), alignment=16)
        self.intern_constant_array(
            "offset_bias",
            fold_fc_bias(
                rows, None if bias is None else bias.required_data(), -self.input_tensors[0].zero_point(), 0
            ),
        )
        patch = self._patch_bytes()
        if patch:
            # Optional: without it the kernel gathers into the output's unwritten last bytes
            # (the last few pixels a chunk at a time on the stack: same sums), so the planner
            # drops it where it would raise the arena, as it does LiteRT CONV_2D's scratch on
            # the twin. Dead bytes at the cost of a few pixels: reusable where input 0 dies.
            self.add_scratch("patch", patch, alignment=4, optional=True)
            self.reusable_scratch["patch"] = 0

    def reads_input(self, position: int) -> bool:
        return position not in (1, 2)  # the packed filter and offset_bias replace them

    def _packed_call(self, params: dict[str, Any], tables: list[CTable]) -> KernelCall:
        x, y = self.input_tensors[0], self.output_tensors[0]
        patch = (
            self.ptr(self.get_local_tensor("patch"), ctype="int8_t") if self.has_scratch("patch") else "NULL"
        )
        args = [
            self.ptr(x, const=True),
            self.ptr(self.get_local_tensor("packed_filter"), const=True),
            self.ptr(self.get_local_tensor("offset_bias"), const=True),
            patch,
            self.ptr(y),
        ]
        return KernelCall("onnx_conv_packed_s8", args, "onnx_conv_params_t", params, tables=tables)


class OnnxConv2DOperator(_OnnxWeighted):
    """ONNX_CONV_2D: CONV_2D (and DEPTHWISE_CONV_2D) with onnxruntime's requantization."""

    RESTRICTIONS = (
        MADE,
        PER_TENSOR,
        "Weights constant int8 with zero zero points (per tensor or per channel); bias constant int32.",
        "Padding SAME, VALID or explicit; no grouped convolution.",
    )

    TYPE = "ONNX_CONV_2D"
    DEPTHWISE = False

    def _geometry(self) -> tuple[int, int, int, int]:
        o = self.typed_options(AirConv2DOptions)
        _, h, w, _ = self.input_tensors[0].shape
        _, fh, fw, _ = self._weights().shape
        if o.explicit_padding is not None:
            top, bottom, left, right = o.explicit_padding
            oh = (h + top + bottom - ((fh - 1) * o.dilation_h + 1)) // o.stride_h + 1
            ow = (w + left + right - ((fw - 1) * o.dilation_w + 1)) // o.stride_w + 1
            return oh, ow, top, left
        oh, pt = window_geometry(o.padding, h, fh, o.stride_h, o.dilation_h)
        ow, pl = window_geometry(o.padding, w, fw, o.stride_w, o.dilation_w)
        return oh, ow, pt, pl

    def check(self) -> Iterable[str]:
        problems = list(super().check())
        yield from problems
        if problems:
            return
        x, w, y = self.input_tensors[0], self._weights(), self.output_tensors[0]
        if len(x.shape) != 4 or len(w.shape) != 4 or len(y.shape) != 4:
            yield "input, filter and output must be 4-D"
            return
        o = self.typed_options(AirConv2DOptions)
        if o.explicit_padding is None and o.padding not in ("SAME", "VALID"):
            yield f"padding {o.padding} is not SAME or VALID"
            return
        oh, ow, _, _ = self._geometry()
        channels = w.shape[3] if self.DEPTHWISE else w.shape[0]
        if tuple(y.shape) != (x.shape[0], oh, ow, channels):
            yield f"output shape {tuple(y.shape)} is not the expected {(x.shape[0], oh, ow, channels)}"
        if not self.DEPTHWISE and w.shape[3] != x.shape[3]:
            yield "grouped convolutions are not supported with onnx requantization"
        if self.DEPTHWISE and channels % x.shape[3] != 0:
            yield "the depthwise filter's channels are not a multiple of the input's"

    def kernel(self) -> KernelCall:
        o = self.typed_options(AirConv2DOptions)
        x, w, y = self.input_tensors[0], self._weights(), self.output_tensors[0]
        n, h, wd, ic = x.shape
        oc = w.shape[3] if self.DEPTHWISE else w.shape[0]
        oh, ow, pt, pl = self._geometry()
        lo, hi = self._activation()
        table, mult = self._multiplier_table(oc)
        params: dict[str, Any] = {
            "batches": n,
            "input_height": h,
            "input_width": wd,
            "input_channels": ic,
            "output_height": oh,
            "output_width": ow,
            "output_channels": oc,
            "filter_height": w.shape[1],
            "filter_width": w.shape[2],
            "stride_height": o.stride_h,
            "stride_width": o.stride_w,
            "dilation_height": o.dilation_h,
            "dilation_width": o.dilation_w,
            "pad_top": pt,
            "pad_left": pl,
            "depth_multiplier": oc // ic if self.DEPTHWISE else 1,
            "input_offset": -x.zero_point(),
            "output_offset": y.zero_point(),
            "act_min": lo,
            "act_max": hi,
            "multiplier": mult,
            "bias": "NULL",
        }
        if not self.DEPTHWISE:
            return self._packed_call(params, [table])
        tables = [table]
        bias = self._bias()
        if bias is not None:
            b = self._table(
                "bias", "int32_t", [str(int(v)) for v in bias.required_data().reshape(-1)], "bias"
            )
            tables.append(b)
            params["bias"] = self.table_ref(b)
        args = [self.ptr(x, const=True), self.ptr(w, const=True), self.ptr(y)]
        return KernelCall("onnx_depthwise_s8", args, "onnx_conv_params_t", params, tables=tables)

    def _patch_bytes(self) -> int:
        o = self.typed_options(AirConv2DOptions)
        _, h, w, ic = self.input_tensors[0].shape
        _, fh, fw, _ = self._weights().shape
        oh, ow, pt, pl = self._geometry()
        inside = (oh - 1) * o.stride_h < h and (ow - 1) * o.stride_w < w
        return 0 if (fh, fw, pt, pl) == (1, 1, 0, 0) and inside else int(fh * fw * ic)

    def on_resolve(self) -> None:
        if not self.DEPTHWISE:
            super().on_resolve()

    def reads_input(self, position: int) -> bool:
        return self.DEPTHWISE or super().reads_input(position)

    def macs(self) -> int | None:
        y, w = self.output_tensors[0], self._weights()
        per_output = w.shape[1] * w.shape[2] * (1 if self.DEPTHWISE else w.shape[3])
        return int(np.prod(y.shape)) * per_output


class OnnxDepthwiseConv2DOperator(OnnxConv2DOperator):
    """ONNX_DEPTHWISE_CONV_2D: DEPTHWISE_CONV_2D with onnxruntime's requantization."""

    TYPE = "ONNX_DEPTHWISE_CONV_2D"
    DEPTHWISE = True


class OnnxFullyConnectedOperator(_OnnxWeighted):
    """ONNX_FULLY_CONNECTED: FULLY_CONNECTED with onnxruntime's requantization (QGemm)."""

    RESTRICTIONS = (
        MADE,
        PER_TENSOR,
        "Weights constant int8 [units, depth] with zero zero points; bias constant int32.",
    )

    TYPE = "ONNX_FULLY_CONNECTED"

    def check(self) -> Iterable[str]:
        problems = list(super().check())
        yield from problems
        if problems:
            return
        x, w, y = self.input_tensors[0], self._weights(), self.output_tensors[0]
        if len(w.shape) != 2 or x.size % w.shape[1] != 0 or y.size != (x.size // w.shape[1]) * w.shape[0]:
            yield f"input {tuple(x.shape)}, weights {tuple(w.shape)} and output {tuple(y.shape)} do not match"

    def kernel(self) -> KernelCall:
        """A 1x1 convolution over the input's rows (one pixel each), run by the packed kernel."""
        x, w, y = self.input_tensors[0], self._weights(), self.output_tensors[0]
        units, depth = w.shape
        rows = x.size // depth
        lo, hi = self._activation()
        table, mult = self._multiplier_table(units)
        params: dict[str, Any] = {
            "batches": 1,
            "input_height": rows,
            "input_width": 1,
            "input_channels": depth,
            "output_height": rows,
            "output_width": 1,
            "output_channels": units,
            "filter_height": 1,
            "filter_width": 1,
            "stride_height": 1,
            "stride_width": 1,
            "dilation_height": 1,
            "dilation_width": 1,
            "pad_top": 0,
            "pad_left": 0,
            "depth_multiplier": 1,
            "input_offset": -x.zero_point(),
            "output_offset": y.zero_point(),
            "act_min": lo,
            "act_max": hi,
            "multiplier": mult,
            "bias": "NULL",
        }
        return self._packed_call(params, [table])

    def macs(self) -> int | None:
        return int(self.output_tensors[0].size * self._weights().shape[1])


class OnnxBatchMatMulOperator(_OnnxOperator):
    """ONNX_BATCH_MATMUL: BATCH_MATMUL (QLinearMatMul) with onnxruntime's requantization; the
    batch dimensions of either operand may be one (broadcast), per-tensor quantization only."""

    RESTRICTIONS = (
        MADE,
        PER_TENSOR,
        "Either operand's batch dimensions may be one (broadcast) or the output's.",
    )

    TYPE = "ONNX_BATCH_MATMUL"

    def _dims(self) -> tuple[int, int, int, int, int, int]:
        """(batches, a batches, b batches, rows, depth, cols) after the adjoints."""
        o = self.typed_options(AirBatchMatMulOptions)
        a, b = self.input_tensors[0].shape, self.input_tensors[1].shape
        rows, depth = (a[-1], a[-2]) if o.adj_x else (a[-2], a[-1])
        cols = b[-2] if o.adj_y else b[-1]
        ab, bb = int(np.prod(a[:-2])), int(np.prod(b[:-2]))
        return max(ab, bb), ab, bb, rows, depth, cols

    def check(self) -> Iterable[str]:
        a, b, y = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        yield from self._per_tensor(a, b, y)
        if len(a.shape) < 2 or len(b.shape) < 2:
            yield "both operands must have at least two dimensions"
            return
        o = self.typed_options(AirBatchMatMulOptions)
        depth_b = b.shape[-1] if o.adj_y else b.shape[-2]
        batches, ab, bb, rows, depth, cols = self._dims()
        if depth != depth_b:
            yield f"inner dimensions {depth} and {depth_b} differ"
        if (
            ab not in (1, batches)
            or bb not in (1, batches)
            or (ab != bb and a.shape[:-2] != y.shape[:-2] and b.shape[:-2] != y.shape[:-2])
        ):
            yield "only whole-batch broadcasting (one operand with a single batch) is supported"
        if y.size != batches * rows * cols:
            yield f"output shape {tuple(y.shape)} does not match"

    def kernel(self) -> KernelCall:
        o = self.typed_options(AirBatchMatMulOptions)
        a, b, y = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        batches, ab, bb, rows, depth, cols = self._dims()
        mult = (F32(a.scale()) * F32(b.scale())) / F32(y.scale())
        table = self._table(
            "multiplier", "float", _float_table(np.array([mult])), "onnxruntime's float32 multiplier"
        )
        params: dict[str, Any] = {
            "batches": batches,
            "rows": rows,
            "cols": cols,
            "depth": depth,
            "a_batch_stride": 0 if ab == 1 else rows * depth,
            "a_row_stride": 1 if o.adj_x else depth,
            "a_depth_stride": rows if o.adj_x else 1,
            "b_batch_stride": 0 if bb == 1 else depth * cols,
            "b_depth_stride": 1 if o.adj_y else cols,
            "b_col_stride": depth if o.adj_y else 1,
            "a_offset": -a.zero_point(),
            "b_offset": -b.zero_point(),
            "output_offset": y.zero_point(),
            "act_min": -128,
            "act_max": 127,
            "per_channel": 0,
            "multiplier": self.table_ref(table),
            "bias": "NULL",
        }
        args = [self.ptr(a, const=True), self.ptr(b, const=True), self.ptr(y)]
        return KernelCall("onnx_matmul_s8", args, "onnx_matmul_params_t", params, tables=[table])


MAX_DIMS = 5


class _OnnxBinary(_OnnxOperator):
    RESTRICTIONS = (MADE, PER_TENSOR, "Up to 5 dimensions, broadcast by numpy's rules.")
    KIND = ""

    def check(self) -> Iterable[str]:
        a, b, y = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        yield from self._per_tensor(a, b, y)
        if len(y.shape) > MAX_DIMS:
            yield f"more than {MAX_DIMS} dimensions"
            return
        try:
            shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
        except ValueError:
            yield f"shapes {tuple(a.shape)} and {tuple(b.shape)} do not broadcast"
            return
        if tuple(shape) != tuple(y.shape):
            yield f"output shape {tuple(y.shape)} is not the broadcast shape {tuple(shape)}"
        if str(getattr(self.op.options, "activation", "NONE")) not in FUSED_ACTIVATIONS:
            yield "unsupported fused activation"

    @staticmethod
    def _strides(shape: tuple[int, ...], out: tuple[int, ...]) -> list[int]:
        shape = (1,) * (len(out) - len(shape)) + tuple(shape)
        strides, step = [], 1
        for size in reversed(shape):
            strides.append(step)
            step *= size
        return [
            0 if s == 1 and o != 1 else st for s, st, o in zip(shape, reversed(strides), out, strict=True)
        ]

    def kernel(self) -> KernelCall:
        a, b, y = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        out = tuple(int(d) for d in y.shape) or (1,)
        pad = [0] * (MAX_DIMS - len(out))
        lo, hi = self._activation()
        params: dict[str, Any] = {
            "dims": len(out),
            "shape": [*out, *[1] * len(pad)],
            "a_strides": [*self._strides(tuple(a.shape), out), *pad],
            "b_strides": [*self._strides(tuple(b.shape), out), *pad],
            "a_zero_point": a.zero_point(),
            "b_zero_point": b.zero_point(),
            "output_zero_point": y.zero_point(),
            "a_scale": F32(a.scale()),
            "b_scale": F32(b.scale()),
            "output_scale": F32(y.scale()),
            "act_min": lo,
            "act_max": hi,
        }
        args = [self.ptr(a, const=True), self.ptr(b, const=True), self.ptr(y)]
        return KernelCall(f"onnx_{self.KIND}_s8", args, "onnx_binary_params_t", params)


class OnnxAddOperator(_OnnxBinary):
    """ONNX_ADD: ADD dequantized, added and quantized in float32 (QDQ Add)."""

    TYPE = "ONNX_ADD"
    KIND = "add"


class OnnxSubOperator(_OnnxBinary):
    """ONNX_SUB: SUB dequantized, subtracted and quantized in float32 (QDQ Sub)."""

    TYPE = "ONNX_SUB"
    KIND = "sub"


class OnnxMulOperator(_OnnxBinary):
    """ONNX_MUL: MUL dequantized, multiplied and quantized in float32 (QDQ Mul)."""

    TYPE = "ONNX_MUL"
    KIND = "mul"


class OnnxAveragePool2DOperator(_OnnxOperator):
    """ONNX_AVERAGE_POOL_2D: the in-image taps' exact sum times input scale / (output scale *
    count) in float32, rounded half to even (onnxruntime's QLinear average pooling)."""

    RESTRICTIONS = (MADE, PER_TENSOR, "4-D NHWC input; padding SAME or VALID (padding taps not counted).")

    TYPE = "ONNX_AVERAGE_POOL_2D"

    def _spatial(self) -> tuple[int, int, int, int]:
        o = self.typed_options(AirPool2DOptions)
        _, h, w, _ = self.input_tensors[0].shape
        oh, pt = window_geometry(o.padding, h, o.filter_h, o.stride_h)
        ow, pl = window_geometry(o.padding, w, o.filter_w, o.stride_w)
        return oh, ow, pt, pl

    def check(self) -> Iterable[str]:
        x, y = self.input_tensors[0], self.output_tensors[0]
        yield from self._per_tensor(x, y)
        o = self.typed_options(AirPool2DOptions)
        if len(x.shape) != 4 or o.padding not in ("SAME", "VALID"):
            yield "input must be 4-D NHWC with SAME or VALID padding"
            return
        oh, ow, _, _ = self._spatial()
        if tuple(y.shape) != (x.shape[0], oh, ow, x.shape[3]):
            yield f"output shape {tuple(y.shape)} is not {(x.shape[0], oh, ow, x.shape[3])}"

    def kernel(self) -> KernelCall:
        o = self.typed_options(AirPool2DOptions)
        x, y = self.input_tensors[0], self.output_tensors[0]
        n, h, w, c = x.shape
        oh, ow, pt, pl = self._spatial()
        lo, hi = quantized_clamp(o.activation, y)
        params: dict[str, Any] = {
            "batches": n,
            "input_height": h,
            "input_width": w,
            "channels": c,
            "output_height": oh,
            "output_width": ow,
            "filter_height": o.filter_h,
            "filter_width": o.filter_w,
            "stride_height": o.stride_h,
            "stride_width": o.stride_w,
            "pad_top": pt,
            "pad_left": pl,
            "input_zero_point": x.zero_point(),
            "output_zero_point": y.zero_point(),
            "input_scale": F32(x.scale()),
            "output_scale": F32(y.scale()),
            "act_min": lo,
            "act_max": hi,
        }
        return KernelCall(
            "onnx_avg_pool_s8", [self.ptr(x, const=True), self.ptr(y)], "onnx_pool_params_t", params
        )


class OnnxMeanOperator(_OnnxOperator):
    """ONNX_MEAN: MEAN over adjacent axes as QLinearGlobalAveragePool computes it."""

    RESTRICTIONS = (MADE, PER_TENSOR, "Constant axes, adjacent to one another.")

    TYPE = "ONNX_MEAN"

    def _axes(self) -> list[int] | None:
        ins = self.input_tensors
        if len(ins) < 2 or ins[1] is None or not ins[1].is_constant:
            return None
        rank = len(ins[0].shape)
        return sorted({int(a) % rank for a in ins[1].required_data().reshape(-1)})

    def check(self) -> Iterable[str]:
        x, y = self.input_tensors[0], self.output_tensors[0]
        yield from self._per_tensor(x, y)
        axes = self._axes()
        if axes is None:
            yield "the axes must be constant"
        elif axes and axes != list(range(axes[0], axes[-1] + 1)):
            yield f"axes {axes} are not adjacent"

    def kernel(self) -> KernelCall:
        x, y = self.input_tensors[0], self.output_tensors[0]
        axes = self._axes() or []
        shape = [int(d) for d in x.shape]
        first, last = (axes[0], axes[-1] + 1) if axes else (0, 0)
        params: dict[str, Any] = {
            "outer": int(np.prod(shape[:first])),
            "reduce": int(np.prod(shape[first:last])),
            "inner": int(np.prod(shape[last:])),
            "input_zero_point": x.zero_point(),
            "output_zero_point": y.zero_point(),
            "input_scale": F32(x.scale()),
            "output_scale": F32(y.scale()),
        }
        return KernelCall(
            "onnx_mean_s8", [self.ptr(x, const=True), self.ptr(y)], "onnx_mean_params_t", params
        )


def _not_in_files(*_: object) -> AirOperator:
    """No model file holds an ONNX_* operator: the ONNX_REQUANTIZATION transform makes them."""
    raise UnsupportedModelError(
        "ONNX_* operators are made by the ONNX_REQUANTIZATION transform and cannot be read from a model file",
        hint="rename the custom operator; set metadata requantization='onnx' to get these kernels",
    )


REGISTRATIONS = [
    OperatorRecord(cls.TYPE, _not_in_files, options, cls)
    for cls, options in (
        (OnnxConv2DOperator, AirConv2DOptions),
        (OnnxDepthwiseConv2DOperator, AirDepthwiseConv2DOptions),
        (OnnxFullyConnectedOperator, AirFullyConnectedOptions),
        (OnnxBatchMatMulOperator, AirBatchMatMulOptions),
        (OnnxAddOperator, AirAddOptions),
        (OnnxSubOperator, AirSubOptions),
        (OnnxMulOperator, AirMulOptions),
        (OnnxAveragePool2DOperator, AirPool2DOptions),
        (OnnxMeanOperator, AirReducerOptions),
    )
]
