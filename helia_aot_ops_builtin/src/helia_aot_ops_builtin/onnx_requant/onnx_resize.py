"""ONNX_RESIZE_BILINEAR: ONNX's linear Resize of a 4-D (NHWC) tensor as onnxruntime computes it,
float32 or int8 (the DequantizeLinear -> Resize -> QuantizeLinear of a QDQ model in one
operator). The ONNX front end writes it for every linear Resize; the kernels are
``hk_onnx_resize.h``. The source rows and columns and their float32 distances are computed here,
with the float32 steps of onnxruntime's coordinate transformation, for each mode below.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from helia_aot.air import AirOperator, AirOperatorOptions
from helia_aot.codegen import c_float
from helia_aot.errors import UnsupportedModelError
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall
from helia_aot_ops_builtin.onnx_requant.onnx_operators import _OnnxOperator

F32 = np.float32
MODES = ("half_pixel", "pytorch_half_pixel", "asymmetric", "align_corners")
"""The coordinate transformation modes the operator computes (ONNX's names)."""


@dataclass(slots=True)
class AirOnnxResizeOptions(AirOperatorOptions):
    """ONNX_RESIZE_BILINEAR's coordinate transformation mode (one of :data:`MODES`)."""

    coordinate_transformation_mode: str = "half_pixel"
    height_scale: float = 0.0
    """The node's float32 scale of the rows (output / input when the node gives sizes); 0: that ratio."""
    width_scale: float = 0.0
    """The same for the columns."""


def axis_scale(scale: float, out_len: int, in_len: int) -> F32:
    """The float32 scale onnxruntime divides by: the node's, or ``float(out) / float(in)`` when it
    gives sizes instead of scales (``scale`` 0)."""
    return F32(scale) if scale > 0.0 else F32(F32(out_len) / F32(in_len))


def source_coordinate(out: int, out_len: int, in_len: int, mode: str, scale: F32) -> F32:
    """Where output index ``out`` reads from along an axis of ``in_len`` -> ``out_len``, in
    float32 as onnxruntime computes it."""
    x = F32(out)
    if mode == "asymmetric":
        return F32(x / scale)
    if mode == "align_corners":
        return F32(0.0) if out_len == 1 else F32(F32(x * F32(in_len - 1)) / F32(out_len - 1))
    if mode == "pytorch_half_pixel" and out_len <= 1:
        return F32(0.0)
    return F32(F32(F32(x + F32(0.5)) / scale) - F32(0.5))


def axis_table(out_len: int, in_len: int, mode: str, scale: float = 0.0) -> tuple[list[int], list[float]]:
    """Per output index: its two source indices (flattened pairs) and the distances dx1, dx2 of
    the source coordinate to them (1 - the other's weight); a coordinate clamped onto the last
    index reads it twice with both weights one half, as onnxruntime does."""
    index: list[int] = []
    distance: list[float] = []
    for out in range(out_len):
        x = source_coordinate(out, out_len, in_len, mode, axis_scale(scale, out_len, in_len))
        x = F32(max(F32(0.0), min(x, F32(in_len - 1))))
        x1 = min(int(x), in_len - 1)
        x2 = min(x1 + 1, in_len - 1)
        d1, d2 = F32(abs(x - F32(x1))), F32(abs(x - F32(x2)))
        if x1 == x2:
            d1 = d2 = F32(0.5)
        index += [x1, x2]
        distance += [float(d1), float(d2)]
    return index, distance


class OnnxResizeBilinearOperator(_OnnxOperator):
    """ONNX_RESIZE_BILINEAR: see the module docstring; input and output NHWC, same batch and
    channels, both float32 or both int8 (per tensor)."""

    TYPE = "ONNX_RESIZE_BILINEAR"
    KERNELS = ("onnx_resize",)
    SUPPORTED_DTYPES = (np.float32, np.int8)
    RESTRICTIONS = (
        "Written by the ONNX front end for a linear Resize (never read from a file).",
        "4-D NHWC input and output of one batch and channel count; float32, or int8 quantized per tensor.",
        "Coordinate transformation half_pixel, pytorch_half_pixel, asymmetric or align_corners.",
    )

    def _mode(self) -> str:
        return str(self.typed_options(AirOnnxResizeOptions).coordinate_transformation_mode)

    def check(self) -> Iterable[str]:
        x, y = self.input_tensors[0], self.output_tensors[0]
        if len(x.shape) != 4 or len(y.shape) != 4 or (x.shape[0], x.shape[3]) != (y.shape[0], y.shape[3]):
            yield f"input {tuple(x.shape)} and output {tuple(y.shape)} must be NHWC of one batch and depth"
        if x.dtype.numpy != y.dtype.numpy:
            yield f"{label(x)} and {label(y)} must have one type"
        if x.dtype.numpy == np.int8:
            yield from self._per_tensor(x, y)
        if self._mode() not in MODES:
            yield f"coordinate transformation {self._mode()!r} is not one of {', '.join(MODES)}"

    def kernel(self) -> KernelCall:
        x, y = self.input_tensors[0], self.output_tensors[0]
        (n, h, w, c), (_, oh, ow, _) = [int(d) for d in x.shape], [int(d) for d in y.shape]
        options = self.typed_options(AirOnnxResizeOptions)
        rows, drows = axis_table(oh, h, self._mode(), options.height_scale)
        cols, dcols = axis_table(ow, w, self._mode(), options.width_scale)
        index = self._table(
            "index", "int32_t", [str(v) for v in rows + cols], "source rows, then columns, in pairs"
        )
        distance = self._table(
            "distance",
            "float",
            [c_float(v) for v in drows + dcols],
            "distances to them (d1, d2 per output row, then per column), float32",
        )
        integer = x.dtype.numpy == np.int8
        params: dict[str, Any] = {
            "batches": n,
            "input_height": h,
            "input_width": w,
            "output_height": oh,
            "output_width": ow,
            "channels": c,
            "input_scale": F32(x.scale()) if integer else F32(1.0),
            "input_zero_point": x.zero_point() if integer else 0,
            "output_scale": F32(y.scale()) if integer else F32(1.0),
            "output_zero_point": y.zero_point() if integer else 0,
            "index": self.table_ref(index),
            "distance": self.table_ref(distance),
        }
        function = "onnx_resize_bilinear_s8" if integer else "onnx_resize_bilinear_f32"
        args = [self.ptr(x, const=True), self.ptr(y)]
        return KernelCall(function, args, "onnx_resize_params_t", params, tables=[index, distance])


def written_by_the_front_end(*_: object) -> AirOperator:
    """No model file holds these operators: the ONNX front end writes them."""
    raise UnsupportedModelError(
        "ONNX_RESIZE_BILINEAR, ONNX_LOGISTIC and ONNX_LEAKY_RELU are written by the ONNX front end "
        "and cannot be read from a model file",
        hint="convert the ONNX model itself (helia-aot-frontend-onnx), or rename the custom operator",
    )


REGISTRATIONS = [
    OperatorRecord(
        OnnxResizeBilinearOperator.TYPE,
        written_by_the_front_end,
        AirOnnxResizeOptions,
        OnnxResizeBilinearOperator,
    ),
]
