"""The operator-class plugin surface: AotOperator and its companions (provisional)."""

from helia_aot.aot.operators.attributes import OperatorAttributes
from helia_aot.aot.operators.base import AotOperator, CtxBufUsage, KernelVariant, OpCapability
from helia_aot.aot.operators.defaults import register_default_aot_operators

__all__ = [
    "AotOperator",
    "CtxBufUsage",
    "KernelVariant",
    "OpCapability",
    "OperatorAttributes",
    "register_default_aot_operators",
]
