"""REMOVE_DENSIFY: a DENSIFY of a constant disappears; its readers read the constant.

Load stores every sparse constant dense (``helia_aot.converters.litert.sparsity``), so the
DENSIFY the LiteRT converter writes after one would only copy it. Its readers are rewired to the
constant and the operator and its output tensor are dropped: no copy at run time, no second
scratch buffer of the weight's size. A DENSIFY whose output is a model output stays (the output
must be written).
"""

from __future__ import annotations

from helia_aot.air import AirModel
from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform

from helia_aot_ops_builtin.transforms.graph_edits import is_constant


class RemoveDensify(AirTransform):
    """Drops every DENSIFY of a constant that is not a model output, rewiring its readers."""

    NAME = "REMOVE_DENSIFY"
    OPTIONS = None
    ORDER = 15

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
        removed = [
            op
            for op in model.operators
            if op.op_type == "DENSIFY"
            and len(op.input_ids) == 1
            and len(op.output_ids) == 1
            and is_constant(model, op.input_ids[0])
            and op.output_ids[0] not in model.outputs
        ]
        self.rewrote = bool(removed)  # tells the Transform stage whether to verify
        if not removed:
            return model
        replaced = {op.output_ids[0]: op.input_ids[0] for op in removed}
        model.operators = [op for op in model.operators if not any(op is r for r in removed)]
        for op in model.operators:
            op.input_ids = [replaced.get(t, t) if t else t for t in op.input_ids]
        for tensor_id in replaced:
            del model.tensors[tensor_id]
        return model
