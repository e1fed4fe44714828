"""ETHOS_U: the custom operator a Vela-compiled model runs on an Arm Ethos-U NPU, refused at Resolve.

Vela replaces the layers it offloads with one ``ETHOS_U`` custom operator whose inputs are an NPU
command stream and its weights; only an NPU executes it, so no C kernel can stand in. The operator
parses (so the refusal is a typed Resolve error naming the operator rather than a missing-parser
one), and its check names the platform an NPU command stream needs (``atomiq110``, the registered
Apollo part with an NPU) and the fix: convert the model as it was before Vela compiled it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import BuiltinOperator
from helia_aot_ops_builtin.common.parsing import simple_parser

NPU_PLATFORM = "atomiq110"
NEEDS_NPU = (
    f"ETHOS_U runs a Vela-compiled NPU command stream and needs an NPU platform ({NPU_PLATFORM}) and "
    "an NPU driver; this operator pack generates CPU code only, so convert the model before Vela "
    "compiles it."
)

parse_ethos_u = simple_parser("ETHOS_U")


class EthosUOperator(BuiltinOperator):
    """ETHOS_U custom operator: always refused, naming the NPU platform it needs."""

    TYPE = "ETHOS_U"
    SUPPORTED_DTYPES = None
    RESTRICTIONS = (NEEDS_NPU,)

    def check(self) -> Iterable[str]:
        name = self.platform.name
        if self.platform.has_npu:
            where = f"{name} has an NPU, but this operator pack does not drive it"
        else:
            where = f"{name} has no NPU"
        return [
            f"ETHOS_U is an Ethos-U NPU command stream (a Vela-compiled model) and needs the NPU "
            f"platform {NPU_PLATFORM}; {where}. Convert the model as exported before Vela "
            "compilation, so its layers run as CPU kernels"
        ]

    def emit(self, save_path: Path) -> None:
        """Never reached: ``check`` refuses every ETHOS_U operator at Resolve."""
        raise NotImplementedError(NEEDS_NPU)


REGISTRATIONS = [OperatorRecord("ETHOS_U", parse_ethos_u, None, EthosUOperator)]
