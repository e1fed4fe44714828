"""SVDF: a fully connected layer factored into feature and time filters, with state.

LiteRT's SVDF takes input [batch, input_size], weights_feature [filters, input_size], weights_time
[filters, memory], an optional bias [units] and the variable state [batch, memory * filters]
(filters = units * rank). The state is a persistent tensor of the module: ``<prefix>_model_init``
clears it, and each run ages it by one step before adding the newest feature activation, so the
outputs depend on every earlier run, as with one reference interpreter invoked repeatedly.

int8 with int16 state follows LiteRT's integer SVDF, whose two requantization scales are computed
in float32 (input * weights_feature / state, state * weights_time / output) and then quantized
like any multiplier; LiteRT requires the RELU activation there but applies none beyond the int8
clamp, and so does the kernel. int8 state (TFLM's variant) uses the same arithmetic with the
state clamped to int8. float32 applies the fused activation; float16 (``hk_svdf_f16``) does the
float32 arithmetic on float16 operands and rounds each new state slot and each output once.
Hybrid (float32 input, output and state with int8 weights, ``hk_svdf_hybrid``) quantizes each
input row at run time as LiteRT does; its int8 time weights are dequantized here once, as LiteRT
dequantizes them at its first run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensor, AirTensorKind
from helia_aot.codegen import c_float
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.hybrid import row_sums
from helia_aot_ops_builtin.common.kernel_call import CTable, KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser
from helia_aot_ops_builtin.common.quantization import quantize_multiplier

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

FLOAT_ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}
"""Fused activations the float32 recurrent kernels apply, by their ``HK_ACT_F32_*`` codes (the
LiteRT ActivationFunctionType values); SIGN_BIT has no defined float meaning and is refused."""


@dataclass(slots=True)
class AirSvdfOptions(AirOperatorOptions):
    """SVDF options as LiteRT stores them."""

    rank: int = 1
    activation: str = "NONE"
    asymmetric_quantize_inputs: bool = False


def _svdf_options(raw: litert.SVDFOptionsT | None) -> AirSvdfOptions:
    if raw is None:
        return AirSvdfOptions()
    return AirSvdfOptions(
        rank=int(raw.rank or 0),
        activation=activation_name(raw.fusedActivationFunction),
        asymmetric_quantize_inputs=bool(raw.asymmetricQuantizeInputs),
    )


parse_svdf = simple_parser("SVDF", _svdf_options)


def float32_scale(*factors: float, divide_by: float) -> float:
    """``a * b / c`` in float32, as LiteRT's Prepare multiplies the tensors' float scales."""
    product = np.float32(1.0)
    for factor in factors:
        product = np.float32(product * np.float32(factor))
    return float(np.float32(product / np.float32(divide_by)))


class SvdfOperator(KernelCallOperator):
    """SVDF: one ``hk_svdf_*`` call that updates the state and writes the output."""

    TYPE = "SVDF"
    HYBRID_WEIGHT_DTYPES = ("int8",)
    KERNELS = ("svdf",)
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8, np.int16)
    RESTRICTIONS = (
        "Input [batch, input_size], weights_feature [filters, input_size] and weights_time "
        "[filters, memory] constant, filters a multiple of rank, optional bias [filters / rank], "
        "state a variable tensor [batch, memory * filters], output [batch, filters / rank].",
        "Types: float32 (fused activation NONE, RELU, RELU_N1_TO_1, RELU6 or TANH); int8 input, "
        "output and weights_feature with int16 weights_time and state (LiteRT's integer SVDF) or "
        "int8 weights_time and state, int32 bias, per-tensor scales, zero point 0 on weights and "
        "state, fused activation RELU as LiteRT requires (applied as the int8 clamp only).",
        "Hybrid: float32 input, output, bias and state with int8 weights_feature and "
        "weights_time (one scale each); each input row is quantized at run time as LiteRT does.",
        "float16: every operand (input, weights, bias, state, output) float16 with a float "
        "activation as for float32, on an FP16-capable platform (Cortex-M55, e.g. apollo510_evb).",
    )

    @property
    def options(self) -> AirSvdfOptions:
        return self.typed_options(AirSvdfOptions)

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def weights_feature(self) -> AirTensor | None:
        return self.input_or_none(1)

    @property
    def weights_time(self) -> AirTensor | None:
        return self.input_or_none(2)

    @property
    def bias(self) -> AirTensor | None:
        return self.input_or_none(3)

    @property
    def state(self) -> AirTensor | None:
        return self.input_or_none(4)

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def kind(self) -> str | None:
        """``f32``, ``s8_s16`` or ``s8_s8`` from input, feature weights, time weights and output."""
        wf, wt = self.weights_feature, self.weights_time
        if wf is None or wt is None:
            return None
        key = (
            self.source.dtype.numpy.type,
            wf.dtype.numpy.type,
            wt.dtype.numpy.type,
            self.target.dtype.numpy.type,
        )
        return {
            (np.float32, np.float32, np.float32, np.float32): "f32",
            (np.float16, np.float16, np.float16, np.float16): "f16",
            (np.int8, np.int8, np.int16, np.int8): "s8_s16",
            (np.int8, np.int8, np.int8, np.int8): "s8_s8",
            (np.float32, np.int8, np.int8, np.float32): "hybrid",
        }.get(key)

    def call_role(self) -> str:
        return self.op.op_type.lower()  # the records name the call by operator type

    def kernel_function(self) -> str:
        return f"svdf_{self.kind()}"

    def kernel_families(self) -> tuple[str, ...]:
        # float16 runs its own family (``_Float16``), so an int8 or float32 module carries none of it.
        if self.kind() in ("f16", "hybrid"):
            return (f"svdf_{self.kind()}",)
        return self.KERNELS

    def _geometry(self) -> tuple[int, int, int, int, int]:
        """(batches, input_size, filters, rank, memory)."""
        filters, input_size = self.required_input(1).shape
        return self.source.shape[0], input_size, filters, self.options.rank, self.required_input(2).shape[1]

    def check(self) -> Iterable[str]:
        wf, wt, state = self.weights_feature, self.weights_time, self.state
        if wf is None or wt is None or state is None:
            yield "weights_feature, weights_time and the state are required inputs"
            return
        kind = self.kind()
        if kind is None:
            yield (
                f"types {self.source.dtype} input, {wf.dtype} weights_feature, {wt.dtype} weights_time, "
                f"{self.target.dtype} output are not supported"
            )
            return
        for tensor in (wf, wt):
            if not tensor.is_constant:
                yield f"{label(tensor)} must be constant"
        if state.kind is not AirTensorKind.PERSISTENT:
            yield f"the state {label(state)} must be a variable tensor"
        if len(self.source.shape) != 2 or len(wf.shape) != 2 or len(wt.shape) != 2:
            yield "input, weights_feature and weights_time must be 2-D"
            return
        rank = self.options.rank
        filters, input_size = wf.shape
        if rank < 1 or filters % rank != 0:
            yield f"rank {rank} does not divide the {filters} filters"
            return
        batches, memory, units = self.source.shape[0], wt.shape[1], filters // rank
        if self.source.shape[1] != input_size:
            yield f"input {tuple(self.source.shape)} does not have {input_size} features"
        if wt.shape[0] != filters or memory < 1:
            yield f"weights_time {tuple(wt.shape)} is not [{filters}, memory]"
        state_type = self.source.dtype if kind == "hybrid" else wt.dtype
        if tuple(state.shape) != (batches, memory * filters) or state.dtype != state_type:
            yield (
                f"state {tuple(state.shape)} {state.dtype} is not "
                f"[{batches}, {memory * filters}] {state_type}"
            )
        if tuple(self.target.shape) != (batches, units):
            yield f"output {tuple(self.target.shape)} is not [{batches}, {units}]"
        bias = self.bias
        if bias is not None and (bias.size != units or not bias.is_constant):
            yield f"bias {label(bias)} must be constant with {units} elements"
        if kind == "hybrid":
            if state.dtype.numpy != np.float32:
                yield f"the state {label(state)} of a hybrid SVDF must be float32"
            for tensor in (wf, wt):
                q = tensor.quantization
                if q is None or np.asarray(q.scale).size != 1:
                    yield f"hybrid {label(tensor)} needs one scale (LiteRT's hybrid SVDF reads one)"
        if kind in ("f32", "f16", "hybrid"):
            want = np.dtype(np.float16 if kind == "f16" else np.float32)
            if self.options.activation not in FLOAT_ACTIVATIONS:
                yield f"fused activation {self.options.activation} is not supported"
            if bias is not None and bias.dtype.numpy != want:
                yield f"bias {label(bias)} must be {want.name}"
            return
        if self.options.activation != "RELU":
            yield f"the int8 SVDF needs fused activation RELU (LiteRT refuses {self.options.activation})"
        if bias is not None and bias.dtype.numpy != np.int32:
            yield f"bias {label(bias)} must be int32"
        for tensor in (self.source, wf, wt, state, self.target):
            if tensor.quantization is None or tensor.quantization.per_channel:
                yield f"{label(tensor)} must be quantized per tensor"
                return
        for tensor in (wf, wt, state):
            if tensor.zero_point() != 0:
                yield f"{label(tensor)} must have zero point 0 (symmetric), as LiteRT's integer SVDF assumes"

    def on_resolve(self) -> None:
        if self.kind() == "hybrid":
            wt = self.required_input(2)
            scale = np.float32(wt.scale())
            dequantized = (wt.required_data().astype(np.float32) * scale).astype(np.float32)
            self.intern_constant_array("float_weights_time", dequantized, alignment=4)
            self.add_scratch("quantized_row", int(self.required_input(1).shape[1]), alignment=4)

    def hybrid_kernel(self, fields: list[tuple[str, str]]) -> KernelCall:
        """``hk_svdf_hybrid``: the float cell with a hybrid feature product."""
        feature = self.required_input(1)
        tables: list[CTable] = []
        sums = "NULL"
        if self.options.asymmetric_quantize_inputs:
            values = [str(int(v)) for v in row_sums(feature.required_data(), 0)]
            tables.append(CTable("row_sums", "int32_t", values, "Per filter, its feature weights' sum"))
            sums = self.table_ref(tables[0])
        fields += [
            ("activation", str(FLOAT_ACTIVATIONS[self.options.activation])),
            ("asymmetric", "1" if self.options.asymmetric_quantize_inputs else "0"),
            ("feature_scale", c_float(float(np.float32(feature.scale())))),
            ("row_sums", sums),
        ]
        args = [
            self.data_ptr(self.source),
            self.data_ptr(self.weights_feature),
            self.ptr(self.get_local_tensor("float_weights_time"), const=True),
            self.data_ptr(self.bias),
            self.ptr(self.get_local_tensor("quantized_row"), ctype="int8_t"),
            self.ptr(self.required_input(4)),
            self.ptr(self.target),
        ]
        return KernelCall(
            "svdf_hybrid", args, "svdf_hybrid_params_t", dict(fields), tables=tables, params_in_run=True
        )

    def reads_input(self, position: int) -> bool:
        # Hybrid: the dequantized copy replaces the int8 time weights.
        return not (position == 2 and self.kind() == "hybrid")

    def macs(self) -> int:
        batches, input_size, filters, _, memory = self._geometry()
        return batches * filters * (input_size + memory)

    def kernel(self) -> KernelCall:
        batches, input_size, filters, rank, memory = self._geometry()
        fields = [
            ("batches", str(batches)),
            ("input_size", str(input_size)),
            ("filters", str(filters)),
            ("rank", str(rank)),
            ("memory", str(memory)),
        ]
        if self.kind() == "hybrid":
            return self.hybrid_kernel(fields)
        if self.kind() in ("f32", "f16"):
            fields.append(("activation", str(FLOAT_ACTIVATIONS[self.options.activation])))
        else:
            s_in, s_wf = self.source.scale(), self.required_input(1).scale()
            s_state, s_wt, s_out = (
                self.required_input(4).scale(),
                self.required_input(2).scale(),
                self.target.scale(),
            )
            m1, sh1 = quantize_multiplier(float32_scale(s_in, s_wf, divide_by=s_state))
            m2, sh2 = quantize_multiplier(float32_scale(s_state, s_wt, divide_by=s_out))
            fields += [
                ("input_offset", str(-self.source.zero_point())),
                ("output_offset", str(self.target.zero_point())),
                ("feature_multiplier", str(m1)),
                ("feature_shift", str(sh1)),
                ("time_multiplier", str(m2)),
                ("time_shift", str(sh2)),
            ]
        args = [
            self.data_ptr(self.source),
            self.data_ptr(self.weights_feature),
            self.data_ptr(self.weights_time),
            self.data_ptr(self.bias),
            self.ptr(self.required_input(4)),
            self.ptr(self.target),
        ]
        return KernelCall(
            self.kernel_function(),
            args,
            "svdf_f16_params_t" if self.kind() == "f16" else "svdf_params_t",
            dict(fields),
            params_in_run=True,
        )


REGISTRATIONS = [
    OperatorRecord("SVDF", parse_svdf, AirSvdfOptions, SvdfOperator),
]
