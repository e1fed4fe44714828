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
from typing import TYPE_CHECKING, Any

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
    is_half,
)
from helia_aot_ops_builtin.common.hybrid import (
    HYBRID_ACTIVATIONS,
    HYBRID_RESTRICTION,
    channel_scales,
    filter_scale,
    hybrid_weight_problems,
    is_hybrid,
    row_sums,
)
from helia_aot_ops_builtin.common.kernel_call import CTable, KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.kernel_cycles import layer_choice
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
)
from helia_aot_ops_builtin.fully_connected.fc_integer_requant import (
    IntegerRequant,
    integer_requant,
    saturation_free,
)

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

    from helia_aot_ops_builtin.fully_connected.fc_block_sparse import BlockSparseWeights


@dataclass(slots=True)
class AirFullyConnectedOptions(AirOperatorOptions):
    """FULLY_CONNECTED options as LiteRT stores them."""

    activation: str = "NONE"
    weights_format: int = 0
    keep_num_dims: bool = False
    quantized_bias_type: str = "FLOAT32"
    asymmetric_quantize_inputs: bool = False


@dataclass(slots=True)
class AirBatchMatMulOptions(AirOperatorOptions):
    """BATCH_MATMUL options: whether lhs / rhs are stored transposed (adjoint)."""

    adj_x: bool = False
    adj_y: bool = False
    asymmetric_quantize_inputs: bool = False


def _fc_options(raw: litert.FullyConnectedOptionsT | None) -> AirFullyConnectedOptions:
    if raw is None:
        return AirFullyConnectedOptions()
    return AirFullyConnectedOptions(
        activation=activation_name(raw.fusedActivationFunction),
        weights_format=int(raw.weightsFormat or 0),
        keep_num_dims=bool(raw.keepNumDims),
        quantized_bias_type=tensor_type_name(raw.quantizedBiasType if raw is not None else 0),
        asymmetric_quantize_inputs=bool(raw.asymmetricQuantizeInputs if raw is not None else False),
    )


def _bmm_options(raw: litert.BatchMatMulOptionsT | None) -> AirBatchMatMulOptions:
    if raw is None:
        return AirBatchMatMulOptions()
    return AirBatchMatMulOptions(
        adj_x=bool(raw.adjX),
        adj_y=bool(raw.adjY),
        asymmetric_quantize_inputs=bool(raw.asymmetricQuantizeInputs if raw is not None else False),
    )


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
    wrapped: np.ndarray = (((total + (1 << 31)) % (1 << 32)) - (1 << 31)).astype(np.int32)
    return wrapped


def _brace(values: Iterable[int]) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


class FullyConnectedOperator(KernelCallOperator):
    """FULLY_CONNECTED: one ``hk_fully_connected_*`` call over all input rows."""

    TYPE = AirOpType.FULLY_CONNECTED.value
    KERNELS = ("fully_connected",)
    KNOB_FAMILY = "fully_connected_s8"
    WEIGHT_DTYPES = ("int4",)  # constant, packed: helia_aot_ops_builtin.common.int4_weights
    HYBRID_WEIGHT_DTYPES = ("int8", "int4")
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8, np.int16)
    RESTRICTIONS = (
        "Weights are 2-D [units, input features] in the default (unshuffled) format; the input "
        "holds a whole number of rows of input features.",
        "Types: float32; int8 with int8 or constant int4 weights (per-tensor, or per-unit with "
        "zero points 0) and int32 bias; int16 (zero points 0) with int8 or constant int4 weights "
        "and int64 bias, or int32 bias when quantized_bias_type is INT32.",
        ACTIVATION_RESTRICTION,
        FLOAT16_RESTRICTION,
        HYBRID_RESTRICTION,
    )

    @property
    def options(self) -> AirFullyConnectedOptions:
        return self.typed_options(AirFullyConnectedOptions)

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def weights(self) -> AirTensor:
        return self.required_input(1)

    @property
    def bias(self) -> AirTensor | None:
        return self.input_or_none(2)

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def kind(self) -> str | None:
        if is_hybrid(self.source, self.weights, self.target):
            return "hybrid"
        key = (self.source.dtype.numpy.type, self.weights.dtype.numpy.type, self.target.dtype.numpy.type)
        kind = KERNEL_SUFFIXES.get(key)
        if kind == "s16" and self.options.quantized_bias_type == "INT32":
            kind = "s16_b32"
        return kind

    def block_sparse(self) -> BlockSparseWeights | None:
        """The nonzero blocks ``hk_fully_connected_s8_sparse`` keeps, for an int8 layer with goal
        ``size`` whose constant weights the file stored sparse in blocks (zero point 0, constant
        bias), when they and the folded bias take fewer bytes than the dense weights and bias."""
        if "_block_sparse" not in self.__dict__:
            self.__dict__["_block_sparse"] = self._find_block_sparse()
        found: BlockSparseWeights | None = self.__dict__["_block_sparse"]
        return found

    def _find_block_sparse(self) -> BlockSparseWeights | None:
        weights = self.weights
        block = self.model.metadata.get("stored_blocks", {}).get(weights.id)
        if (
            block is None
            or len(block) != 2
            or self.optimization_goal != "size"
            or self.kind() != "s8"
            or weights.dtype is AirTensorType.INT4
            or not weights.is_constant
            or (self.bias is not None and not self.bias.is_constant)
            or self.filter_offset() != 0
        ):
            return None
        # Imported here: only a size-goal layer whose weights came block-sparse reaches this line.
        from helia_aot_ops_builtin.fully_connected.fc_block_sparse import encode_blocks

        sparse = encode_blocks(weights.required_data(), int(block[0]), int(block[1]))
        units = int(weights.shape[0])
        dense_bytes = weights.nbytes + (0 if self.bias is None else self.bias.nbytes)
        if sparse is None or sparse.nbytes + 4 * units >= dense_bytes:
            return None
        return sparse

    def kernel_families(self) -> tuple[str, ...]:
        if self.block_sparse() is not None:
            return ("fully_connected_sparse",)
        # float16 runs its own family (``_Float16``, Helium f16 on the M55). The int8 row-major
        # loop is a family of its own too (hk_fully_connected_generic.c), which leaves the packed
        # paths' translation unit, and so their speed, exactly as it was.
        if self.kind() in ("f16", "hybrid"):
            return (f"fully_connected_{self.kind()}",)
        if self.int4_per_use():
            return ("fully_connected_s4",)
        if self.runs_generic():
            return ("fully_connected_generic",)
        return self.KERNELS

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def kernel_function(self) -> str:
        if self.block_sparse() is not None:
            return "fully_connected_s8_sparse"
        if self.int4_per_use():
            return "fully_connected_s8_s4"
        if self.runs_generic():
            return "fully_connected_s8_generic"
        return f"fully_connected_{self.kind()}"

    def check(self) -> Iterable[str]:
        opts = self.options
        if self.weights is None:
            yield "the weights are missing"
            return
        if self.weights.dtype is AirTensorType.INT4 and not self.weights.is_constant:
            yield "int4 weights must be constant"
        kind = self.kind()
        if kind is None:
            yield (
                f"types {self.source.dtype} input, {self.weights.dtype} weights, "
                f"{self.target.dtype} output are not supported"
            )
            return
        allowed = HYBRID_ACTIVATIONS if kind == "hybrid" else FUSED_ACTIVATIONS
        if opts.activation not in allowed:
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
        if kind == "hybrid":
            yield from hybrid_weight_problems(self.weights, units, 0, bias)
            return
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
            if tensor.required_quantization().per_channel:
                yield f"{label(tensor)} must be quantized per tensor"
        wq = self.weights.required_quantization()
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
            and not self.runs_generic()
            and self.block_sparse() is None
            and self.weights.is_constant
            and (self.bias is None or self.bias.is_constant)
            and not self.int4_per_use()
        )

    def int4_per_use(self) -> bool:
        """Int4 weights read packed by ``hk_fully_connected_s8_s4`` (goal ``size``, int8, constant
        bias): no int8 copy of the weights; other goals unpack them once per run and run the
        int8 kernels (``int4_weights``)."""
        return (
            self.weights is not None
            and self.weights.dtype is AirTensorType.INT4
            and self.optimization_goal == "size"
            and self.kind() == "s8"
            and (self.bias is None or self.bias.is_constant)
        )

    def runs_generic(self) -> bool:
        """Whether an int8 layer calls the row-major loop (hk_fully_connected_s8_generic): with
        ``kernel: generic``, and always when :meth:`saturation_free` does not hold, since only
        that loop's requantization gives the reference's INT32_MIN for a value beyond int32 on
        the Cortex-M55 (the packed paths' VCVTA saturates)."""
        if self.kind() != "s8":
            return False
        return self.knob("kernel", "specialized") == "generic" or not self.saturation_free()

    def saturation_free(self) -> bool:
        """``fc_integer_requant.saturation_free`` for this layer, computed once."""
        cached = self.__dict__.get("_saturation_free")
        if cached is None:
            constant = self.weights.is_constant and (self.bias is None or self.bias.is_constant)
            cached = saturation_free(
                self.weights.data if constant else None,
                None if self.bias is None or not constant else self.bias.data,
                -self.source.zero_point(),
                self.filter_offset(),
                self.target.zero_point(),
                self.effective_scales(),
            )
            self.__dict__["_saturation_free"] = cached
        return bool(cached)

    def knob_values(self, knob: str) -> tuple[str, ...]:
        """int8 offers the packed paths (``specialized``) or the row-major loop (``generic``),
        the latter alone when :meth:`saturation_free` does not hold; float16 offers float sums
        (``precise``) or float16 Helium lanes (``fast``)."""
        if knob == "kernel":
            packs = self.kind() == "s8" and self.saturation_free()
            return ("specialized", "generic") if packs else ("generic",)
        if knob == "accumulation" and self.kind() == "f16":
            return F16_ACCUMULATION
        return super().knob_values(knob)

    def kernel_shape(self) -> tuple[int, ...] | None:
        """The layer's shape as the kernel cycle table describes it (``common.kernel_cycles``):
        (depth, units) of an int8 layer."""
        if self.kind() != "s8" or len(self.weights.shape) != 2:
            return None
        units, depth = (int(d) for d in self.weights.shape)
        return (depth, units)

    def modeled_knob_choice(self, knob: str, goal: str, offered: tuple[str, ...], today: str) -> str | None:
        """The ``kernel`` the kernel cycle table prefers for this layer's shape (``common.kernel_cycles``)."""
        return layer_choice(self, knob, goal, offered, today)

    def kernel_variants(self) -> list[KernelVariant]:
        if self.kind() != "s8" or not self.saturation_free() or self.block_sparse() is not None:
            return super().kernel_variants()
        units, depth = self.weights.shape
        packs = self.weights.is_constant and (self.bias is None or self.bias.is_constant)
        # The packed copy replaces the filter and bias: it adds only its padding and folded_bias
        # replaces the bias, so the extra constants are the padding plus any bias it adds.
        extra = 0
        if packs:
            packed = int(pack_fc_filter(np.zeros((units, depth), np.int8)).nbytes)
            extra = packed - units * depth + 4 * units - (0 if self.bias is None else 4 * units)
            requant = self.integer_requant_form() if self.reads_integer_requant() else None
            extra += 0 if requant is None else 4 * units
        return [KernelVariant("kernel", "specialized", 0, extra), KernelVariant("kernel", "generic")]

    def filter_offset(self) -> int:
        """-filter zero point, the kernel's ``filter_offset`` (0 with per-unit weights)."""
        return 0 if self.weights.required_quantization().per_channel else -self.weights.zero_point()

    def on_resolve(self) -> None:
        if self.kind() == "hybrid":
            # One quantized input row at a time (the reference quantizes each row on its own).
            self.add_scratch("quantized_row", int(self.weights.shape[1]), alignment=4)
        sparse = self.block_sparse()
        if sparse is not None:
            self.intern_constant_array("block_values", sparse.values, alignment=4)
            self.intern_constant_array("block_starts", sparse.starts)
            self.intern_constant_array("block_columns", sparse.columns)
            bias = None if self.bias is None else self.bias.data
            self.intern_constant_array(
                "folded_bias", fold_fc_bias(self.weights.required_data(), bias, -self.source.zero_point(), 0)
            )
        per_use = self.int4_per_use()
        if per_use:
            bias = None if self.bias is None else self.bias.data
            self.intern_constant_array(
                "folded_bias",
                fold_fc_bias(
                    self.weights.required_data(), bias, -self.source.zero_point(), self.filter_offset()
                ),
            )
        if self.packs_filter():
            self.intern_constant_array(
                "packed_filter", pack_fc_filter(self.weights.required_data()), alignment=16
            )
            bias = None if self.bias is None else self.bias.data
            self.intern_constant_array(
                "folded_bias",
                fold_fc_bias(
                    self.weights.required_data(), bias, -self.source.zero_point(), self.filter_offset()
                ),
            )
        if self.weights.dtype is AirTensorType.INT4:
            from helia_aot_ops_builtin.common.int4_weights import resolve_int4  # int4 models only

            resolve_int4(self, per_use=per_use)

    def reads_input(self, position: int) -> bool:
        # The packed copies replace the weights and bias the kernel would otherwise read; the
        # int4 kernel reads the weights packed and the folded bias.
        if position == 2 and self.int4_per_use():
            return False
        if position in (1, 2) and self.block_sparse() is not None:
            return False  # the kept blocks and the folded bias replace them
        return not (position in (1, 2) and self.packs_filter())

    def integer_requant(self) -> IntegerRequant | None:
        """The packed int8 kernel's integer requantization (Helium eight units at a time, the DSP
        path four), when the converter proves it gives the double form's outputs
        (``fc_integer_requant``) and the platform's core reads it (:meth:`reads_integer_requant`)."""
        return self.integer_requant_form() if self.packs_filter() and self.reads_integer_requant() else None

    def reads_integer_requant(self) -> bool:
        """Whether the platform's core reads the integer requantization's multipliers: Helium
        (hk_fully_connected_mve.c) and the DSP extension (hk_fully_connected_dsp.c, a core whose
        doubles are a software library: apollo3, apollo4, Cortex-M4F), whose packed groups then
        take a dozen instructions an output instead of the double emulation (AD converted for
        apollo4p_evb: 567,875 modeled M4 cycles without the table, 518,870 with it, for 6,688 B
        of constants). A core with neither requantizes from the double scales."""
        return self.platform.has_mve or self.platform.has_dsp

    def helium_core(self) -> bool:
        """Whether the platform's core has Helium. Only Helium runs the per-layer loop (whose
        table holds the multipliers again), so a module converted for a core without it
        (apollo3, apollo4: Cortex-M4) does not get it."""
        return self.platform.has_mve

    def integer_requant_form(self) -> IntegerRequant | None:
        """``integer_requant`` whatever the knobs, computed once (variants and emission ask)."""
        if "_integer_requant" not in self.__dict__:
            lo, hi = quantized_clamp(self.options.activation, self.target)
            self.__dict__["_integer_requant"] = integer_requant(
                self.effective_scales(), self.target.zero_point(), max(lo, -128), min(hi, 127)
            )
        requant: IntegerRequant | None = self.__dict__["_integer_requant"]
        return requant

    def helium_layer(self) -> HeliumLayer | None:
        """The per-layer Helium loop (``fc_helium``), when the packed int8 kernel runs, the filter
        has no offset and the offset-in-the-multiply requantization is proved for the layer."""
        if not self.packs_filter() or self.filter_offset() != 0 or not self.helium_core():
            return None
        if "_helium_layer" not in self.__dict__:
            units, depth = self.weights.shape
            lo, hi = quantized_clamp(self.options.activation, self.target)
            lo, hi = max(lo, -128), min(hi, 127)
            offset = self.target.zero_point()
            fused = integer_requant(self.effective_scales(), offset, lo, hi, fused=True)
            # Every goal, size too: AD's module is the same at every goal (its loops take 26 KB
            # of code, 17 KB more than one block a pass would; docs/optimization.md).
            layer = helium_layer(int(depth), int(units), fused, offset, lo, hi)
            if layer is not None and fused is not None:  # helium_layer needs the fused form
                self.__dict__["_helium_multipliers"] = fused.multipliers
            self.__dict__["_helium_layer"] = layer
        cached: HeliumLayer | None = self.__dict__["_helium_layer"]
        return cached

    def compute_values(self) -> dict[str, Any]:
        """With a Helium loop for the layer, the template renders it and the kernel call the other
        cores make under ``HK_HAVE_MVE`` (fc_helium.c.mako)."""
        values = super().compute_values()
        layer = self.helium_layer()
        if layer is not None:
            self.TEMPLATE = "fc_helium.c.mako"
            folded = self.get_local_tensor("folded_bias").required_data()
            table = block_table(folded, self.__dict__["_helium_multipliers"])
            values["helium"] = {
                "table": [str(int(v)) for v in table],
                "asm": asm_string(layer_assembly(layer)),
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
        scales = np.asarray(self.weights.required_quantization().scale, np.float32)
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
        tables: list[CTable] = []
        if self.kind() == "hybrid":
            return self.hybrid_kernel(fields)
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
            per_channel = self.weights.required_quantization().per_channel
            fields += [
                ("input_offset", str(-self.source.zero_point())),
                ("filter_offset", str(self.filter_offset())),
                ("output_offset", str(self.target.zero_point())),
                ("act_min", str(lo)),
                ("act_max", str(hi)),
                ("output_scale", self.table_ref(table)),
                ("per_channel", "1" if per_channel else "0"),
            ]
        if self.block_sparse() is not None:
            return self.sparse_kernel(fields, tables)
        weights, bias = self.data_ptr(self.weights), self.data_ptr(self.bias)
        if self.int4_per_use():
            fields.append(("folded_bias", self.ptr(self.get_local_tensor("folded_bias"), const=True)))
            bias = "NULL"
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

    def sparse_kernel(self, fc_fields: list[tuple[str, str]], tables: list[CTable]) -> KernelCall:
        """``hk_fully_connected_s8_sparse``: the int8 fields plus the kept blocks' layout."""
        sparse = self.block_sparse()
        assert sparse is not None
        fields = [(f"fc.{name}", value) for name, value in fc_fields] + [
            ("block_units", str(sparse.block_units)),
            ("block_depth", str(sparse.block_depth)),
            ("block_starts", self.ptr(self.get_local_tensor("block_starts"), const=True)),
            ("block_columns", self.ptr(self.get_local_tensor("block_columns"), const=True)),
            ("folded_bias", self.ptr(self.get_local_tensor("folded_bias"), const=True)),
        ]
        args = [
            self.data_ptr(self.source),
            self.ptr(self.get_local_tensor("block_values"), const=True),
            self.ptr(self.target),
        ]
        return KernelCall(
            "fully_connected_s8_sparse",
            args,
            "fully_connected_sparse_params_t",
            dict(fields),
            tables=tables,
            params_in_run=True,
        )

    def hybrid_kernel(self, fields: list[tuple[str, str]]) -> KernelCall:
        """``hk_fully_connected_hybrid``: float rows quantized per row, int8 weights."""
        tables = []
        scales = channel_scales(self.weights)
        channel = "NULL"
        if scales is not None:
            table = CTable("channel_scale", "float", scales, "The weights' per-unit scales")
            tables.append(table)
            channel = self.table_ref(table)
        sums = "NULL"
        if self.options.asymmetric_quantize_inputs:
            values = [str(int(v)) for v in row_sums(self.weights.required_data(), 0)]
            table = CTable("row_sums", "int32_t", values, "Per unit, the sum of its int8 weights")
            tables.append(table)
            sums = self.table_ref(table)
        fields += [
            ("asymmetric", "1" if self.options.asymmetric_quantize_inputs else "0"),
            ("activation", str(HYBRID_ACTIVATIONS[self.options.activation])),
            ("filter_scale", filter_scale(self.weights)),
            ("channel_scale", channel),
            ("row_sums", sums),
        ]
        scratch = self.ptr(self.get_local_tensor("quantized_row"), ctype="int8_t")
        args = [self.data_ptr(self.source), self.data_ptr(self.weights), self.data_ptr(self.bias)]
        return KernelCall(
            "fully_connected_hybrid",
            [*args, scratch, self.ptr(self.target)],
            "fully_connected_hybrid_params_t",
            dict(fields),
            tables=tables,
            params_in_run=True,
        )


class BatchMatMulOperator(KernelCallOperator):
    """BATCH_MATMUL over up to three broadcast batch dimensions (float32, or int8 per tensor)."""

    TYPE = AirOpType.BATCH_MATMUL.value
    KERNELS = ("batch_matmul",)
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8)
    HYBRID_WEIGHT_DTYPES = ("int8",)  # a constant int8 right-hand side
    RESTRICTIONS = (
        "Both operands have rank 2 to 5; their batch dimensions broadcast (equal, or 1).",
        "Types: float32, float16, or int8 operands and output quantized per tensor (an int4 "
        "operand is refused, as LiteRT's kernel refuses it).",
        FLOAT16_RESTRICTION,
        "Hybrid: float32 lhs and output with a constant int8 rhs (per tensor, or per column), each "
        "lhs row quantized at run time as LiteRT does (symmetric, or asymmetric with "
        "asymmetric_quantize_inputs).",
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

    def hybrid(self) -> bool:
        """float32 lhs and output with int8 rhs (LiteRT's hybrid BATCH_MATMUL)."""
        return is_hybrid(self.input_tensors[0], self.input_tensors[1], self.output_tensors[0])

    def kernel_function(self) -> str:
        if self.hybrid():
            return "batch_matmul_hybrid"
        suffix = {np.float32: "f32", np.float16: "f16"}.get(self.output_tensors[0].dtype.numpy.type, "s8")
        return f"batch_matmul_{suffix}"

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs its own family (``_Float16``, Helium f16 on the M55).
        if self.hybrid():
            return ("batch_matmul_hybrid",)
        return ("batch_matmul_f16",) if is_half(self.output_tensors[0]) else self.KERNELS

    def check(self) -> Iterable[str]:
        lhs, rhs = self.input_tensors[:2]
        out = self.output_tensors[0]
        if AirTensorType.INT4 in (lhs.dtype, rhs.dtype):
            yield "int4 operands are not supported (LiteRT's BATCH_MATMUL refuses them too)"
            return
        if self.hybrid():
            yield from self.hybrid_problems()
            return
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

    def hybrid_problems(self) -> Iterable[str]:
        lhs, rhs = self.input_tensors[:2]
        if not (2 <= len(lhs.shape) <= 5 and 2 <= len(rhs.shape) <= 4):
            yield "a hybrid BATCH_MATMUL needs an lhs of rank 2 to 5 and an rhs of rank 2 to 4"
            return
        rows, depth, rhs_depth, cols = self._matrices()
        if depth != rhs_depth or depth < 1:
            yield f"lhs depth {depth} does not match rhs depth {rhs_depth}"
            return
        batch, lb, rb = self._batches()
        if any(a != b and 1 not in (a, b) for a, b in zip(lb, rb)):
            yield f"batch dimensions {lhs.shape[:-2]} and {rhs.shape[:-2]} do not broadcast"
            return
        axis = len(rhs.shape) - (2 if self.options.adj_y else 1)
        yield from hybrid_weight_problems(rhs, int(cols), axis, None)

    def on_resolve(self) -> None:
        if self.hybrid():
            # One lhs row at a time: depth floats (gathered) then their depth int8 values.
            self.add_scratch("quantized_row", 5 * self._matrices()[1], alignment=4)

    def hybrid_kernel(self, fields: list[tuple[str, str]]) -> KernelCall:
        """``hk_batch_matmul_hybrid``: lhs rows quantized one by one, int8 rhs."""
        rhs = self.input_tensors[1]
        data = np.asarray(rhs.data, np.int64)
        sums = data.sum(axis=-1 if self.options.adj_y else -2).reshape(-1).astype(np.int32)
        tables = [CTable("row_sums", "int32_t", [str(int(v)) for v in sums], "Per column, its weights' sum")]
        channel = "NULL"
        scales = channel_scales(rhs)
        if scales is not None:
            tables.append(CTable("channel_scale", "float", scales, "The rhs's per-column scales"))
            channel = self.table_ref(tables[-1])
        fields += [
            ("asymmetric", "1" if self.options.asymmetric_quantize_inputs else "0"),
            ("filter_scale", filter_scale(rhs)),
            ("channel_scale", channel),
            ("row_sums", self.table_ref(tables[0])),
        ]
        scratch = self.ptr(self.get_local_tensor("quantized_row"), ctype="void")
        return KernelCall(
            "batch_matmul_hybrid",
            [
                self.data_ptr(self.input_tensors[0]),
                self.data_ptr(rhs),
                scratch,
                self.ptr(self.output_tensors[0]),
            ],
            "batch_matmul_hybrid_params_t",
            dict(fields),
            tables=tables,
            params_in_run=True,
        )

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
        if self.hybrid():
            return self.hybrid_kernel(fields)
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
        arity=Arity(2, 3, max_outputs=2, optional=(2,)),
    ),
    OperatorRecord(
        AirOpType.BATCH_MATMUL.value,
        parse_batch_matmul,
        AirBatchMatMulOptions,
        BatchMatMulOperator,
        arity=Arity(2, 2),
    ),
]
