"""RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR on NHWC tensors with a constant output size.

The kernels recompute LiteRT's source coordinates themselves (float for nearest neighbour and
float bilinear, 10-bit fixed point for int8/int16 bilinear, which is what the reference kernel
runs for those types). The converter only checks the geometry: LiteRT's 10-bit coordinates can
overshoot the last row or column for extreme upscales, where the reference would read past its
input; such resizes are refused rather than run differently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensorType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.data_movement.movers import SAME_QUANTIZATION, constant_ints

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_F32 = np.float32
_BILINEAR = {
    AirTensorType.FLOAT32: "resize_bilinear_f32",
    AirTensorType.INT8: "resize_bilinear_s8",
    AirTensorType.INT16: "resize_bilinear_s16",
}


@dataclass(slots=True)
class AirResizeOptions(AirOperatorOptions):
    """Coordinate mapping flags shared by both resize operators."""

    align_corners: bool = False
    half_pixel_centers: bool = False


def _resize_options(
    raw: litert.ResizeBilinearOptionsT | litert.ResizeNearestNeighborOptionsT | None,
) -> AirResizeOptions:
    return AirResizeOptions(
        align_corners=bool(raw.alignCorners if raw is not None else False),
        half_pixel_centers=bool(raw.halfPixelCenters if raw is not None else False),
    )


parse_resize_nearest = simple_parser(AirOpType.RESIZE_NEAREST_NEIGHBOR.value, _resize_options)
parse_resize_bilinear = simple_parser(AirOpType.RESIZE_BILINEAR.value, _resize_options)


def bilinear_lower_bounds(in_size: int, out_size: int, align: bool, half: bool, integer: bool) -> list[int]:
    """The reference's lower source index per output index (before any clamp to the input);
    ValueError when its int32 fixed-point coordinates would overflow."""
    if integer:
        if align and out_size > 1:
            numerator, denominator = (1 << 10) * (in_size - 1) + (out_size - 1) // 2, out_size - 1
        else:
            numerator, denominator = (1 << 10) * in_size + out_size // 2, out_size
        scale = numerator // denominator
        largest = (out_size - 1) * scale + scale // 2 + (1 << 10)
        if max(numerator, largest) >= 2**31:
            raise ValueError("overflows LiteRT's 10-bit fixed-point coordinates")
        scaled = [v * scale + scale // 2 - (1 << 9) if half else v * scale for v in range(out_size)]
        return [s >> 10 if s > 0 else 0 for s in scaled]
    if align and out_size > 1:
        step = _F32(in_size - 1) / _F32(out_size - 1)
    else:
        step = _F32(in_size) / _F32(out_size)
    v = np.arange(out_size).astype(_F32)
    coordinates = (v + _F32(0.5)) * step - _F32(0.5) if half else v * step
    return [max(int(x), 0) for x in np.floor(coordinates)]


class ResizeNearestOperator(BuiltinOperator):
    """RESIZE_NEAREST_NEIGHBOR: copies whole pixels (any element type)."""

    TYPE = AirOpType.RESIZE_NEAREST_NEIGHBOR.value
    SUPPORTED_DTYPES: tuple[type, ...] = (np.int8, np.uint8, np.int16, np.int32, np.float16, np.float32)
    RESTRICTIONS: tuple[str, ...] = (
        SAME_QUANTIZATION,
        "The input must be 4-D (NHWC).",
        "The size input must be a constant [height, width] matching the output.",
    )
    KERNELS = ("resize",)
    TEMPLATE = "resize.c.mako"
    MOVES_DATA_ONLY = True

    def reads_input(self, position: int) -> bool:
        return position == 0  # the size is the output's shape, folded into the call

    def function(self) -> str:
        return "resize_nearest"

    def geometry_problems(
        self, in_shape: tuple[int, ...], out_shape: tuple[int, ...], options: AirResizeOptions
    ) -> Iterable[str]:
        return ()

    def check(self) -> Iterable[str]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        problems = quantization_problems([target], like=source)
        if len(source.shape) != 4 or len(target.shape) != 4:
            return problems + ["input and output must be 4-D (NHWC)"]
        try:
            size = constant_ints(self.input_or_none(1), "size")
        except ValueError as exc:
            return problems + [str(exc)]
        expected = (source.shape[0], *size, source.shape[3])
        if len(size) != 2 or min(size) < 1 or tuple(target.shape) != expected:
            return problems + [f"size {size} does not give the output shape {target.shape}"]
        options = self.typed_options(AirResizeOptions)
        problems.extend(self.geometry_problems(source.shape, target.shape, options))
        return problems

    def kernel_calls(self) -> dict[str, str]:
        return {"resize": f"hk_{self.function()}"}

    def compute_values(self) -> dict[str, Any]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        options = self.typed_options(AirResizeOptions)
        b, ih, iw, c = source.shape
        fields = [b, ih, iw, c, target.shape[1], target.shape[2], source.dtype.itemsize]
        params = ", ".join(str(int(v)) for v in fields) + (
            f", {'true' if options.align_corners else 'false'}, "
            f"{'true' if options.half_pixel_centers else 'false'}"
        )
        ctype = source.ctype if self.function() != "resize_nearest" else "void"
        return {
            "params": params,
            "function": self.function(),
            "src": f"(const {ctype} *)ctx->tensor_ptrs[{self.tensor_enum(source)}]",
            "dst": f"({ctype} *)ctx->tensor_ptrs[{self.tensor_enum(target)}]",
            "status_base": KERNEL_STATUS_BASE,
        }


class ResizeBilinearOperator(ResizeNearestOperator):
    """RESIZE_BILINEAR: float32, or int8/int16 with LiteRT's fixed-point interpolation."""

    TYPE = AirOpType.RESIZE_BILINEAR.value
    SUPPORTED_DTYPES = (np.int8, np.int16, np.float32)
    RESTRICTIONS = ResizeNearestOperator.RESTRICTIONS + (
        "align_corners and half_pixel_centers cannot both be set.",
        "Upscales so large that LiteRT's coordinates leave the input are refused.",
    )
    MOVES_DATA_ONLY = False
    # One interpolation loop serves every shape: the kernel knob has only its general kernel.
    KNOB_VALUES = {"kernel": ("generic",)}

    def function(self) -> str:
        return _BILINEAR[self.input_tensors[0].dtype]

    def geometry_problems(
        self, in_shape: tuple[int, ...], out_shape: tuple[int, ...], options: AirResizeOptions
    ) -> Iterable[str]:
        if options.align_corners and options.half_pixel_centers:
            yield "align_corners and half_pixel_centers are both set"
            return
        integer = self.input_tensors[0].dtype is not AirTensorType.FLOAT32
        for label, n_in, n_out in (
            ("height", in_shape[1], out_shape[1]),
            ("width", in_shape[2], out_shape[2]),
        ):
            try:
                lows = bilinear_lower_bounds(
                    n_in, n_out, options.align_corners, options.half_pixel_centers, integer
                )
            except ValueError as exc:
                yield f"the {label} resize {n_in} -> {n_out} {exc}"
                continue
            if max(lows) > n_in - 1:
                yield f"the {label} resize {n_in} -> {n_out} makes LiteRT read past the input"


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.RESIZE_NEAREST_NEIGHBOR.value,
        parse_resize_nearest,
        AirResizeOptions,
        ResizeNearestOperator,
        arity=Arity(2, 2),
    ),
    OperatorRecord(
        AirOpType.RESIZE_BILINEAR.value,
        parse_resize_bilinear,
        AirResizeOptions,
        ResizeBilinearOperator,
        arity=Arity(2, 2),
    ),
]
