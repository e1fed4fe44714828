"""The float32 twin of a float16 LiteRT model: the reference for float16 modules.

LiteRT's reference interpreter has no float16 kernels, so a float16 model's golden outputs come
from the same graph with every float16 activation and weight widened to float32 (exactly: each
float16 value is a float32 value). Float16 constants that only feed a DEQUANTIZE (the "float16
weights" pattern the reference runs itself) stay float16. The module's float16 results are then
compared with the twin's within the bound docs/float16.md states.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import pack_model


def _dequantize_inputs(model: Any) -> set[tuple[int, int]]:
    """Constant (subgraph, tensor) pairs a DEQUANTIZE reads: left float16 for the reference."""
    codes = [max(int(c.builtinCode), int(c.deprecatedBuiltinCode)) for c in model.operatorCodes or []]
    kept: set[tuple[int, int]] = set()
    for s, subgraph in enumerate(model.subgraphs or []):
        for op in subgraph.operators or []:
            if codes[op.opcodeIndex] == litert.BuiltinOperator.DEQUANTIZE:
                inputs = [int(t) for t in (op.inputs if op.inputs is not None else []) if t >= 0]
                kept.update((s, t) for t in inputs if _has_data(model, subgraph.tensors[t]))
    return kept


def has_float16_activations(model_bytes: bytes) -> bool:
    """Whether any float16 tensor of the model is computed at run time (not constant data).

    Read through the flatbuffer accessors, without unpacking buffers: every model the self-test
    converts passes here, and most have no float16 tensor at all.
    """
    model = litert.Model.GetRootAs(model_bytes, 0)
    for s in range(model.SubgraphsLength()):
        subgraph = model.Subgraphs(s)
        for t in range(subgraph.TensorsLength()):
            tensor = subgraph.Tensors(t)
            if tensor.Type() != litert.TensorType.FLOAT16:
                continue
            index = tensor.Buffer()
            buffer = model.Buffers(index) if 0 < index < model.BuffersLength() else None
            if buffer is None or (buffer.DataLength() == 0 and int(buffer.Size() or 0) == 0):
                return True
    return False


def _has_data(model: Any, tensor: Any) -> bool:
    buffers = model.buffers or []
    if not 0 < tensor.buffer < len(buffers):
        return False
    data = buffers[tensor.buffer].data
    return data is not None and len(data) > 0


def float32_twin(model_bytes: bytes) -> bytes:
    """``model_bytes`` with float16 tensors (and their constant data) widened to float32."""
    model = litert.ModelT.InitFromPackedBuf(bytearray(model_bytes), 0)
    kept = _dequantize_inputs(model)
    widened: set[int] = set()
    for s, subgraph in enumerate(model.subgraphs or []):
        for t, tensor in enumerate(subgraph.tensors or []):
            if tensor.type != litert.TensorType.FLOAT16 or (s, t) in kept:
                continue
            tensor.type = litert.TensorType.FLOAT32
            if _has_data(model, tensor) and tensor.buffer not in widened:
                buffer = model.buffers[tensor.buffer]
                half = np.frombuffer(bytes(bytearray(buffer.data)), dtype="<f2")
                buffer.data = list(half.astype("<f4").tobytes())
                widened.add(tensor.buffer)
    _identity_conversions(model)
    return pack_model(model)


def _identity_conversions(model: Any) -> None:
    """QUANTIZE float32 -> float16 and DEQUANTIZE of a computed float16 tensor become float32 ->
    float32 in the twin, which the reference has no kernel for: they turn into the RESHAPE to the
    same shape, the identity the reference does run."""
    codes = model.operatorCodes or []
    wanted = (litert.BuiltinOperator.QUANTIZE, litert.BuiltinOperator.DEQUANTIZE)
    reshape_index = None
    for subgraph in model.subgraphs or []:
        tensors = subgraph.tensors or []
        for op in subgraph.operators or []:
            code = codes[op.opcodeIndex]
            if max(int(code.builtinCode), int(code.deprecatedBuiltinCode)) not in wanted:
                continue
            src, dst = tensors[op.inputs[0]], tensors[op.outputs[0]]
            if not src.type == dst.type == litert.TensorType.FLOAT32:
                continue
            if reshape_index is None:
                reshape_index = _operator_code(model, litert.BuiltinOperator.RESHAPE)
            options = litert.ReshapeOptionsT()
            options.newShape = [int(d) for d in (dst.shape if dst.shape is not None else [])]
            op.opcodeIndex = reshape_index
            op.inputs = [op.inputs[0]]
            op.builtinOptionsType = litert.BuiltinOptions.ReshapeOptions
            op.builtinOptions = options


def _operator_code(model: Any, builtin: int) -> int:
    """The index of ``builtin``'s operator code, appended when the model has none."""
    for i, code in enumerate(model.operatorCodes or []):
        if max(int(code.builtinCode), int(code.deprecatedBuiltinCode)) == builtin and not code.customCode:
            return i
    code = litert.OperatorCodeT()
    code.builtinCode = builtin
    code.deprecatedBuiltinCode = min(builtin, 127)
    code.version = 1
    model.operatorCodes = [*(model.operatorCodes or []), code]
    return len(model.operatorCodes) - 1
