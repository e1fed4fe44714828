"""SCHEDULE_CONSTANT_DEQUANTIZE: a DEQUANTIZE of a constant runs just before its first reader.

Float16-weight models dequantize each weight tensor to float32, and the converter writes those
DEQUANTIZE operators first, so every float32 weight would be live (in scratch) from the start of
the run. Its input being constant, a DEQUANTIZE can run anywhere before its first reader; moving
it there shortens the float32 copy's lifetime, and the planner can reuse the bytes before it.
The values are the same: only the schedule changes.
"""

from __future__ import annotations

from helia_aot.air import AirModel, AirOperator, AirOpType
from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform

from helia_aot_ops_builtin.transforms.graph_edits import is_constant


class ScheduleConstantDequantize(AirTransform):
    """Moves every DEQUANTIZE whose input is a constant to just before its first reader."""

    NAME = "SCHEDULE_CONSTANT_DEQUANTIZE"
    OPTIONS = None
    ORDER = 60

    @staticmethod
    def movable(model: AirModel, op: AirOperator) -> bool:
        return (
            op.op_type == AirOpType.DEQUANTIZE.value
            and len(op.input_ids) == 1
            and len(op.output_ids) == 1
            and is_constant(model, op.input_ids[0])
            and op.output_ids[0] not in model.outputs
        )

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
        moving = [op for op in model.operators if self.movable(model, op)]
        self.rewrote = bool(moving)  # tells the Transform stage whether to verify
        if not moving:
            return model
        rest = [op for op in model.operators if not any(op is m for m in moving)]
        before: dict[int, list[AirOperator]] = {}
        for op in moving:
            readers = [i for i, other in enumerate(rest) if op.output_ids[0] in other.input_ids]
            # No reader: keep it where the model had it, ahead of what followed it.
            at = readers[0] if readers else self._next_kept(model, op, rest)
            before.setdefault(at, []).append(op)
        schedule: list[AirOperator] = []
        for index, op in enumerate(rest):
            schedule.extend(before.pop(index, []))
            schedule.append(op)
        for ops in before.values():
            schedule.extend(ops)
        model.operators = schedule
        return model

    @staticmethod
    def _next_kept(model: AirModel, op: AirOperator, rest: list[AirOperator]) -> int:
        """Index in ``rest`` of the first kept operator after ``op`` in the model (len at the end)."""
        position = next(i for i, other in enumerate(model.operators) if other is op)
        for other in model.operators[position + 1 :]:
            for index, kept in enumerate(rest):
                if kept is other:
                    return index
        return len(rest)
