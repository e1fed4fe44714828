"""ParamsCallOperator: operators whose run is one kernel call with a ``static const`` params struct.

The binary, (de)quantize and reduction operators all compute their kernel's parameters once at
conversion time; the struct goes into the operator's ``.c`` file as a designated initializer
(so each value sits next to its field name) and the run function passes it with the data
pointers. ``params_call.c.mako`` renders that.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from helia_aot.air import AirTensor
from helia_aot.codegen import c_bool, c_float

from helia_aot_ops_builtin.base import BuiltinOperator
from helia_aot_ops_builtin.movers import KERNEL_STATUS_BASE


def c_value(value: Any) -> str:
    """One initializer value: mappings become designated structs, sequences brace lists."""
    if isinstance(value, Mapping):
        return designated_init(value)
    if isinstance(value, (list, tuple)):
        return "{" + ", ".join(c_value(v) for v in value) + "}"
    if isinstance(value, (bool, np.bool_)):
        return c_bool(bool(value))
    if isinstance(value, (float, np.floating)):
        return c_float(float(value))
    if isinstance(value, str):
        return value
    return str(int(value))


def designated_init(fields: Mapping[str, Any], *, multiline: bool = False) -> str:
    """``{.a = 1, .b = {.c = 2.0f}}`` for ``{"a": 1, "b": {"c": 2.0}}`` (floats as float32);
    ``multiline`` puts each top-level field on its own line."""
    items = [f".{name} = {c_value(value)}" for name, value in fields.items()]
    if multiline:
        return "{\n" + "".join(f"    {item},\n" for item in items) + "}"
    return "{" + ", ".join(items) + "}"


@dataclass(slots=True)
class KernelCall:
    """What the run function does: ``hk_<function>(&params, *data_args)``."""

    function: str
    data_args: Sequence[str]
    params_type: str | None = None
    params: Mapping[str, Any] | None = None
    leading_args: Sequence[str] = field(default_factory=tuple)
    """Arguments before the data pointers when there is no params struct (an element count)."""


def label(tensor: AirTensor) -> str:
    return repr(tensor.source_name or tensor.name)


def quantization_problems(tensors: Iterable[AirTensor], *, symmetric_int16: bool = True) -> list[str]:
    """Per-tensor quantization with a positive scale on every int8/int16 tensor, and zero points
    of 0 on int16 ones (LiteRT's int16 kernels assume symmetric quantization)."""
    problems = []
    for tensor in tensors:
        if tensor.dtype.numpy not in (np.dtype(np.int8), np.dtype(np.int16)):
            continue
        q = tensor.quantization
        if q is None:
            problems.append(f"{label(tensor)} is {tensor.dtype} without quantization parameters")
        elif q.per_channel:
            problems.append(f"{label(tensor)} is quantized per channel; only per-tensor is supported")
        elif not float(q.scale[0]) > 0.0:
            problems.append(f"{label(tensor)} has a non-positive scale {float(q.scale[0])}")
        elif symmetric_int16 and tensor.dtype.numpy == np.dtype(np.int16) and int(q.zero_point[0]) != 0:
            problems.append(f"{label(tensor)} is int16 with zero point {int(q.zero_point[0])}, not 0")
    return problems


class ParamsCallOperator(BuiltinOperator):
    """A built-in operator rendered as one kernel call with conversion-time parameters."""

    TEMPLATE = "params_call.c.mako"

    def kernel(self) -> KernelCall:
        """The call to emit; only called after ``check`` passed."""
        raise NotImplementedError

    def kernel_calls(self) -> dict[str, str]:
        return {self.kernel_families()[0]: "hk_" + self.kernel().function}

    def compute_values(self) -> dict[str, Any]:
        call = self.kernel()
        args = list(call.leading_args)
        if call.params is not None:
            args.insert(0, f"&{self.stem}_params")
        args += list(call.data_args)
        return {
            "function": call.function,
            "params_type": call.params_type,
            "params": None if call.params is None else designated_init(call.params, multiline=True),
            "params_comment": f"{self.op.op_type} parameters, as LiteRT's Prepare computes them",
            "args": args,
            "status_base": KERNEL_STATUS_BASE,
        }
