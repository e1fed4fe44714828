"""The ``hk_binary_f16`` call two operator modules build: ADD/SUB/MUL/... (elementwise/binary.py) and DIV
(elementwise/binary_math.py, whose float32 and int32 forms run ``hk_math``).

Kept apart from both so neither imports the other: the float16 family folds NumPy broadcasting
into at most five loops (:mod:`helia_aot_ops_builtin.elementwise.broadcast_geometry`) like ``hk_binary``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from helia_aot.air import AirTensor

from helia_aot_ops_builtin.common.kernel_call import KernelCall
from helia_aot_ops_builtin.common.quantization import activation_range_float
from helia_aot_ops_builtin.elementwise.broadcast_geometry import broadcast_geometry


def geometry_params(lhs: AirTensor, rhs: AirTensor) -> dict[str, Any]:
    """The ``hk_binary`` / ``hk_binary_f16`` geometry struct of two broadcast inputs."""
    g = broadcast_geometry(lhs.shape, rhs.shape)
    return {
        "size": g.size,
        "broadcast": g.broadcast,
        "shape": g.shape,
        "strides1": g.strides1,
        "strides2": g.strides2,
    }


def binary_f16_call(
    function: str,
    lhs: AirTensor,
    rhs: AirTensor,
    target: AirTensor,
    activation: str,
    ptr: Callable[..., str],
) -> KernelCall:
    """One ``hk_<function>_f16`` call (float16 operands, the fused activation as a float clamp);
    ``ptr`` is the calling operator's pointer formatter."""
    lo, hi = activation_range_float(activation)
    return KernelCall(
        function=f"{function}_f16",
        params_type="binary_f16_params_t",
        params={"geometry": geometry_params(lhs, rhs), "float_min": lo, "float_max": hi},
        data_args=[ptr(lhs, const=True), ptr(rhs, const=True), ptr(target)],
    )
