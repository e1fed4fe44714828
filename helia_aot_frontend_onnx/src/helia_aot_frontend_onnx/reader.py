"""The ONNX reader: an ONNX file in, a verified AIR model out (the ``onnx`` loader's reader).

Every node is converted in file order (:mod:`helia_aot_frontend_onnx.nodes`); a node that cannot
be is recorded and the walk goes on, so one UnsupportedModelError names every such node with its
reason, and ``helia-aot check`` gives each node its verdict. Activations after a convolution,
dense or elementwise operator (Relu, Clip to [0, 6] or [-1, 1]) are fused into it as LiteRT
stores them. A 4-D input or output is laid out NHWC in the module; the model records it
(``metadata["source_layouts"]``), so golden data in the file's NCHW layout is transposed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import AirModel, AirTensorType, TensorId, c_comment, c_identifier, verify_model
from helia_aot.converters.loaders import LoadCheck, ModelReader
from helia_aot.errors import HeliaAotError, ModelLoadError, PluginError, UnsupportedModelError

from helia_aot_frontend_onnx.builder import (
    NHWC,
    PASS_THROUGH,
    Builder,
    Unsupported,
    Value,
    identity,
    permuted,
)
from helia_aot_frontend_onnx.graph import OnnxGraph, prepare_graph, read_onnx
from helia_aot_frontend_onnx.nodes import CONVERTERS
from helia_aot_frontend_onnx.pad_fold import fold_pads

if TYPE_CHECKING:
    from helia_aot.config.args import ConvertArgs
    from helia_aot.registry.context import RegistryContext

INTEGER_NODES = frozenset(
    {
        "Conv",
        "Gemm",
        "MatMul",
        "Add",
        "Sub",
        "Mul",
        "AveragePool",
        "GlobalAveragePool",
        "ReduceMean",
        "Concat",
        "Softmax",
        "BatchNormalization",
        "Sigmoid",
        "LeakyRelu",
        "QuantizeLinear",
        "DequantizeLinear",
        *PASS_THROUGH,
    }
)
"""The nodes of a QDQ model that run as int8 operators when their computed inputs are int8 and
(for arithmetic) a QuantizeLinear reads their output (a Softmax becomes onnxruntime's
QLinearSoftmax, ONNX_SOFTMAX; a Sigmoid or LeakyRelu its QLinearSigmoid or QLinearLeakyRelu
table, ONNX_LOGISTIC or ONNX_LEAKY_RELU; a linear Resize ONNX_RESIZE_BILINEAR on int8; a
BatchNormalization ONNX_BATCH_NORMALIZATION, its float32 steps per int8 element); any other node
runs on float between a DEQUANTIZE and a QUANTIZE (ConvTranspose, the other activations, Div),
which keeps it equal to onnxruntime's float evaluation of it."""

_REQUANTIZING = frozenset(INTEGER_NODES - PASS_THROUGH - {"QuantizeLinear", "DequantizeLinear", "Concat"})

Failure = tuple[int, str, str]
"""(node index, op_type, reason)."""

_FUSES = frozenset(
    {"CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "FULLY_CONNECTED", "ADD", "SUB", "MUL", "DIV"}
)
_ACTIVATIONS = {"RELU": "RELU", "RELU6": "RELU6", "RELU_N1_TO_1": "RELU_N1_TO_1"}


def _node_label(node: Any) -> str:
    return f"{node.op_type} {node.name!r}" if node.name else str(node.op_type)


def build_model(graph: OnnxGraph, context: RegistryContext, name: str) -> tuple[AirModel, list[Failure]]:
    """The AIR model of ``graph`` and the nodes it could not convert."""
    b = Builder(graph, context, name)
    failures: list[Failure] = []
    layouts: dict[str, list[list[int] | None]] = {"inputs": [], "outputs": []}
    for input_name in graph.inputs:
        shape = graph.shapes.get(input_name)
        if shape is None:
            raise UnsupportedModelError(f"ONNX input {input_name!r} has no static shape")
        dtype = graph.dtypes.get(input_name)
        if dtype is not None and dtype.name != "float32" and not (graph.qdq and dtype.name == "int8"):
            failures.append(
                (-1, "(model input)", f"input {input_name!r} is {dtype}; only float32 is supported")
            )
        perm = NHWC if len(shape) == 4 else identity(len(shape))
        tid = b.output(input_name, perm)
        if graph.qdq and dtype is not None and dtype.name == "int8":
            _int8_input(b, input_name, tid)
        b.air.inputs.append(tid)
        layouts["inputs"].append(list(perm) if perm != identity(len(shape)) else None)
    for index, node in graph.nodes:
        b.node_index = index
        b.node = node
        converter = CONVERTERS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if converter is None:
            where = f"domain {node.domain!r} " if node.domain not in ("", "ai.onnx") else ""
            reason = f"{where}operator not supported by the ONNX front end"
            failures.append((index, node.op_type, reason))
            _stand_in(b, node)
            continue
        try:
            if graph.qdq and not _runs_on_integers(b, node):
                _run_on_float(b, node, converter)
            else:
                converter(b, node)
        except (Unsupported, UnsupportedModelError, ValueError) as exc:
            reason = f"{node.name!r}: {exc}" if node.name else str(exc)
            failures.append((index, node.op_type, reason))
            _stand_in(b, node)
        except HeliaAotError:
            raise
        except Exception as exc:  # a converter bug: name the node
            raise PluginError(
                f"the ONNX front end failed on node #{index} {_node_label(node)}: "
                f"{type(exc).__name__}: {exc}",
                hint="report it to helia-aot-frontend-onnx with the model",
            ) from exc
    b.node_index = -1
    b.node = None
    if failures:
        return b.air, failures
    for output in graph.outputs:
        key = graph.resolve(output)
        if key in graph.constants:
            failures.append((-1, "(model output)", f"output {output!r} is a constant"))
            continue
        value = b.values[key]
        assert value.tensor is not None
        rank = len(value.shape)
        perm = value.perm
        if rank != 4 and perm != identity(rank):  # only NCHW <-> NHWC is recorded: lay others back
            perm = identity(rank)
        tid = b.input(key, perm)
        dtype = graph.dtypes.get(output)
        if b.air.tensors[tid].dtype == AirTensorType.INT8 and (dtype is None or dtype.name == "float32"):
            float_out = b.tensor(b.air.tensors[tid].shape, name=output)
            b.op("DEQUANTIZE", [tid], [float_out])
            tid = float_out
        if tid in b.air.inputs or tid in b.air.outputs:
            failures.append((-1, "(model output)", f"output {output!r} is a model input or another output"))
            continue
        b.air.outputs.append(tid)
        layouts["outputs"].append(list(perm) if perm != identity(rank) else None)
    fold_pads(b.air)  # a zero Pad before a convolution becomes the convolution's own pads
    if graph.qdq:
        b.air.metadata["requantization"] = "onnx"
    else:
        _fuse_activations(b.air)
    if any(layouts["inputs"]) or any(layouts["outputs"]):
        b.air.metadata["source_layouts"] = layouts
    return b.air, failures


def _int8_input(b: Builder, name: str, tid: Any) -> None:
    """An int8 model input takes the quantization of the DequantizeLinear that reads it."""
    readers = [n for n in b.readers(name) if n.op_type == "DequantizeLinear"]
    if not readers:
        raise UnsupportedModelError(f"int8 input {name!r} is not read by a DequantizeLinear")
    scale = b.required_const(readers[0].input[1], "DequantizeLinear's scale")
    zero = b.const_value(readers[0].input[2]) if len(readers[0].input) > 2 else None
    tensor = b.air.tensors[tid]
    tensor.dtype = AirTensorType.INT8
    tensor.quantization = b.quantization(
        np.asarray(scale).reshape(-1), np.asarray(zero if zero is not None else 0).reshape(-1)
    )


def _runs_on_integers(b: Builder, node: Any) -> bool:
    """Whether a node of a QDQ model becomes an int8 operator (see :data:`INTEGER_NODES`)."""
    if node.op_type not in INTEGER_NODES:
        return False
    if node.op_type in ("QuantizeLinear", "DequantizeLinear"):
        return True
    # A linear Resize interpolates: int8 only into the parameters of the QuantizeLinear after it.
    linear = node.op_type == "Resize" and any(a.name == "mode" and a.s == b"linear" for a in node.attribute)
    if node.op_type == "Gemm" and any(
        float(a.f) != 1.0 for a in node.attribute if a.name in ("alpha", "beta")
    ):  # a scaled Gemm has no integer form: float
        return False
    for position, name in enumerate(node.input):
        if not name:
            continue
        key = b.graph.resolve(name)
        if key in b.graph.constants:
            numeric = (
                position == 0
                or node.op_type in ("Add", "Sub", "Mul", "Concat")
                or (position in (1, 2) and node.op_type in ("Conv", "ConvTranspose", "Gemm", "MatMul"))
            )
            if numeric and key not in b.graph.quantized:
                return False
            continue
        value = b.values.get(key)
        if value is None or value.tensor is None or b.air.tensors[value.tensor].dtype != AirTensorType.INT8:
            return False
    if node.op_type in _REQUANTIZING or linear:
        return len(node.output) == 1 and b.output_quantization(node.output[0]) is not None
    return True


def _run_on_float(b: Builder, node: Any, converter: Any) -> None:
    """``node`` on float: DEQUANTIZE each int8 input, convert the node in float mode, QUANTIZE
    each output that a QuantizeLinear reads (with its parameters)."""
    saved: dict[str, Value] = {}
    for name in node.input:
        key = b.graph.resolve(name)
        value = b.values.get(key)
        if not name or key in saved or value is None or value.tensor is None:
            continue
        tensor = b.air.tensors[value.tensor]
        if tensor.dtype != AirTensorType.INT8:
            continue
        dequantized = b.tensor(tensor.shape, name=f"{key}_dequantized")
        b.op("DEQUANTIZE", [value.tensor], [dequantized])
        saved[key] = value
        b.values[key] = Value(value.shape, dequantized, value.perm, columns=value.columns)
    b.float_mode = True
    try:
        converter(b, node)
    finally:
        b.float_mode = False
        b.values.update(saved)
    for name in node.output:
        quant = b.output_quantization(name) if name else None
        value = b.values.get(name)
        if quant is None or value is None or value.tensor is None:
            continue
        out = b.tensor(permuted(value.shape, value.perm), AirTensorType.INT8, name=name, quantization=quant)
        b.op("QUANTIZE", [value.tensor], [out])
        b.values[name] = Value(value.shape, out, value.perm)


def _stand_in(b: Builder, node: Any) -> None:
    """Outputs for a node that did not convert, so the nodes after it are judged on their own."""
    for name in node.output:
        if name and name not in b.values and name in b.graph.shapes:
            b.output(name, identity(len(b.graph.shapes[name])))


def _fuse_activations(air: AirModel) -> None:
    """RELU / RELU6 / RELU_N1_TO_1 after an operator that has an ``activation`` option set to
    NONE, on a tensor nothing else reads: the activation becomes the operator's."""
    readers: dict[TensorId, int] = {}
    for op in air.operators:
        for tid in op.input_ids:
            readers[tid] = readers.get(tid, 0) + 1
    producers = {op.output_ids[0]: op for op in air.operators if op.output_ids}
    kept = []
    for op in air.operators:
        activation = _ACTIVATIONS.get(op.op_type)
        source = op.input_ids[0] if op.input_ids else None
        producer = producers.get(source) if source is not None else None
        if (
            activation is not None
            and producer is not None
            and producer.op_type in _FUSES
            and getattr(producer.options, "activation", None) == "NONE"
            and readers.get(source, 0) == 1  # type: ignore[arg-type]
            and source not in air.outputs
        ):
            producer.options.activation = activation  # type: ignore[attr-defined]
            producer.output_ids[0] = op.output_ids[0]
            producer.source_indices = tuple(dict.fromkeys((*producer.source_indices, *op.source_indices)))
            producers[op.output_ids[0]] = producer
            del air.tensors[source]  # type: ignore[arg-type]
            continue
        kept.append(op)
    air.operators = kept


def unsupported_nodes_error(path: Path, failures: list[Failure]) -> UnsupportedModelError:
    """One error naming every node that cannot be converted."""
    lines = [f"#{index} {op_type}: {reason}" for index, op_type, reason in failures]
    noun = "node" if len(failures) == 1 else "nodes"
    return UnsupportedModelError(
        f"{len(failures)} ONNX {noun} of {path.name} cannot be converted:\n  " + "\n  ".join(lines),
        hint="see docs/onnx.md for the operators the ONNX front end reads; `helia-aot check` gives "
        "each node's verdict",
        details=[{"index": i, "key": k, "reason": r} for i, k, r in failures],
    )


class OnnxReader(ModelReader):
    """Reads ONNX models (opset 13 and later, float32 or QDQ int8) into AIR."""

    RUNTIME = "onnxruntime"
    """Who computes expected outputs (``reference``), as ``helia-aot validate`` names it."""

    def _build(
        self, path: Path, config: ConvertArgs, context: RegistryContext
    ) -> tuple[OnnxGraph, AirModel, list[Failure]]:
        model = read_onnx(path)
        graph = prepare_graph(model, config.model.input_shapes)
        air, failures = build_model(graph, context, c_identifier(path.stem, fallback="model"))
        air.description = c_comment(graph.doc)
        air.metadata.update(
            {
                "source_path": str(path),
                "source_format": "onnx",
                "source_description": graph.doc,
                "source_opset": graph.opset,
            }
        )
        return graph, air, failures

    def load(self, path: Path, config: ConvertArgs, context: RegistryContext) -> AirModel:
        _, air, failures = self._build(path, config, context)
        if failures:
            raise unsupported_nodes_error(path, failures)
        problems = verify_model(air)
        if problems:
            raise ModelLoadError(
                f"{path.name} does not form a valid graph: " + "; ".join(problems[:10]),
                hint="report it to helia-aot-frontend-onnx with the model",
                details=problems,
            )
        return air

    def reference(self, path: Path, model: AirModel, *, optimized: bool = False) -> Any:
        """onnxruntime's CPU session, fed and read in the module's layouts (needs onnxruntime)."""
        from helia_aot_frontend_onnx.reference import OnnxRuntimeReference

        return OnnxRuntimeReference(path, model, optimized=optimized)

    def check(self, path: Path, config: ConvertArgs, context: RegistryContext) -> LoadCheck:
        graph, air, failures = self._build(path, config, context)
        listed = [(index, str(node.op_type)) for index, node in enumerate(graph.all_nodes)]
        problems: dict[int, list[str]] = {}
        for index, _op_type, reason in failures:
            problems.setdefault(index, []).append(reason)
        if failures:
            return LoadCheck(listed, problems)
        return LoadCheck(listed, {}, self.load(path, config, context), complete=True)


__all__ = ["OnnxReader", "build_model", "unsupported_nodes_error"]
