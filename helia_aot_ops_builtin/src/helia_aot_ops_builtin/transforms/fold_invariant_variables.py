"""FOLD_INVARIANT_VARIABLES: resource variables whose value never changes become constants.

Exporters often keep fixed tensors (normalisation statistics, thresholds) in resource variables;
each then costs persistent RAM, a copy per READ_VARIABLE and an init copy, for a value that is the
same on every run. A variable is invariant when

- no ASSIGN_VARIABLE writes it (assignment ``none``), or
- every ASSIGN_VARIABLE writes back the variable's own value re-clamped by a chain of MAXIMUM /
  MINIMUM operators with constant bounds (assignment ``clip``), and that clamp leaves the initial
  value unchanged, so every run reads exactly the initial value.

Each READ_VARIABLE output of such a variable becomes a constant holding the initial value (the
constant arena stores identical bytes once), the READ and ASSIGN operators and the clamp chain are
removed, and the variable leaves the persistent arena. A variable read into a model output, or
used by any other operator (recurrent state), is left alone. The report lists each folded
variable under ``folded_variables``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirTensorKind, TensorId
from helia_aot.transforms import AirTransform, NoOptions

READ_VARIABLE = "READ_VARIABLE"
ASSIGN_VARIABLE = "ASSIGN_VARIABLE"
"""The operator types the transform looks for (the keys control_flow/variables.py registers; named here so
the transform, which runs on every conversion, does not import that operator module)."""

_CLAMPS = {"MAXIMUM": np.maximum, "MINIMUM": np.minimum}

FOLDED_METADATA_KEY = "folded_variables"
"""``AirModel.metadata`` key the report's ``folded_variables`` is read from."""


def _initial(model: AirModel, tid: TensorId) -> np.ndarray:
    tensor = model.tensors[tid]
    if tensor.data is not None:
        return np.asarray(tensor.data, dtype=tensor.dtype.numpy).reshape(tensor.shape)
    return np.zeros(tensor.shape, dtype=tensor.dtype.numpy)


def _same_encoding(a: Any, b: Any) -> bool:
    """Same element type and quantization: a raw MAXIMUM/MINIMUM then compares real values."""
    if a.dtype != b.dtype:
        return False
    qa, qb = a.quantization, b.quantization
    if qa is None or qb is None:
        return qa is None and qb is None
    return np.array_equal(qa.scale, qb.scale) and np.array_equal(qa.zero_point, qb.zero_point)


class FoldInvariantVariables(AirTransform):
    """Fold never-written (or only re-clamped) resource variables into constants."""

    NAME: ClassVar[str] = "FOLD_INVARIANT_VARIABLES"
    OPTIONS: ClassVar[type | None] = NoOptions
    ORDER: ClassVar[int] = 20

    def apply(self, model: AirModel, context: Any) -> AirModel | None:
        del context
        producer = {t: op for op in model.operators for t in op.output_ids}
        users: dict[TensorId, list[AirOperator]] = {}
        for op in model.operators:
            for t in op.input_ids:
                if t:
                    users.setdefault(t, []).append(op)
        folded: list[dict[str, Any]] = []
        removed: set[int] = set()
        for tid, tensor in list(model.tensors.items()):
            if tensor.kind is not AirTensorKind.PERSISTENT:
                continue
            ops = users.get(tid, [])
            reads = [op for op in ops if op.op_type == READ_VARIABLE]
            assigns = [op for op in ops if op.op_type == ASSIGN_VARIABLE and op.input_ids[0] == tid]
            if not reads or len(reads) + len(assigns) != len(ops):
                continue  # unread, or state some other operator uses
            read_outputs = {op.output_ids[0] for op in reads}
            if read_outputs & set(model.outputs):
                continue
            initial = _initial(model, tid)
            chains = [
                self._clamp_chain(model, op.input_ids[1], read_outputs, producer, users) for op in assigns
            ]
            if any(chain is None for chain in chains):
                continue
            if not all(self._keeps(model, initial, chain) for chain in chains if chain is not None):
                continue
            for read in reads:
                out = model.tensors[read.output_ids[0]]
                out.kind = AirTensorKind.CONSTANT
                out.data = initial.copy()
            doomed = reads + assigns + [op for chain in chains if chain for op in chain]
            removed.update(id(op) for op in doomed)
            del model.tensors[tid]
            folded.append(
                {
                    "variable": tensor.source_name or tensor.name,
                    "constants": sorted(model.tensors[t].name for t in read_outputs),
                    "nbytes": tensor.nbytes,
                    "assignment": "clip" if assigns else "none",
                    "reads": len(reads),
                    "assigns": len(assigns),
                }
            )
        self.rewrote = bool(folded)  # tells the Transform stage whether to verify
        if not folded:
            return None
        model.operators = [op for op in model.operators if id(op) not in removed]
        live = {t for op in model.operators for t in [*op.input_ids, *op.output_ids]} | set(model.inputs)
        live |= set(model.outputs)
        for op in model.operators:
            live.update(op.named_tensors.values())
        for doomed_id in [
            t for t, x in model.tensors.items() if t not in live and x.kind is AirTensorKind.SCRATCH
        ]:
            del model.tensors[doomed_id]
        model.metadata.setdefault(FOLDED_METADATA_KEY, []).extend(folded)
        return model

    @staticmethod
    def _clamp_chain(
        model: AirModel,
        value: TensorId,
        read_outputs: set[TensorId],
        producer: dict[TensorId, AirOperator],
        users: dict[TensorId, list[AirOperator]],
    ) -> list[AirOperator] | None:
        """The MAXIMUM/MINIMUM operators from a READ of the variable to ``value`` (outermost
        first), each with one constant bound and no other user; None when ``value`` is anything else."""
        chain: list[AirOperator] = []
        current = value
        while current not in read_outputs:
            op = producer.get(current)
            if op is None or op.op_type not in _CLAMPS or len(op.input_ids) != 2:
                return None
            if len(users.get(current, [])) != 1:
                return None  # the clamped value is used elsewhere: keep it computed
            kinds = [model.tensors[t].kind for t in op.input_ids]
            if kinds.count(AirTensorKind.CONSTANT) != 1:
                return None
            other = op.input_ids[0] if kinds[1] is AirTensorKind.CONSTANT else op.input_ids[1]
            if not all(_same_encoding(model.tensors[t], model.tensors[current]) for t in op.input_ids):
                return None
            chain.append(op)
            current = other
        return chain

    @staticmethod
    def _keeps(model: AirModel, initial: np.ndarray, chain: list[AirOperator]) -> bool:
        """Whether clamping ``initial`` through ``chain`` (innermost last) gives it back unchanged."""
        value = initial
        for op in reversed(chain):
            bound = next(
                model.tensors[t] for t in op.input_ids if model.tensors[t].kind is AirTensorKind.CONSTANT
            )
            value = _CLAMPS[op.op_type](value, np.asarray(bound.data)).astype(initial.dtype)
        return value.shape == initial.shape and np.array_equal(value, initial)


__all__ = ["FOLDED_METADATA_KEY", "FoldInvariantVariables"]
