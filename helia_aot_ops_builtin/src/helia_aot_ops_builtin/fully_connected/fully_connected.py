"""FULLY_CONNECTED and BATCH_MATMUL.

FULLY_CONNECTED views its input as [batches, input_features] against [units, input_features]
weights. LiteRT's reference kernel requantizes its quantized accumulators in double precision,
round(acc * in_scale * w_scale / out_scale), so the operator hands ``hk_fully_connected_*`` those
double scales (one per unit, or one) as exact hexadecimal literals. With constant int8 weights
it also precomputes what the kernel would otherwise redo per multiply or per call: the bias with
the input offset folded in (``folded_bias``) and the weights in the kernel's packed layout
(``packed_filter``, four units interleaved in 16-byte chunks), which replace the bias and weight
tensors in the module. BATCH_MATMUL uses the fixed-point multiplier of LiteRT's reference
BatchMatMul and reads adjoint operands in place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor
from helia_aot.aot.operators import KernelVariant
from helia_aot.codegen import c_float
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.float16 import (
    F16_ACCUMULATION,
    FLOAT16_RESTRICTION,
    f16_accumulation_fields,
    is_half,
)
from helia_aot_ops_builtin.common.kernel_call import CTable, KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser
from helia_aot_ops_builtin.common.quantization import (
    ACTIVATION_RESTRICTION,
    FUSED_ACTIVATIONS,
    float_clamp,
    quantized_clamp,
)
from helia_aot_ops_builtin.common.weighted_prepare import (
    KERNEL_SUFFIXES,
    c_double,
    int16_bias_problems,
    product_multiplier,
    tensor_type_name,
)
from helia_aot_ops_builtin.fully_connected.fc_helium import (
    HeliumLayer,
    asm_string,
    block_table,
    helium_layer,
    layer_assembly,
    weight_bias,
)
from helia_aot_ops_builtin.fully_connected.fc_integer_requant import IntegerRequant, integer_requant


@dataclass(slots=True)
class AirFullyConnectedOptions(AirOperatorOptions):
    """FULLY_CONNECTED options as LiteRT stores them."""

    activation: str = "NONE"
    weights_format: int = 0
    keep_num_dims: bool = False
    quantized_bias_type: str = "FLOAT32"


@dataclass(slots=True)
class AirBatchMatMulOptions(AirOperatorOptions):
    """BATCH_MATMUL options: whether lhs / rhs are stored transposed (adjoint)."""

    adj_x: bool = False
    adj_y: bool = False


def _fc_options(raw: Any) -> AirFullyConnectedOptions:
    if raw is None:
        return AirFullyConnectedOptions()
    return AirFullyConnectedOptions(
        activation=activation_name(raw.fusedActivationFunction),
        weights_format=int(raw.weightsFormat or 0),
        keep_num_dims=bool(raw.keepNumDims),
        quantized_bias_type=tensor_type_name(getattr(raw, "quantizedBiasType", 0)),
    )


def _bmm_options(raw: Any) -> AirBatchMatMulOptions:
    if raw is None:
        return AirBatchMatMulOptions()
    return AirBatchMatMulOptions(adj_x=bool(raw.adjX), adj_y=bool(raw.adjY))


parse_fully_connected = simple_parser(AirOpType.FULLY_CONNECTED.value, _fc_options)
parse_batch_matmul = simple_parser(AirOpType.BATCH_MATMUL.value, _bmm_options)


FC_PACK_ROWS = 4
FC_PACK_DEPTH = 16
"""``HK_FC_PACK_ROWS`` / ``HK_FC_PACK_DEPTH`` of ``hk_fc_dot.h``: units per group, bytes per chunk."""


def pack_fc_filter(weights: np.ndarray) -> np.ndarray:
    """int8 [units, depth] weights in the layout of ``hk_fc_dot.h``, flat.

    Each full group of four units stores, chunk by chunk of 16 depth steps, the 16 weights of
    unit 0, then units 1, 2 and 3, zero-padded past the depth; the remaining units follow
    row-major, unpadded.
    """
    weights = np.asarray(weights, np.int8)
    units, depth = weights.shape
    groups = units // FC_PACK_ROWS
    padded = -(-depth // FC_PACK_DEPTH) * FC_PACK_DEPTH
    blocks = np.zeros((groups, FC_PACK_ROWS, padded), np.int8)
    blocks[:, :, :depth] = weights[: groups * FC_PACK_ROWS].reshape(groups, FC_PACK_ROWS, depth)
    chunks = blocks.reshape(groups, FC_PACK_ROWS, padded // FC_PACK_DEPTH, FC_PACK_DEPTH)
    return np.concatenate([chunks.transpose(0, 2, 1, 3).ravel(), weights[groups * FC_PACK_ROWS :].ravel()])


def fold_fc_bias(
    weights: np.ndarray, bias: np.ndarray | None, input_offset: int, filter_offset: int
) -> np.ndarray:
    """``folded_bias``: bias + input_offset * (sum of each unit's weights + depth * filter_offset).

    The kernel adds this to the plain dot product of weights and input, so the offsets cost
    nothing per multiply. Sums wrap modulo 2^32 as the reference's int32 accumulator does,
    which keeps the fold exact even where that overflows.
    """
    weights = np.asarray(weights, np.int64)
    total = int(input_offset) * (weights.sum(axis=1) + weights.shape[1] * int(filter_offset))
    if bias is not None:
        total = total + np.asarray(bias, np.int64).reshape(-1)
    return (((total + (1 << 31)) % (1 << 32)) - (1 << 31)).astype(np.int32)


def _brace(values: Iterable[int]) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


class FullyConnectedOperator(KernelCallOperator):
    """FULLY_CONNECTED: one ``hk_fully_connected_*`` call over all input rows."""

    TYPE = AirOpType.FULLY_CONNECTED.value
    KERNELS = ("fully_connected",)
    KNOB_FAMILY = "fully_connected_s8"
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8, np.int16)
    RESTRICTIONS = (
        "Weights are 2-D [units, input features] in the default (unshuffled) format; the input "
        "holds a whole number of rows of input features.",
        "Types: float32; int8 with int8 weights (per-tensor, or per-unit with zero points 0) and "
        "int32 bias; int16 (zero points 0) with int8 weights and int64 bias, or int32 bias when "
        "quantized_bias_type is INT32.",
        ACTIVATION_RESTRICTION,
        FLOAT16_RESTRICTION,
    )

    @property
    def options(self) -> AirFullyConnectedOptions:
        return self.typed_options(AirFullyConnectedOptions)

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def weights(self) -> AirTensor:
        return self.input_or_none(1)

    @property
    def bias(self) -> AirTensor | None:
        return self.input_or_none(2)

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def kind(self) -> str | None:
        key = (self.source.dtype.numpy.type, self.weights.dtype.numpy.type, self.target.dtype.numpy.type)
        kind = KERNEL_SUFFIXES.get(key)
        if kind == "s16" and self.options.quantized_bias_type == "INT32":
            kind = "s16_b32"
        return kind

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs its own family (``_Float16``, Helium f16 on the M55). The int8 row-major
        # loop is a family of its own too (hk_fully_connected_generic.c), which leaves the packed
        # paths' translation unit, and so their speed, exactly as it was.
        if self.kind() == "f16":
            return ("fully_connected_f16",)
        if self.kind() == "s8" and self.knob("kernel", "specialized") == "generic":
            return ("fully_connected_generic",)
        return self.KERNELS

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def kernel_function(self) -> str:
        if self.kind() == "s8" and self.knob("kernel", "specialized") == "generic":
            return "fully_connected_s8_generic"
        return f"fully_connected_{self.kind()}"

    def check(self) -> Iterable[str]:
        opts = self.options
        if self.weights is None:
            yield "the weights are missing"
            return
        kind = self.kind()
        if kind is None:
            yield (
                f"types {self.source.dtype} input, {self.weights.dtype} weights, "
                f"{self.target.dtype} output are not supported"
            )
            return
        if opts.activation not in FUSED_ACTIVATIONS:
            yield f"fused activation {opts.activation} is not supported"
        if opts.weights_format != 0:
            yield "shuffled weights are not supported"
        if len(self.weights.shape) != 2 or self.weights.shape[1] < 1:
            yield f"weights of shape {tuple(self.weights.shape)} are not [units, input features]"
            return
        units, depth = self.weights.shape
        if self.source.size % depth != 0:
            yield f"input {tuple(self.source.shape)} is not a whole number of rows of {depth}"
            return
        rows = self.source.size // depth
        if not self.target.shape or self.target.shape[-1] != units or self.target.size != rows * units:
            yield f"output {tuple(self.target.shape)} is not {rows} rows of {units} units"
        bias = self.bias
        if bias is not None and bias.size != units:
            yield f"bias {label(bias)} has {bias.size} elements for {units} units"
        if kind in ("f32", "f16"):
            want = np.float32 if kind == "f32" else np.float16
            if bias is not None and bias.dtype.numpy != want:
                yield f"bias {label(bias)} must be {np.dtype(want).name}"
            return
        for tensor in (self.source, self.target, self.weights):
            if tensor.quantization is None:
                yield f"{label(tensor)} is not quantized"
                return
        for tensor in (self.source, self.target):
            if tensor.quantization.per_channel:
                yield f"{label(tensor)} must be quantized per tensor"
        wq = self.weights.quantization
        if wq.per_channel and (wq.scale.size != units or wq.axis != 0 or np.any(wq.zero_point != 0)):
            yield (
                f"per-unit weight quantization needs {units} scales on axis 0 and zero points 0 "
                f"(LiteRT ignores per-unit zero points)"
            )
        if kind == "s8":
            if bias is not None and bias.dtype.numpy != np.int32:
                yield f"bias {label(bias)} must be int32"
        else:
            if self.source.zero_point() != 0 or self.target.zero_point() != 0:
                yield "int16 input and output need zero points of 0"
            yield from int16_bias_problems(bias, opts.quantized_bias_type)

    def packs_filter(self) -> bool:
        """Whether the int8 kernel gets ``packed_filter`` and ``folded_bias`` (constant data only,
        and the ``kernel`` knob not ``generic``)."""
        return (
            self.kind() == "s8"
            and self.knob("kernel", "specialized") != "generic"
            and self.weights.is_constant
            and (self.bias is None or self.bias.is_constant)
        )

    def knob_values(self, knob: str) -> tuple[str, ...]:
        """int8 offers the packed paths (``specialized``) or the row-major loop (``generic``);
        float16 offers float sums (``precise``) or float16 Helium lanes (``fast``)."""
        if knob == "kernel":
            return ("specialized", "generic") if self.kind() == "s8" else ("generic",)
        if knob == "accumulation" and self.kind() == "f16":
            return F16_ACCUMULATION
        return super().knob_values(knob)

    def kernel_variants(self) -> list[KernelVariant]:
        if self.kind() != "s8":
            return super().kernel_variants()
        units, depth = self.weights.shape
        packs = self.weights.is_constant and (self.bias is None or self.bias.is_constant)
        # The packed copy replaces the filter and bias: it adds only its padding and folded_bias
        # replaces the bias, so the extra constants are the padding plus any bias it adds.
        extra = 0
        if packs:
            packed = int(pack_fc_filter(np.zeros((units, depth), np.int8)).nbytes)
            extra = packed - units * depth + 4 * units - (0 if self.bias is None else 4 * units)
            requant = self.integer_requant_form() if self.helium_core() else None
            extra += 0 if requant is None else 4 * units
        return [KernelVariant("kernel", "specialized", 0, extra), KernelVariant("kernel", "generic")]

    def filter_offset(self) -> int:
        """-filter zero point, the kernel's ``filter_offset`` (0 with per-unit weights)."""
        return 0 if self.weights.quantization.per_channel else -self.weights.zero_point()

    def on_resolve(self) -> None:
        if self.packs_filter():
            self.intern_constant_array("packed_filter", pack_fc_filter(self.weights.data), alignment=16)
            bias = None if self.bias is None else self.bias.data
            self.intern_constant_array(
                "folded_bias",
                fold_fc_bias(self.weights.data, bias, -self.source.zero_point(), self.filter_offset()),
            )

    def reads_input(self, position: int) -> bool:
        # The packed copies replace the weights and bias the kernel would otherwise read.
        return not (position in (1, 2) and self.packs_filter())

    def integer_requant(self) -> IntegerRequant | None:
        """The packed int8 kernel's integer requantization (Helium, eight units at a time), when
        the converter proves it gives the double form's outputs (``fc_integer_requant``) and the
        platform's core has Helium (:meth:`helium_core`)."""
        return self.integer_requant_form() if self.packs_filter() and self.helium_core() else None

    def helium_core(self) -> bool:
        """Whether the platform's core has Helium. Only Helium reads the integer requantization's
        multipliers and runs the per-layer loop (whose table holds them again), so a module
        converted for a core without it (apollo3, apollo4: Cortex-M4) gets neither: the DSP and
        portable paths requantize from the double scales (AD: 6,688 B of constants fewer). A
        platform that does not say counts as having it (the output stays as before)."""
        return bool(getattr(self.platform, "has_mve", True))

    def integer_requant_form(self) -> IntegerRequant | None:
        """``integer_requant`` whatever the knobs, computed once (variants and emission ask)."""
        cached = self.__dict__.get("_integer_requant", False)
        if cached is False:
            lo, hi = quantized_clamp(self.options.activation, self.target)
            cached = integer_requant(
                self.effective_scales(), self.target.zero_point(), max(lo, -128), min(hi, 127)
            )
            self.__dict__["_integer_requant"] = cached
        return cached

    def helium_layer(self) -> HeliumLayer | None:
        """The per-layer Helium loop (``fc_helium``), when the packed int8 kernel runs, the filter
        has no offset and the offset-in-the-multiply requantization is proved for the layer."""
        if not self.packs_filter() or self.filter_offset() != 0 or not self.helium_core():
            return None
        cached = self.__dict__.get("_helium_layer", False)
        if cached is False:
            units, depth = self.weights.shape
            lo, hi = quantized_clamp(self.options.activation, self.target)
            lo, hi = max(lo, -128), min(hi, 127)
            offset = self.target.zero_point()
            fused = integer_requant(self.effective_scales(), offset, lo, hi, fused=True)
            # Every goal, size too: on AD the unrolled 640-deep loop (2.4 KB) is smaller than
            # the library's loops it leaves unlinked on Helium.
            cached = helium_layer(int(depth), int(units), fused, offset, lo, hi)
            if cached is not None:
                self.__dict__["_helium_multipliers"] = fused.multipliers  # type: ignore[union-attr]
            self.__dict__["_helium_layer"] = cached
        return cached

    def compute_values(self) -> dict[str, Any]:
        """With a Helium loop for the layer, the template renders it and the kernel call the other
        cores make under ``HK_HAVE_MVE`` (fc_helium.c.mako)."""
        values = super().compute_values()
        layer = self.helium_layer()
        if layer is not None:
            self.TEMPLATE = "fc_helium.c.mako"
            folded = self.get_local_tensor("folded_bias").data
            table = block_table(folded, self.__dict__["_helium_multipliers"])
            values["helium"] = {
                "table": [str(int(v)) for v in table],
                "asm": asm_string(layer_assembly(layer)),
                "weight_bias": weight_bias(layer),
                "input": self.data_ptr(self.source),
                "weights": self.ptr(self.get_local_tensor("packed_filter"), const=True),
                "output": self.ptr(self.target),
                "batches": self.source.size // layer.depth,
                "depth": layer.depth,
                "units": layer.units,
            }
        return values

    def effective_scales(self) -> np.ndarray:
        """double(input scale) * double(weight scale) / double(output scale), per unit or one."""
        scales = np.asarray(self.weights.quantization.scale, np.float32)
        return (
            float(np.float32(self.source.scale()))
            * scales.astype(np.float64)
            / float(np.float32(self.target.scale()))
        )

    def macs(self) -> int:
        return self.weights.size * (self.source.size // self.weights.shape[1])

    def kernel(self) -> KernelCall:
        units, depth = self.weights.shape
        fields = [
            ("batches", str(self.source.size // depth)),
            ("input_features", str(depth)),
            ("output_features", str(units)),
        ]
        tables = []
        if self.kind() == "f16":
            lo, hi = float_clamp(self.options.activation)
            fields += [("act_min_f32", c_float(lo)), ("act_max_f32", c_float(hi))]
            fields += f16_accumulation_fields(self)
            args = [self.data_ptr(self.source), self.data_ptr(self.weights), self.data_ptr(self.bias)]
            return KernelCall(
                self.kernel_function(),
                [*args, self.ptr(self.target)],
                "fully_connected_f16_params_t",
                dict(fields),
                tables=tables,
                params_in_run=True,
            )
        if self.kind() == "f32":
            lo, hi = float_clamp(self.options.activation)
            fields += [("act_min_f32", c_float(lo)), ("act_max_f32", c_float(hi))]
        else:
            scales = self.effective_scales()
            table = CTable(
                "output_scale",
                "double",
                [c_double(s) for s in scales],
                "LiteRT's double requantization scales: in * weight / out",
            )
            tables.append(table)
            lo, hi = quantized_clamp(self.options.activation, self.target)
            per_channel = self.weights.quantization.per_channel
            fields += [
                ("input_offset", str(-self.source.zero_point())),
                ("filter_offset", str(self.filter_offset())),
                ("output_offset", str(self.target.zero_point())),
                ("act_min", str(lo)),
                ("act_max", str(hi)),
                ("output_scale", self.table_ref(table)),
                ("per_channel", "1" if per_channel else "0"),
            ]
        weights, bias = self.data_ptr(self.weights), self.data_ptr(self.bias)
        if self.packs_filter():
            fields += [
                ("folded_bias", self.ptr(self.get_local_tensor("folded_bias"), const=True)),
                ("packed_filter", "1"),
            ]
            requant = self.integer_requant()
            if requant is not None:
                table = CTable(
                    "requant_multiplier",
                    "int32_t",
                    [str(int(v)) for v in np.broadcast_to(requant.multipliers, (units,))],
                    "Integer requantization multipliers, checked against the double scales at conversion",
                )
                tables.append(table)
                fields += [
                    ("requant_multiplier", self.table_ref(table)),
                    ("requant_left", str(requant.left)),
                    ("requant_right", str(requant.right)),
                ]
            weights, bias = self.ptr(self.get_local_tensor("packed_filter"), const=True), "NULL"
        args = [self.data_ptr(self.source), weights, bias, self.ptr(self.target)]
        return KernelCall(
            self.kernel_function(),
            args,
            "fully_connected_params_t",
            dict(fields),
            tables=tables,
            params_in_run=True,
        )


class BatchMatMulOperator(KernelCallOperator):
    """BATCH_MATMUL over up to three broadcast batch dimensions (float32, or int8 per tensor)."""

    TYPE = AirOpType.BATCH_MATMUL.value
    KERNELS = ("batch_matmul",)
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8)
    RESTRICTIONS = (
        "Both operands have rank 2 to 5; their batch dimensions broadcast (equal, or 1).",
        "Types: float32, float16, or int8 operands and output quantized per tensor.",
        FLOAT16_RESTRICTION,
    )

    @property
    def options(self) -> AirBatchMatMulOptions:
        return self.typed_options(AirBatchMatMulOptions)

    def _matrices(self) -> tuple[int, int, int, int]:
        """(rows, lhs depth, rhs depth, cols) after the adjoint flags."""
        lhs, rhs = self.input_tensors[0].shape, self.input_tensors[1].shape
        adj_x, adj_y = self.options.adj_x, self.options.adj_y
        return (
            (lhs[-1], lhs[-2], rhs[-1], rhs[-2])
            if adj_x and adj_y
            else (lhs[-1], lhs[-2], rhs[-2], rhs[-1])
            if adj_x
            else (lhs[-2], lhs[-1], rhs[-1], rhs[-2])
            if adj_y
            else (lhs[-2], lhs[-1], rhs[-2], rhs[-1])
        )

    def _batches(self) -> tuple[list[int], list[int], list[int]]:
        """(output, lhs, rhs) batch dimensions, each extended to three with leading 1s."""
        lhs = ([1, 1, 1] + list(self.input_tensors[0].shape[:-2]))[-3:]
        rhs = ([1, 1, 1] + list(self.input_tensors[1].shape[:-2]))[-3:]
        return [max(a, b) for a, b in zip(lhs, rhs)], lhs, rhs

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def kernel_function(self) -> str:
        suffix = {np.float32: "f32", np.float16: "f16"}.get(self.output_tensors[0].dtype.numpy.type, "s8")
        return f"batch_matmul_{suffix}"

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs its own family (``_Float16``, Helium f16 on the M55).
        return ("batch_matmul_f16",) if is_half(self.output_tensors[0]) else self.KERNELS

    def check(self) -> Iterable[str]:
        lhs, rhs = self.input_tensors[:2]
        out = self.output_tensors[0]
        if not (lhs.dtype == rhs.dtype == out.dtype):
            yield f"operand types {lhs.dtype}, {rhs.dtype} and output {out.dtype} must all match"
            return
        if not (2 <= len(lhs.shape) <= 5 and 2 <= len(rhs.shape) <= 5):
            yield "operands must have rank 2 to 5"
            return
        rows, depth, rhs_depth, cols = self._matrices()
        if depth != rhs_depth:
            yield f"lhs depth {depth} does not match rhs depth {rhs_depth}"
        batch, lb, rb = self._batches()
        if any(a != b and 1 not in (a, b) for a, b in zip(lb, rb)):
            yield f"batch dimensions {lhs.shape[:-2]} and {rhs.shape[:-2]} do not broadcast"
            return
        rank = max(len(lhs.shape), len(rhs.shape))
        expected = tuple(batch[3 - (rank - 2) :] if rank > 2 else []) + (rows, cols)
        if tuple(out.shape) != expected:
            yield f"output shape {tuple(out.shape)} is not the expected {expected}"
        if out.dtype.numpy == np.int8:
            for tensor in (lhs, rhs, out):
                if tensor.quantization is None or tensor.quantization.per_channel:
                    yield f"{label(tensor)} must be quantized per tensor"
                    return

    def macs(self) -> int:
        batch, _, _ = self._batches()
        rows, depth, _, cols = self._matrices()
        return int(np.prod(batch)) * rows * depth * cols

    def kernel(self) -> KernelCall:
        lhs, rhs = self.input_tensors[:2]
        out = self.output_tensors[0]
        batch, lb, rb = self._batches()
        rows, depth, _, cols = self._matrices()
        fields = [
            ("batch", _brace(batch)),
            ("lhs_batch", _brace(lb)),
            ("rhs_batch", _brace(rb)),
            ("rows", str(rows)),
            ("depth", str(depth)),
            ("cols", str(cols)),
            ("adj_x", str(int(self.options.adj_x))),
            ("adj_y", str(int(self.options.adj_y))),
        ]
        if out.dtype.numpy == np.int8:
            multiplier, shift = product_multiplier(lhs, rhs, out)
            fields += [
                ("lhs_offset", str(-lhs.zero_point())),
                ("rhs_offset", str(-rhs.zero_point())),
                ("output_offset", str(out.zero_point())),
                ("output_multiplier", str(multiplier)),
                ("output_shift", str(shift)),
                ("act_min", "-128"),
                ("act_max", "127"),
            ]
        args = [self.data_ptr(lhs), self.data_ptr(rhs), self.ptr(out)]
        return KernelCall(
            self.kernel_function(),
            args,
            "batch_matmul_f16_params_t" if is_half(out) else "batch_matmul_params_t",
            dict(fields),
            params_in_run=True,
        )


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.FULLY_CONNECTED.value,
        parse_fully_connected,
        AirFullyConnectedOptions,
        FullyConnectedOperator,
    ),
    OperatorRecord(
        AirOpType.BATCH_MATMUL.value, parse_batch_matmul, AirBatchMatMulOptions, BatchMatMulOperator
    ),
]
