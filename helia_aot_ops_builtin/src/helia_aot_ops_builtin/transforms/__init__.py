"""The built-in graph transforms, registered through the pack's ``helia_aot_register`` hook.

``TRANSFORMS`` is the one list of them: each transform module adds its class on its own line.
They run in their classes' ``ORDER`` (the product's order), not in this list's order.
"""

from __future__ import annotations

from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform

from helia_aot_ops_builtin.transforms.depthwise_to_conv import DepthwiseToConv
from helia_aot_ops_builtin.transforms.fold_invariant_variables import FoldInvariantVariables
from helia_aot_ops_builtin.transforms.onnx_requantization import OnnxRequantization
from helia_aot_ops_builtin.transforms.prune_identity_ops import PruneIdentityOps
from helia_aot_ops_builtin.transforms.remove_densify import RemoveDensify
from helia_aot_ops_builtin.transforms.schedule_constant_dequantize import ScheduleConstantDequantize
from helia_aot_ops_builtin.transforms.static_shapes import FoldStaticShapeExpressions
from helia_aot_ops_builtin.transforms.transpose_reverse_conv import TransposeReverseConv
from helia_aot_ops_builtin.transforms.uint8_as_int8 import Uint8AsInt8

TRANSFORMS: list[type[AirTransform]] = [
    FoldStaticShapeExpressions,
    FoldInvariantVariables,
    DepthwiseToConv,
    PruneIdentityOps,
    TransposeReverseConv,
    ScheduleConstantDequantize,
    RemoveDensify,
    Uint8AsInt8,
    OnnxRequantization,
]


def register_transforms(context: RegistryContext) -> None:
    """Register every built-in transform under its ``NAME``."""
    for transform in TRANSFORMS:
        context.transforms.register(transform.NAME, transform)


__all__ = ["TRANSFORMS", "register_transforms"]
