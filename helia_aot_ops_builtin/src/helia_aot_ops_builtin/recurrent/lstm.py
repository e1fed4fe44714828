"""UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM.

One operator runs the whole sequence through ``hk_lstm_f32`` / ``hk_lstm_s8`` / ``hk_lstm_f16``
(float16: the Keras subset, evaluated in float, states and outputs rounded once). The output state
and cell state are the node's ``is_variable`` inputs, which load as persistent tensors: the kernel
updates them in place, so they carry from one ``<prefix>_model_run`` to the next exactly as the
LiteRT interpreter keeps them across ``invoke`` calls.

The integer layer is LiteRT's 8x8_16 LSTM: int8 input, weights and output state, int16 cell
state with a power-of-two scale, int16 peephole and layer-norm coefficients, int32 biases. Its
Prepare step turns the scales of the weights, the states and the five ``intermediates`` tensors
into multiplier/shift pairs, and folds the zero points (and, without layer norm, the gate biases)
into per-row effective biases; ``LstmOperator.integer_constants`` does the same in the same float32 /
double steps, so the kernel sees the reference's very numbers. LiteRT has no int16-activation
LSTM (an int16 input falls into its float path and fails), so there is none here either.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirOperatorOptions, AirTensor
from helia_aot.converters.litert.schema_access import intermediates_of, operator_at, tensor_at
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator, label
from helia_aot_ops_builtin.common.hybrid import row_sums
from helia_aot_ops_builtin.common.kernel_call import designated_init
from helia_aot_ops_builtin.common.parsing import activation_name, node_options, operator_from_node
from helia_aot_ops_builtin.common.quantization import checked_log2, quantize_multiplier

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

UNIDIRECTIONAL_KEY = "UNIDIRECTIONAL_SEQUENCE_LSTM"

GATES = ("input", "forget", "cell", "output")

# LiteRT lstm::full input positions.
INPUT = 0
INPUT_TO = (1, 2, 3, 4)
RECURRENT_TO = (5, 6, 7, 8)
CELL_TO = (9, 10, None, 11)  # no peephole on the cell gate; indexed by gate
BIAS = (12, 13, 14, 15)
PROJECTION_WEIGHTS, PROJECTION_BIAS = 16, 17
OUTPUT_STATE, CELL_STATE = 18, 19
LAYER_NORM = (20, 21, 22, 23)

HYBRID_WEIGHTS = (*INPUT_TO, *RECURRENT_TO, 9, 10, 11, PROJECTION_WEIGHTS)
"""The positions a hybrid LSTM holds as int8 (with one float scale each)."""

ACTIVATION_CODES = {"RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}
"""The cell activations LiteRT's ApplyActivationToVector applies. NONE is refused: there that
function returns without writing its result, so the reference reads stale gate buffers (the cell
gate's pre-activation sum and, for the output, the cell gate instead of the cell state); SIGN_BIT
asserts."""


@dataclass(slots=True)
class AirLstmOptions(AirOperatorOptions):
    """The LSTM options, plus the quantization of the node's ``intermediates`` tensors."""

    activation: str = "TANH"
    cell_clip: float = 0.0
    proj_clip: float = 0.0
    time_major: bool = False
    asymmetric_quantize_inputs: bool = False
    diagonal_recurrent: bool = False
    intermediate_scales: tuple[float | None, ...] = field(default_factory=tuple)
    intermediate_zero_points: tuple[int, ...] = field(default_factory=tuple)


def _intermediates(
    op_id: int, subgraph: litert.SubGraphT
) -> tuple[tuple[float | None, ...], tuple[int, ...]]:
    scales: list[float | None] = []
    zero_points: list[int] = []
    for index in intermediates_of(operator_at(subgraph, op_id)):
        q = tensor_at(subgraph, index).quantization if index >= 0 else None
        scale = [] if q is None or q.scale is None else list(q.scale)
        zero_point = [] if q is None or q.zeroPoint is None else list(q.zeroPoint)
        scales.append(float(np.float32(scale[0])) if scale else None)
        zero_points.append(int(zero_point[0]) if scale and zero_point else 0)
    return tuple(scales), tuple(zero_points)


def parse_unidirectional_lstm(
    op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel
) -> AirOperator:
    """Parse one UNIDIRECTIONAL_SEQUENCE_LSTM node, keeping its intermediates' quantization."""
    del model, air_model
    raw = cast("litert.UnidirectionalSequenceLSTMOptionsT | None", node_options(subgraph, op_id))
    scales, zero_points = _intermediates(op_id, subgraph)
    if raw is None:  # LiteRT's zero-initialized params
        options = AirLstmOptions(
            activation=activation_name(0), intermediate_scales=scales, intermediate_zero_points=zero_points
        )
    else:
        options = AirLstmOptions(
            activation=activation_name(raw.fusedActivationFunction),
            cell_clip=float(np.float32(raw.cellClip or 0.0)),
            proj_clip=float(np.float32(raw.projClip or 0.0)),
            time_major=bool(raw.timeMajor),
            asymmetric_quantize_inputs=bool(raw.asymmetricQuantizeInputs),
            diagonal_recurrent=bool(raw.diagonalRecurrentTensors),
            intermediate_scales=scales,
            intermediate_zero_points=zero_points,
        )
    return operator_from_node(op_id, subgraph, UNIDIRECTIONAL_KEY, options)


def _f32(x: float) -> float:
    return float(np.float32(x))


def _wrap32(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, np.int64)
    return (((values + (1 << 31)) % (1 << 32)) - (1 << 31)).astype(np.int32)


def effective_bias(weights: np.ndarray, zero_point: int, bias: np.ndarray | None) -> np.ndarray:
    """LiteRT ``PrecomputeZeroPointTimesWeightWithBias``: bias + zero_point * row sums (int32)."""
    w = np.asarray(weights, np.int64).reshape(weights.shape[0], -1)
    total = np.zeros(w.shape[0], np.int64) if bias is None else np.asarray(bias, np.int64).reshape(-1)
    return _wrap32(total + int(zero_point) * w.sum(axis=1))


class LstmOperator(BuiltinOperator):
    """UNIDIRECTIONAL_SEQUENCE_LSTM: the whole sequence in one kernel call."""

    TYPE = UNIDIRECTIONAL_KEY
    TEMPLATE = "lstm.c.mako"
    KERNELS = ("lstm",)
    HYBRID_WEIGHT_DTYPES = ("int8",)
    SUPPORTED_DTYPES = (np.float32, np.float16, np.int8, np.int16)
    RESTRICTIONS = (
        "float16: input, weights, biases, states and output all float16, the Keras subset (no "
        "peephole, projection or layer normalization), on an FP16-capable platform (Cortex-M55, "
        "e.g. apollo510_evb).",
        "float32: input, weights, biases, states and output all float32; hybrid: the same with int8 "
        "input, recurrent, peephole and projection weights (one scale each), each row quantized at "
        "run time as LiteRT does (symmetric, or asymmetric with asymmetric_quantize_inputs); "
        "integer: LiteRT's 8x8_16 LSTM, int8 input, weights, "
        "output state and output, an int16 cell state whose scale is a power of two, int16 "
        "peephole and layer-norm coefficients, int32 biases, all quantized per tensor, and the "
        "node's five intermediates tensors.",
        "The input is [batch, time, features] (or [time, batch, features] with time_major); every "
        "weight and bias is a constant of the shape LiteRT expects; CIFG (no input gate), peephole, "
        "projection (weights, optional bias) and layer normalization are all-or-none as in LiteRT.",
        "The cell activation is RELU, RELU_N1_TO_1, RELU6 or TANH (TANH for integer layers); "
        "cell_clip and proj_clip are >= 0; diagonal recurrent weights are not supported.",
    )

    @property
    def options(self) -> AirLstmOptions:
        return self.typed_options(AirLstmOptions)

    # -- inputs ---------------------------------------------------------------------------------
    def at(self, position: int | None) -> AirTensor | None:
        return None if position is None else self.input_or_none(position)

    @property
    def source(self) -> AirTensor:
        return self.required_input(INPUT)

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def is_integer(self) -> bool:
        return self.source.dtype.numpy == np.int8

    def is_half(self) -> bool:
        """float16 layers run ``hk_lstm_f16`` (the Keras subset, evaluated in float)."""
        return self.source.dtype.numpy == np.float16

    def is_hybrid(self) -> bool:
        """float32 input with int8 weights: LiteRT's hybrid LSTM (``hk_lstm_hybrid``)."""
        weights = self.at(INPUT_TO[3])
        return (
            self.source.dtype.numpy == np.float32 and weights is not None and weights.dtype.numpy == np.int8
        )

    def kernel_families(self) -> tuple[str, ...]:
        if self.is_hybrid():
            return ("lstm_hybrid",)
        return ("lstm_f16",) if self.is_half() else self.KERNELS

    def use_layer_norm(self) -> bool:
        return len(self.op.input_ids) == 24 and self.at(LAYER_NORM[1]) is not None

    def dims(self) -> tuple[int, int, int, int, int]:
        """(max_time, n_batch, n_input, n_cell, n_output)."""
        shape = self.source.shape
        if self.options.time_major:
            max_time, n_batch = shape[0], shape[1]
        else:
            n_batch, max_time = shape[0], shape[1]
        n_cell = self.required_input(INPUT_TO[3]).shape[0]
        n_output = self.required_input(RECURRENT_TO[3]).shape[-1]
        return int(max_time), int(n_batch), int(shape[2]), int(n_cell), int(n_output)

    # -- checks ---------------------------------------------------------------------------------
    def check(self) -> Iterable[str]:
        opts = self.options
        if len(self.op.input_ids) not in (20, 24):
            yield f"has {len(self.op.input_ids)} inputs; LiteRT's LSTM takes 20 or 24"
            return
        if self.source is None or len(self.source.shape) != 3:
            yield "the input must be 3-D [batch, time, features] or [time, batch, features]"
            return
        for position in (*INPUT_TO[1:], *RECURRENT_TO[1:], *BIAS[1:]):
            if self.at(position) is None:
                yield f"input {position} ({self._input_name(position)}) is missing"
        state, cell = self.at(OUTPUT_STATE), self.at(CELL_STATE)
        if state is None or cell is None:
            yield "the output state and cell state inputs must be variable tensors"
            return
        recurrent = self.at(RECURRENT_TO[3])
        if self.at(INPUT_TO[3]) is None or recurrent is None:
            return
        if opts.diagonal_recurrent or len(recurrent.shape) != 2:
            yield "diagonal recurrent weights are not supported"
            return
        if opts.activation not in ACTIVATION_CODES:
            yield f"cell activation {opts.activation} is not supported"
        if opts.cell_clip < 0 or opts.proj_clip < 0:
            yield "cell_clip and proj_clip must be >= 0"
        max_time, n_batch, n_input, n_cell, n_output = self.dims()
        cifg = self.at(INPUT_TO[0]) is None
        if cifg != (self.at(RECURRENT_TO[0]) is None) or cifg != (self.at(BIAS[0]) is None):
            yield "the input-gate weights and bias must be all present or all absent (CIFG)"
        peep = [self.at(CELL_TO[g]) is not None for g in (0, 1, 3)]
        if not (all(peep[1:]) and (peep[0] or cifg)) and any(peep):
            yield "the peephole weights must be all present or all absent"
        if self.at(PROJECTION_BIAS) is not None and self.at(PROJECTION_WEIGHTS) is None:
            yield "a projection bias needs projection weights"
        if self.at(PROJECTION_WEIGHTS) is None and n_output != n_cell:
            yield f"without a projection the output size {n_output} must equal the cell count {n_cell}"
        yield from self._shape_problems(n_input, n_cell, n_output, cifg)
        ln = self.use_layer_norm()
        if ln:
            for g in range(4):
                present = self.at(LAYER_NORM[g]) is not None
                if present == (g == 0 and cifg):
                    state_word = "absent" if present else "present"
                    yield f"the {GATES[g]} gate's layer-norm coefficients must be {state_word}"
        if state.size != n_batch * n_output or cell.size != n_batch * n_cell:
            yield (
                f"the states hold {state.size} and {cell.size} values; "
                f"expected {n_batch * n_output} and {n_batch * n_cell}"
            )
        expected = (*self.source.shape[:2], n_output)
        if tuple(self.target.shape) != expected:
            yield f"output shape {tuple(self.target.shape)} is not {expected}"
        weights = [self.at(p) for p in self._weight_positions()]
        for tensor in weights:
            if tensor is not None and not tensor.is_constant:
                yield f"weight {label(tensor)} must be a constant"
        if self.source.dtype.numpy == np.int16:
            yield (
                "an int16 input has no LiteRT LSTM kernel (the reference sends it to its float path, "
                "which fails); quantize the layer as int8 (8x8_16) or keep it float32"
            )
        elif self.is_integer():
            yield from self._integer_problems(cifg, ln)
        elif self.is_half():
            yield from self._half_problems(weights, ln)
        elif self.is_hybrid():
            yield from self._hybrid_problems()
        else:
            for tensor in [self.source, self.target, state, cell, *weights]:
                if tensor is not None and tensor.dtype.numpy != np.float32:
                    yield (
                        f"{label(tensor)} is {tensor.dtype}; a float LSTM has only float32 tensors "
                        "(a hybrid layer has int8 weights, including input_to_output)"
                    )
                    return

    def _hybrid_problems(self) -> Iterable[str]:
        """What LiteRT's hybrid LSTM (float32 activations, int8 weights) needs."""
        state, cell = self.at(OUTPUT_STATE), self.at(CELL_STATE)
        floats = [self.target, state, cell, *(self.at(p) for p in (*BIAS, PROJECTION_BIAS))]
        if self.use_layer_norm():
            floats += [self.at(p) for p in LAYER_NORM]
        for tensor in floats:
            if tensor is not None and tensor.dtype.numpy != np.float32:
                yield f"{label(tensor)} is {tensor.dtype}; a hybrid LSTM keeps it float32"
        for position in HYBRID_WEIGHTS:
            tensor = self.at(position)
            if tensor is None:
                continue
            if tensor.dtype.numpy != np.int8:
                yield f"{label(tensor)} is {tensor.dtype}; a hybrid LSTM has int8 weights throughout"
                continue
            q = tensor.quantization
            if q is None or q.scale is None or np.asarray(q.scale).size != 1:
                yield (
                    f"hybrid weights {label(tensor)} need one scale (LiteRT's hybrid LSTM reads a "
                    "single scale per weight tensor); quantize them per tensor"
                )

    def _half_problems(self, weights: list[AirTensor | None], ln: bool) -> Iterable[str]:
        """What the float16 kernel (the Keras subset) refuses."""
        state, cell = self.at(OUTPUT_STATE), self.at(CELL_STATE)
        for tensor in [self.source, self.target, state, cell, *weights]:
            if tensor is not None and tensor.dtype.numpy != np.float16:
                yield f"{label(tensor)} is {tensor.dtype}; a float16 LSTM has only float16 tensors"
                return
        if any(self.at(CELL_TO[g]) is not None for g in (0, 1, 3)):
            yield "a float16 LSTM has no peephole weights (the Keras subset)"
        if self.at(PROJECTION_WEIGHTS) is not None:
            yield "a float16 LSTM has no projection (the Keras subset)"
        if ln:
            yield "a float16 LSTM has no layer normalization (the Keras subset)"

    def _input_name(self, position: int) -> str:
        names = {INPUT: "input", OUTPUT_STATE: "output state", CELL_STATE: "cell state"}
        for group, what in (
            (INPUT_TO, "input to {} weights"),
            (RECURRENT_TO, "recurrent to {} weights"),
            (BIAS, "{} gate bias"),
            (LAYER_NORM, "{} layer norm"),
        ):
            for g, p in enumerate(group):
                names[p] = what.format(GATES[g])
        return names.get(position, f"input {position}")

    def _weight_positions(self) -> list[int]:
        positions = [*INPUT_TO, *RECURRENT_TO, *(p for p in CELL_TO if p is not None), *BIAS]
        positions += [PROJECTION_WEIGHTS, PROJECTION_BIAS]
        if len(self.op.input_ids) == 24:
            positions += list(LAYER_NORM)
        return positions

    def _shape_problems(self, n_input: int, n_cell: int, n_output: int, cifg: bool) -> Iterable[str]:
        for g in range(4):
            if g == 0 and cifg:
                continue
            for position, shape in (
                (INPUT_TO[g], (n_cell, n_input)),
                (RECURRENT_TO[g], (n_cell, n_output)),
                (BIAS[g], (n_cell,)),
            ):
                tensor = self.at(position)
                if tensor is not None and tuple(tensor.shape) != shape:
                    name = self._input_name(position)
                    yield f"{name} {label(tensor)} is {tuple(tensor.shape)}, not {shape}"
            for optional in (CELL_TO[g], LAYER_NORM[g] if self.use_layer_norm() else None):
                tensor = self.at(optional)
                if tensor is not None and tuple(tensor.shape) != (n_cell,):
                    yield f"{label(tensor)} is {tuple(tensor.shape)}, not ({n_cell},)"
        proj = self.at(PROJECTION_WEIGHTS)
        if proj is not None and tuple(proj.shape) != (n_output, n_cell):
            yield f"projection weights {label(proj)} are {tuple(proj.shape)}, not {(n_output, n_cell)}"
        pbias = self.at(PROJECTION_BIAS)
        if pbias is not None and tuple(pbias.shape) != (n_output,):
            yield f"projection bias {label(pbias)} is {tuple(pbias.shape)}, not ({n_output},)"

    def _integer_problems(self, cifg: bool, ln: bool) -> Iterable[str]:
        state, cell = self.at(OUTPUT_STATE), self.at(CELL_STATE)
        assert state is not None and cell is not None
        wanted: list[tuple[AirTensor | None, str]] = [
            (self.source, "int8"),
            (self.target, "int8"),
            (state, "int8"),
            (cell, "int16"),
        ]
        wanted += [(self.at(p), "int8") for p in (*INPUT_TO, *RECURRENT_TO, PROJECTION_WEIGHTS)]
        wanted += [(self.at(p), "int16") for p in CELL_TO if p is not None]
        wanted += [(self.at(p), "int32") for p in (*BIAS, PROJECTION_BIAS)]
        if len(self.op.input_ids) == 24:
            wanted += [(self.at(p), "int16") for p in LAYER_NORM]
        for tensor, dtype in wanted:
            if tensor is None:
                continue
            if str(tensor.dtype) != dtype:
                yield f"{label(tensor)} is {tensor.dtype}; the integer LSTM needs {dtype}"
                continue
            if dtype == "int32":
                continue
            q = tensor.quantization
            if q is None:
                yield f"{label(tensor)} is not quantized"
            elif q.per_channel:
                yield f"{label(tensor)} is quantized per channel; the integer LSTM reads one scale"
        if cell.quantization is not None and checked_log2(cell.scale()) is None:
            yield f"the cell state's scale {cell.scale()} is not a power of two"
        scales = self.options.intermediate_scales
        if len(scales) != 5:
            yield f"the node has {len(scales)} intermediates tensors; the integer LSTM needs 5"
        else:
            if scales[4] is None:
                yield "the fifth intermediates tensor (the hidden state) is not quantized"
            if ln and any(s is None for s in scales[:4]):
                yield "with layer normalization the first four intermediates tensors must be quantized"
        if self.options.activation != "TANH":
            yield f"an integer LSTM always uses TANH, not {self.options.activation}"
        _, _, _, n_cell, n_output = self.dims()
        if self.at(CELL_TO[1]) is not None and n_output > n_cell:
            yield (
                "peephole weights with a projection wider than the cell are not supported "
                "(LiteRT's integer peephole walks the output size and would read past the weights)"
            )

    # -- constants ------------------------------------------------------------------------------
    def on_resolve(self) -> None:
        if self.is_half():
            self.add_scratch("scratch", 4 * 6 * self.dims()[3], alignment=4)
            return
        if self.is_hybrid():
            self.resolve_hybrid()
            return
        if not self.is_integer():
            _, _, _, n_cell, n_output = self.dims()
            self.add_scratch("scratch", 4 * (5 * n_cell + n_output), alignment=4)
            return
        constants = self.integer_constants()
        for name, data in constants["arrays"].items():
            self.intern_constant_array(name, data)
        _, n_batch, _, n_cell, _ = self.dims()
        rows = n_batch if self.options.time_major else 1
        self.add_scratch("scratch", 9 * rows * n_cell, alignment=4)

    def resolve_hybrid(self) -> None:
        """The weights' row sums (asymmetric input quantization only) and the scratch."""
        _, n_batch, n_input, n_cell, n_output = self.dims()
        if self.options.asymmetric_quantize_inputs:
            for g in range(4):
                for prefix, position in (("input", INPUT_TO[g]), ("recurrent", RECURRENT_TO[g])):
                    tensor = self.at(position)
                    if tensor is not None:
                        sums = row_sums(tensor.required_data(), 0)
                        self.intern_constant_array(f"{prefix}_row_sums_{GATES[g]}", sums)
            projection = self.at(PROJECTION_WEIGHTS)
            if projection is not None:
                self.intern_constant_array("projection_row_sums", row_sums(projection.required_data(), 0))
        rows = n_batch if self.options.time_major else 1
        scratch = 4 * (4 * rows * n_cell + n_cell + 6 * rows) + rows * (n_input + n_output + n_cell)
        self.add_scratch("scratch", scratch, alignment=4)

    def reads_input(self, position: int) -> bool:
        # The integer kernel reads effective biases, not the gate and projection biases, unless
        # layer normalization adds the gate bias after normalising.
        if self.is_integer() and position == PROJECTION_BIAS:
            return False
        if self.is_integer() and position in BIAS:
            return self.use_layer_norm()
        return True

    def integer_constants(self) -> dict[str, Any]:
        """LiteRT ``PopulateQuantizedLstmParams8x8_16`` and ``PopulatePrecomputedZPTimesWeightsWithBias``."""
        opts = self.options
        ln = self.use_layer_norm()
        state, cell = self.at(OUTPUT_STATE), self.at(CELL_STATE)
        assert state is not None and cell is not None
        inter = [(_f32(s) if s is not None else 0.0) for s in opts.intermediate_scales]
        if not ln:
            inter[:4] = [2.0**-12] * 4
        hidden_scale, hidden_zp = inter[4], int(opts.intermediate_zero_points[4])
        in_scale = np.float32(self.source.scale())
        state_scale = np.float32(state.scale())
        cell_log2 = checked_log2(cell.scale())
        assert cell_log2 is not None

        def scale_of(position: int | None) -> np.float32:
            tensor = self.at(position)
            return np.float32(1.0) if tensor is None else np.float32(tensor.scale())

        params: dict[str, Any] = {
            key: [0] * 4
            for key in (
                "input_multiplier",
                "input_shift",
                "recurrent_multiplier",
                "recurrent_shift",
                "cell_multiplier",
                "cell_shift",
                "layer_norm_multiplier",
                "layer_norm_shift",
                "variance_guard",
            )
        }
        arrays: dict[str, np.ndarray] = {}
        input_offset, state_offset = -self.source.zero_point(), -state.zero_point()
        for g in range(4):
            present = self.at(INPUT_TO[g]) is not None
            eff_in = (
                np.float32(np.float32(scale_of(INPUT_TO[g]) * in_scale) / np.float32(inter[g]))
                if present
                else np.float32(1.0)
            )
            eff_rec = (
                np.float32(np.float32(scale_of(RECURRENT_TO[g]) * state_scale) / np.float32(inter[g]))
                if present
                else np.float32(1.0)
            )
            eff_cell = np.float32(1.0)
            if CELL_TO[g] is not None and self.at(CELL_TO[g]) is not None:
                eff_cell = np.float32(
                    2.0**cell_log2 * float(scale_of(CELL_TO[g])) / float(np.float32(inter[g]))
                )
            ln_scale = (
                scale_of(LAYER_NORM[g]) if ln and self.at(LAYER_NORM[g]) is not None else np.float32(1.0)
            )
            for prefix, value in (
                ("input", eff_in),
                ("recurrent", eff_rec),
                ("cell", eff_cell),
                ("layer_norm", ln_scale),
            ):
                m, s = quantize_multiplier(float(value))
                params[f"{prefix}_multiplier"][g] = m
                params[f"{prefix}_shift"][g] = s
            params["variance_guard"][g] = max(1, int(np.float32(10000) * ln_scale))
            if present:
                bias = self.at(BIAS[g])
                gate_bias = None if ln or bias is None else bias.data
                arrays[f"input_bias_{GATES[g]}"] = effective_bias(
                    self.required_input(INPUT_TO[g]).required_data(), input_offset, gate_bias
                )
                arrays[f"recurrent_bias_{GATES[g]}"] = effective_bias(
                    self.required_input(RECURRENT_TO[g]).required_data(), state_offset, None
                )
        eff_hidden = np.float32(2.0**-15 / float(np.float32(hidden_scale)) * 2.0**-15)
        proj = self.at(PROJECTION_WEIGHTS)
        eff_proj = np.float32(
            np.float32(scale_of(PROJECTION_WEIGHTS) * np.float32(hidden_scale)) / state_scale
        )
        params["hidden_multiplier"], params["hidden_shift"] = quantize_multiplier(float(eff_hidden))
        params["projection_multiplier"], params["projection_shift"] = quantize_multiplier(float(eff_proj))
        params["hidden_zero_point"] = hidden_zp
        params["output_state_zero_point"] = state.zero_point()
        params["cell_scale_log2"] = cell_log2
        cell_clip = 0
        if opts.cell_clip > 0:
            cell_clip = int(
                min(max(float(np.float32(opts.cell_clip) / np.float32(cell.scale())), -32768.0), 32767.0)
            )
        proj_clip = 0
        if opts.proj_clip > 0:
            proj_clip = int(
                min(max(float(np.float32(opts.proj_clip) / np.float32(self.target.scale())), -128.0), 127.0)
            )
        params["cell_clip"], params["proj_clip"] = cell_clip, proj_clip
        if proj is not None:
            pbias = self.at(PROJECTION_BIAS)
            arrays["projection_bias"] = effective_bias(
                proj.required_data(), hidden_zp, None if pbias is None else pbias.data
            )
        return {"params": params, "arrays": arrays}

    # -- emission -------------------------------------------------------------------------------
    def shape_fields(self) -> dict[str, Any]:
        max_time, n_batch, n_input, n_cell, n_output = self.dims()
        return {
            "max_time": max_time,
            "n_batch": n_batch,
            "n_input": n_input,
            "n_cell": n_cell,
            "n_output": n_output,
            "time_major": int(self.options.time_major),
            "reverse": 0,
            "output_stride": n_output,
        }

    def _ptrs(self, positions: Sequence[int | None], ctype: str) -> list[str]:
        out = []
        for position in positions:
            tensor = self.at(position)
            out.append("NULL" if tensor is None else self.ptr(tensor, const=True, ctype=ctype))
        return out

    def _local(self, name: str, ctype: str) -> str:
        if name not in self.op.named_tensors:
            return "NULL"
        return self.ptr(self.get_local_tensor(name), const=True, ctype=ctype)

    def kernel_calls(self) -> dict[str, str]:
        if self.is_hybrid():
            return {"lstm_hybrid": "hk_lstm_hybrid"}
        if self.is_half():
            return {"lstm_f16": "hk_lstm_f16"}
        return {"lstm": "hk_lstm_s8" if self.is_integer() else "hk_lstm_f32"}

    def _half_call(self) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
        """The float16 kernel's params, weights and arguments."""
        max_time, n_batch, n_input, n_cell, _ = self.dims()
        opts = self.options
        params = {
            "max_time": max_time,
            "n_batch": n_batch,
            "n_input": n_input,
            "n_cell": n_cell,
            "time_major": int(opts.time_major),
            "activation": ACTIVATION_CODES[opts.activation],
            "cell_clip": opts.cell_clip,
        }
        weights = {
            "input_to_gate": self._ptrs(INPUT_TO, "uint16_t"),
            "recurrent_to_gate": self._ptrs(RECURRENT_TO, "uint16_t"),
            "bias": self._ptrs(BIAS, "uint16_t"),
        }
        args = [
            self.ptr(self.source, const=True),
            self.ptr(self.required_input(OUTPUT_STATE)),
            self.ptr(self.required_input(CELL_STATE)),
            self.ptr(self.target),
            self.ptr(self.get_local_tensor("scratch"), ctype="float"),
        ]
        return params, weights, args

    def _hybrid_call(self) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
        """The hybrid kernel's params (with the weights' scales), weights and arguments."""
        opts = self.options

        def scale(position: int | None) -> float:
            tensor = self.at(position)
            return 0.0 if tensor is None else _f32(tensor.scale())

        params = {
            "shape": self.shape_fields(),
            "activation": ACTIVATION_CODES[opts.activation],
            "cell_clip": opts.cell_clip,
            "proj_clip": opts.proj_clip,
            "asymmetric": int(opts.asymmetric_quantize_inputs),
            "input_scale": [scale(p) for p in INPUT_TO],
            "recurrent_scale": [scale(p) for p in RECURRENT_TO],
            "cell_scale": [scale(p) for p in CELL_TO],
            "projection_scale": scale(PROJECTION_WEIGHTS),
        }
        ln_positions: list[int | None] = list(LAYER_NORM) if self.use_layer_norm() else [None] * 4
        weights = {
            "input_to_gate": self._ptrs(INPUT_TO, "int8_t"),
            "recurrent_to_gate": self._ptrs(RECURRENT_TO, "int8_t"),
            "cell_to_gate": self._ptrs(CELL_TO, "int8_t"),
            "layer_norm": self._ptrs(ln_positions, "float"),
            "bias": self._ptrs(BIAS, "float"),
            "projection_weights": self._ptrs([PROJECTION_WEIGHTS], "int8_t")[0],
            "projection_bias": self._ptrs([PROJECTION_BIAS], "float")[0],
            "input_row_sums": [self._local(f"input_row_sums_{g}", "int32_t") for g in GATES],
            "recurrent_row_sums": [self._local(f"recurrent_row_sums_{g}", "int32_t") for g in GATES],
            "projection_row_sums": self._local("projection_row_sums", "int32_t"),
        }
        args = [
            self.ptr(self.source, const=True),
            self.ptr(self.required_input(OUTPUT_STATE)),
            self.ptr(self.required_input(CELL_STATE)),
            self.ptr(self.target),
            self.ptr(self.get_local_tensor("scratch"), ctype="void"),
        ]
        return params, weights, args

    def compute_values(self) -> dict[str, Any]:
        ln = self.use_layer_norm()
        ln_positions: list[int | None] = list(LAYER_NORM) if ln else [None] * 4
        scratch = self.get_local_tensor("scratch")
        state, cell = self.at(OUTPUT_STATE), self.at(CELL_STATE)
        assert state is not None and cell is not None
        if self.is_half():
            params, weights, args = self._half_call()
            function, params_type, weights_type = "lstm_f16", "lstm_f16_params_t", "lstm_f16_weights_t"
        elif self.is_hybrid():
            params, weights, args = self._hybrid_call()
            function, params_type = "lstm_hybrid", "lstm_hybrid_params_t"
            weights_type = "lstm_hybrid_weights_t"
        elif self.is_integer():
            constants = self.integer_constants()
            params = {"shape": self.shape_fields(), **constants["params"]}
            weights = {
                "input_to_gate": self._ptrs(INPUT_TO, "int8_t"),
                "recurrent_to_gate": self._ptrs(RECURRENT_TO, "int8_t"),
                "cell_to_gate": self._ptrs(CELL_TO, "int16_t"),
                "layer_norm": self._ptrs(ln_positions, "int16_t"),
                "layer_norm_bias": self._ptrs(BIAS if ln else [None] * 4, "int32_t"),
                "input_bias": [self._local(f"input_bias_{g}", "int32_t") for g in GATES],
                "recurrent_bias": [self._local(f"recurrent_bias_{g}", "int32_t") for g in GATES],
                "projection_weights": self._ptrs([PROJECTION_WEIGHTS], "int8_t")[0],
                "projection_bias": self._local("projection_bias", "int32_t"),
            }
            args = [
                self.ptr(self.source, const=True),
                self.ptr(state),
                self.ptr(cell),
                self.ptr(self.target),
                self.ptr(scratch, ctype="void"),
            ]
            function, params_type, weights_type = "lstm_s8", "lstm_s8_params_t", "lstm_s8_weights_t"
        else:
            opts = self.options
            params = {
                "shape": self.shape_fields(),
                "n_aux_input": 0,
                "activation": ACTIVATION_CODES[opts.activation],
                "cell_clip": opts.cell_clip,
                "proj_clip": opts.proj_clip,
            }
            weights = {
                "input_to_gate": self._ptrs(INPUT_TO, "float"),
                "aux_to_gate": ["NULL"] * 4,
                "recurrent_to_gate": self._ptrs(RECURRENT_TO, "float"),
                "cell_to_gate": self._ptrs(CELL_TO, "float"),
                "layer_norm": self._ptrs(ln_positions, "float"),
                "bias": self._ptrs(BIAS, "float"),
                "projection_weights": self._ptrs([PROJECTION_WEIGHTS], "float")[0],
                "projection_bias": self._ptrs([PROJECTION_BIAS], "float")[0],
            }
            args = [
                self.ptr(self.source, const=True),
                "NULL",
                self.ptr(state),
                self.ptr(cell),
                self.ptr(self.target),
                self.ptr(scratch, ctype="float"),
            ]
            function, params_type, weights_type = "lstm_f32", "lstm_f32_params_t", "lstm_f32_weights_t"
        return {
            "function": function,
            "params_type": params_type,
            "weights_type": weights_type,
            "calls": [
                {
                    "name": "params",
                    "comment": f"{self.op.op_type} shapes, options and LiteRT's Prepare-time constants",
                    "params": designated_init(params, multiline=True),
                    "weights": designated_init(weights, multiline=True).replace("\n", "\n        "),
                    "args": args,
                }
            ],
            "status_base": KERNEL_STATUS_BASE,
        }

    def macs(self) -> int:
        max_time, n_batch, n_input, n_cell, n_output = self.dims()
        gates = 3 if self.at(INPUT_TO[0]) is None else 4
        per_step = gates * n_cell * (n_input + n_output)
        if self.at(PROJECTION_WEIGHTS) is not None:
            per_step += n_cell * n_output
        return max_time * n_batch * per_step

    def parameters(self) -> int:
        present = (self.at(p) for p in self._weight_positions())
        return sum(tensor.size for tensor in present if tensor is not None)


REGISTRATIONS = [
    OperatorRecord(UNIDIRECTIONAL_KEY, parse_unidirectional_lstm, AirLstmOptions, LstmOperator),
]


BIDIRECTIONAL_KEY = "BIDIRECTIONAL_SEQUENCE_LSTM"


@dataclass(frozen=True, slots=True)
class Direction:
    """Where one direction of a BIDIRECTIONAL_SEQUENCE_LSTM finds its tensors (LiteRT positions)."""

    input_to: tuple[int, int, int, int]
    recurrent_to: tuple[int, int, int, int]
    cell_to: tuple[int | None, ...]
    bias: tuple[int, int, int, int]
    projection: int
    projection_bias: int
    state: int
    cell: int
    aux_to: tuple[int, int, int, int]


FORWARD = Direction(
    (1, 2, 3, 4), (5, 6, 7, 8), (9, 10, None, 11), (12, 13, 14, 15), 16, 17, 35, 36, (40, 41, 42, 43)
)
BACKWARD = Direction(
    (18, 19, 20, 21), (22, 23, 24, 25), (26, 27, None, 28), (29, 30, 31, 32), 33, 34, 37, 38, (44, 45, 46, 47)
)
AUX_INPUT = 39


@dataclass(slots=True)
class AirBidirectionalLstmOptions(AirOperatorOptions):
    """BIDIRECTIONAL_SEQUENCE_LSTM options as LiteRT stores them."""

    activation: str = "TANH"
    cell_clip: float = 0.0
    proj_clip: float = 0.0
    merge_outputs: bool = False
    time_major: bool = True


def parse_bidirectional_lstm(
    op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel
) -> AirOperator:
    """Parse one BIDIRECTIONAL_SEQUENCE_LSTM node."""
    del model, air_model
    raw = cast("litert.BidirectionalSequenceLSTMOptionsT | None", node_options(subgraph, op_id))
    if raw is None:
        options = AirBidirectionalLstmOptions(activation=activation_name(0), time_major=True)
    else:
        options = AirBidirectionalLstmOptions(
            activation=activation_name(raw.fusedActivationFunction),
            cell_clip=float(np.float32(raw.cellClip or 0.0)),
            proj_clip=float(np.float32(raw.projClip or 0.0)),
            merge_outputs=bool(raw.mergeOutputs),
            time_major=bool(raw.timeMajor),
        )
    return operator_from_node(op_id, subgraph, BIDIRECTIONAL_KEY, options)


class BidirectionalLstmOperator(BuiltinOperator):
    """BIDIRECTIONAL_SEQUENCE_LSTM (float32): a forward and a backward ``hk_lstm_f32`` call.

    As in LiteRT's EvalFloat: the backward direction walks the sequence from its end; with
    ``merge_outputs`` both write one output, the backward half after the forward's features. An
    auxiliary input is either a second input both directions read through their aux weights
    (stacking with cross links) or, without aux weights, the backward direction's own input.
    LiteRT has no fully integer bidirectional LSTM (int8 weights mean its hybrid path), so
    neither does this pack.
    """

    TYPE = BIDIRECTIONAL_KEY
    TEMPLATE = "lstm.c.mako"
    KERNELS = ("lstm",)
    SUPPORTED_DTYPES = (np.float32,)
    RESTRICTIONS = (
        "float32 only (input, weights, states and outputs); all 48 LiteRT inputs in their "
        "positions, weights constant, each direction's CIFG, peephole and projection all-or-none.",
        "The input is [time, batch, features] (or [batch, time, features] without time_major); "
        "the cell activation is RELU, RELU_N1_TO_1, RELU6 or TANH.",
    )

    @property
    def options(self) -> AirBidirectionalLstmOptions:
        return self.typed_options(AirBidirectionalLstmOptions)

    def at(self, position: int | None) -> AirTensor | None:
        return None if position is None else self.input_or_none(position)

    @property
    def source(self) -> AirTensor:
        return self.required_input(INPUT)

    def uses_aux_weights(self) -> bool:
        return self.at(FORWARD.aux_to[1]) is not None

    def backward_input(self) -> AirTensor:
        """LiteRT's non-stacking mode: an aux input without aux weights feeds the backward LSTM."""
        aux = self.at(AUX_INPUT)
        return aux if aux is not None and not self.uses_aux_weights() else self.source

    def sizes(self, d: Direction) -> tuple[int, int]:
        """(n_cell, n_output) of one direction."""
        recurrent = self.at(d.recurrent_to[3])
        assert recurrent is not None
        return int(recurrent.shape[0]), int(recurrent.shape[1])

    def check(self) -> Iterable[str]:
        opts = self.options
        if len(self.op.input_ids) != 48:
            yield f"has {len(self.op.input_ids)} inputs; LiteRT's bidirectional LSTM takes 48"
            return
        if self.source is None or len(self.source.shape) != 3:
            yield "the input must be 3-D"
            return
        if opts.activation not in ACTIVATION_CODES:
            yield f"cell activation {opts.activation} is not supported"
        if opts.cell_clip < 0 or opts.proj_clip < 0:
            yield "cell_clip and proj_clip must be >= 0"
        outputs = self.output_tensors
        if len(outputs) != (1 if opts.merge_outputs else 2):
            yield f"has {len(outputs)} outputs; expected {1 if opts.merge_outputs else 2}"
            return
        steps = tuple(self.source.shape[:2])
        for name, d in (("forward", FORWARD), ("backward", BACKWARD)):
            required = (*d.input_to[1:], *d.recurrent_to[1:], *d.bias[1:], d.state, d.cell)
            if any(self.at(p) is None for p in required):
                yield f"the {name} direction misses weights, biases or states"
                return
            n_cell, n_output = self.sizes(d)
            cifg = self.at(d.input_to[0]) is None
            if cifg != (self.at(d.recurrent_to[0]) is None) or cifg != (self.at(d.bias[0]) is None):
                yield f"the {name} input-gate weights and bias must be all present or all absent"
            peep = [self.at(d.cell_to[g]) is not None for g in (0, 1, 3)]
            if any(peep) and not (all(peep[1:]) and (peep[0] or cifg)):
                yield f"the {name} peephole weights must be all present or all absent"
            if self.at(d.projection) is None and n_output != n_cell:
                yield f"the {name} output size {n_output} is not its cell count {n_cell} (no projection)"
            state, cell = self.required_input(d.state), self.required_input(d.cell)
            batch = steps[1] if opts.time_major else steps[0]
            if state.size != batch * n_output or cell.size != batch * n_cell:
                yield f"the {name} states do not hold {batch} rows of {n_output} and {n_cell} values"
            for position in self._positions(d):
                tensor = self.at(position)
                if tensor is not None and not tensor.is_constant:
                    yield f"weight {label(tensor)} must be a constant"
        if opts.merge_outputs and not opts.time_major and steps[0] > 1:
            yield (
                "merge_outputs with batch-major input and more than one batch row is not supported: "
                "LiteRT's kernel offsets each row's state by the merged output width, past the state tensor"
            )
        if self.sizes(FORWARD) != self.sizes(BACKWARD):
            yield (
                f"the directions' (cells, outputs) {self.sizes(FORWARD)} and {self.sizes(BACKWARD)} differ; "
                "LiteRT's kernel checks both against the forward sizes"
            )
        fw_out, bw_out = self.sizes(FORWARD)[1], self.sizes(BACKWARD)[1]
        if opts.merge_outputs:
            if tuple(outputs[0].shape) != (*steps, fw_out + bw_out):
                yield f"merged output {tuple(outputs[0].shape)} is not {(*steps, fw_out + bw_out)}"
        elif tuple(outputs[0].shape) != (*steps, fw_out) or tuple(outputs[1].shape) != (*steps, bw_out):
            yield "the forward and backward outputs do not match the input steps and output sizes"
        aux = self.at(AUX_INPUT)
        if self.uses_aux_weights() and aux is None:
            yield "aux weights need an aux input"
        if aux is not None and tuple(aux.shape[:2]) != steps:
            yield f"aux input {tuple(aux.shape)} does not have the input's steps {steps}"

    def _positions(self, d: Direction) -> list[int]:
        out = [*d.input_to, *d.recurrent_to, *(p for p in d.cell_to if p is not None), *d.bias]
        return out + [d.projection, d.projection_bias, *d.aux_to]

    def on_resolve(self) -> None:
        needed = max(5 * self.sizes(d)[0] + self.sizes(d)[1] for d in (FORWARD, BACKWARD))
        self.add_scratch("scratch", 4 * needed, alignment=4)

    def kernel_calls(self) -> dict[str, str]:
        return {"lstm": "hk_lstm_f32"}

    def _ptrs(self, positions: Sequence[int | None]) -> list[str]:
        tensors = [self.at(p) for p in positions]
        return ["NULL" if t is None else self.ptr(t, const=True, ctype="float") for t in tensors]

    def _call(self, name: str, d: Direction, reverse: bool) -> dict[str, Any]:
        opts = self.options
        n_cell, n_output = self.sizes(d)
        source = self.backward_input() if reverse else self.source
        aux = None if (reverse and source is not self.source) else self.at(AUX_INPUT)
        if not self.uses_aux_weights():
            aux = None
        outputs = self.output_tensors
        target = outputs[0] if (opts.merge_outputs or not reverse) else outputs[1]
        offset = self.sizes(FORWARD)[1] if (reverse and opts.merge_outputs) else 0
        steps = source.shape
        max_time, n_batch = (steps[0], steps[1]) if opts.time_major else (steps[1], steps[0])
        params = {
            "shape": {
                "max_time": int(max_time),
                "n_batch": int(n_batch),
                "n_input": int(source.shape[2]),
                "n_cell": n_cell,
                "n_output": n_output,
                "time_major": int(opts.time_major),
                "reverse": int(reverse),
                "output_stride": int(target.shape[-1]),
            },
            "n_aux_input": int(aux.shape[2]) if aux is not None else 0,
            "activation": ACTIVATION_CODES[opts.activation],
            "cell_clip": opts.cell_clip,
            "proj_clip": opts.proj_clip,
        }
        weights = {
            "input_to_gate": self._ptrs(d.input_to),
            "aux_to_gate": self._ptrs(d.aux_to) if aux is not None else ["NULL"] * 4,
            "recurrent_to_gate": self._ptrs(d.recurrent_to),
            "cell_to_gate": self._ptrs(d.cell_to),
            "layer_norm": ["NULL"] * 4,
            "bias": self._ptrs(d.bias),
            "projection_weights": self._ptrs([d.projection])[0],
            "projection_bias": self._ptrs([d.projection_bias])[0],
        }
        out = f"({self.ptr(target, ctype='float')} + {offset})" if offset else self.ptr(target, ctype="float")
        args = [
            self.ptr(source, const=True, ctype="float"),
            "NULL" if aux is None else self.ptr(aux, const=True, ctype="float"),
            self.ptr(self.required_input(d.state), ctype="float"),
            self.ptr(self.required_input(d.cell), ctype="float"),
            out,
            self.ptr(self.get_local_tensor("scratch"), ctype="float"),
        ]
        return {
            "name": name,
            "comment": f"{self.op.op_type}: the {'backward' if reverse else 'forward'} direction",
            "params": designated_init(params, multiline=True),
            "weights": designated_init(weights, multiline=True).replace("\n", "\n        "),
            "args": args,
        }

    def compute_values(self) -> dict[str, Any]:
        return {
            "function": "lstm_f32",
            "params_type": "lstm_f32_params_t",
            "weights_type": "lstm_f32_weights_t",
            "calls": [self._call("forward", FORWARD, False), self._call("backward", BACKWARD, True)],
            "status_base": KERNEL_STATUS_BASE,
        }

    def macs(self) -> int:
        total = 0
        for d in (FORWARD, BACKWARD):
            n_cell, n_output = self.sizes(d)
            gates = 3 if self.at(d.input_to[0]) is None else 4
            total += gates * n_cell * (int(self.source.shape[2]) + n_output)
            if self.at(d.projection) is not None:
                total += n_cell * n_output
        return int(self.source.shape[0] * self.source.shape[1]) * total

    def parameters(self) -> int:
        positions = [p for d in (FORWARD, BACKWARD) for p in self._positions(d)]
        present = (self.at(p) for p in positions)
        return sum(tensor.size for tensor in present if tensor is not None)


REGISTRATIONS.append(
    OperatorRecord(
        BIDIRECTIONAL_KEY, parse_bidirectional_lstm, AirBidirectionalLstmOptions, BidirectionalLstmOperator
    )
)
