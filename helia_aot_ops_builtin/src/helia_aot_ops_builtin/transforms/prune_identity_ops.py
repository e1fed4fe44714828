"""PRUNE_IDENTITY_OPS: RESHAPE, SQUEEZE and EXPAND_DIMS become aliases of their input.

Those operators keep the element order, so their output can be their input's bytes. The transform
marks them ``shares_input_storage``; the planner then gives output and input one buffer whenever
it can (both scratch, not two model I/O tensors), and the run's copy finds equal pointers and
moves nothing. It is the only way an alias happens: with the transform off every copy runs.
"""

from __future__ import annotations

from helia_aot.air import AirModel, AirOpType
from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform

IDENTITY_TYPES = frozenset({AirOpType.RESHAPE.value, AirOpType.SQUEEZE.value, AirOpType.EXPAND_DIMS.value})
"""The operator types whose output is their input's bytes under another shape."""


class PruneIdentityOps(AirTransform):
    """Marks every RESHAPE, SQUEEZE and EXPAND_DIMS to share its input's storage."""

    NAME = "PRUNE_IDENTITY_OPS"
    OPTIONS = None
    ORDER = 40

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
        self.rewrote = False  # tells the Transform stage whether to verify (see helia_aot.pipeline.transform)
        for op in model.operators:
            if op.op_type in IDENTITY_TYPES and op.input_ids and op.output_ids:
                op.shares_input_storage = True
                self.rewrote = True
        return model
