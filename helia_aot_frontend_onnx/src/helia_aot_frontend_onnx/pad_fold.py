"""Fold a zero ``Pad`` into the convolution that alone reads it.

An exporter writes ``nn.ZeroPad2d`` (or ``F.pad``) before a convolution as a ``Pad`` node; the
front end converts it into a PAD operator, which copies the whole input into a larger tensor
before the convolution reads it. Padding with zeros and then convolving is exactly the
convolution with those pads added to its own, so the PAD goes and the convolution reads the
unpadded tensor with the sum as its explicit pads: no copy, no padded tensor in the arena. In a
QDQ model the PAD pads int8 with its zero point, and the integer convolution pads with the input
zero point, which is the same one (the PAD keeps its input's quantization): still exact.

Folded only where that is exact and the kernels take the result: a PAD of zeros on the two
spatial axes of a 4-D NHWC tensor, whose output a CONV_2D or DEPTHWISE_CONV_2D alone reads as
its input (not a model output); a float depthwise convolution only where the sum is SAME or
VALID (LiteRT's depthwise kernels take no other pads). Poolings are never folded (a max pool
pads with the lowest value, an average pool leaves pads out of its count: zeros are neither),
and any other PAD stays a PAD.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirTensorType, TensorId

_CONVOLUTIONS = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D"})


def _spatial_pads(model: AirModel, pad: AirOperator) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of a PAD that pads only H and W of a 4-D tensor, else None."""
    if pad.op_type != "PAD" or len(pad.input_ids) != 2:
        return None
    source, paddings = (model.tensors[t] for t in pad.input_ids)
    target = model.tensors[pad.output_ids[0]]
    if len(source.shape) != 4 or paddings.data is None:
        return None
    rows = np.asarray(paddings.data).reshape(-1, 2)
    if rows.shape != (4, 2) or rows[0].any() or rows[3].any() or (rows < 0).any():
        return None
    if source.dtype != target.dtype or source.quantization != target.quantization:
        return None
    return int(rows[1, 0]), int(rows[1, 1]), int(rows[2, 0]), int(rows[2, 1])


def _conv_pads(options: Any, size: tuple[int, int], kernel: tuple[int, int]) -> tuple[int, int, int, int]:
    """A convolution's (top, bottom, left, right) pads on an input of ``size``."""
    if options.explicit_padding is not None:
        return tuple(options.explicit_padding)
    if options.padding == "VALID":
        return (0, 0, 0, 0)
    pads = []
    for extent, k, stride, dilation in (
        (size[0], kernel[0], options.stride_h, options.dilation_h),
        (size[1], kernel[1], options.stride_w, options.dilation_w),
    ):
        out = -(-extent // stride)
        total = max((out - 1) * stride + (k - 1) * dilation + 1 - extent, 0)
        pads.append((total // 2, total - total // 2))
    return (pads[0][0], pads[0][1], pads[1][0], pads[1][1])


def _same_or_valid(
    options: Any, pads: tuple[int, ...], size: tuple[int, int], kernel: tuple[int, int]
) -> str | None:
    """``VALID`` or ``SAME`` where ``pads`` on an input of ``size`` is exactly that, else None."""
    if not any(pads):
        return "VALID"
    probe = type(options)(**{**_fields(options), "padding": "SAME", "explicit_padding": None})
    return "SAME" if _conv_pads(probe, size, kernel) == tuple(pads) else None


def _fields(options: Any) -> dict[str, Any]:
    return {name: getattr(options, name) for name in options.__dataclass_fields__}


def fold_pads(model: AirModel) -> int:
    """Fold every PAD :mod:`this module <helia_aot_frontend_onnx.pad_fold>` allows into its
    convolution; the number folded."""
    readers: dict[TensorId, list[AirOperator]] = {}
    for op in model.operators:
        for tid in op.input_ids:
            readers.setdefault(tid, []).append(op)
    outputs = set(model.outputs)
    folded: set[int] = set()
    for index, pad in enumerate(model.operators):
        extra = _spatial_pads(model, pad)
        padded = pad.output_ids[0] if pad.output_ids else None
        if extra is None or padded is None or padded in outputs:
            continue
        users = readers.get(padded, [])
        if len(users) != 1 or users[0].op_type not in _CONVOLUTIONS or users[0].input_ids[0] != padded:
            continue
        conv = users[0]
        if padded in conv.input_ids[1:]:
            continue
        source = model.tensors[pad.input_ids[0]]
        weights = model.tensors[conv.input_ids[1]]
        kernel = (int(weights.shape[1]), int(weights.shape[2]))
        padded_size = tuple(int(d) for d in model.tensors[padded].shape[1:3])
        size = (int(source.shape[1]), int(source.shape[2]))
        own = _conv_pads(conv.options, padded_size, kernel)  # type: ignore[arg-type]
        total = (own[0] + extra[0], own[1] + extra[1], own[2] + extra[2], own[3] + extra[3])
        options: Any = conv.options
        if conv.op_type == "DEPTHWISE_CONV_2D" and source.dtype != AirTensorType.INT8:
            padding = _same_or_valid(options, total, size, kernel)
            if padding is None:
                continue
            options.padding, options.explicit_padding = padding, None
        else:
            options.padding, options.explicit_padding = "SAME", total
        conv.input_ids[0] = pad.input_ids[0]
        conv.source_indices = tuple(dict.fromkeys((*pad.source_indices, *conv.source_indices)))
        folded.add(index)
    if not folded:
        return 0
    removed = [model.operators[i] for i in sorted(folded)]
    model.operators = [op for i, op in enumerate(model.operators) if i not in folded]
    used = {t for op in model.operators for t in (*op.input_ids, *op.output_ids)}
    for pad in removed:
        for tid in (pad.output_ids[0], pad.input_ids[1]):
            if tid not in used and tid not in outputs and tid in model.tensors:
                del model.tensors[tid]
    return len(folded)


__all__ = ["fold_pads"]
