"""``test.state_feedback`` checked against the model: each pair must be a carry the test can make.

The self-test copies output ``o`` into input ``i`` between iterations (a recurrent state), so
both must exist and hold the same number of elements of the same type; the configuration alone
cannot know that, so the converter checks it once the model is loaded.
"""

from __future__ import annotations

from collections.abc import Iterable

from helia_aot.air import AirModel
from helia_aot.errors import InvalidConfigError


def check_state_feedback(model: AirModel, pairs: Iterable[tuple[int, int]]) -> None:
    """Raise InvalidConfigError (exit code 2) for a pair the model cannot carry."""
    for output, input_ in pairs:
        if output >= len(model.outputs) or input_ >= len(model.inputs):
            raise InvalidConfigError(
                f"test.state_feedback pair ({output}, {input_}) names a tensor the model does not "
                f"have: it has {len(model.outputs)} output(s) and {len(model.inputs)} input(s)",
                hint="pairs are (output_index, input_index), counted from 0",
            )
        source = model.tensors[model.outputs[output]]
        target = model.tensors[model.inputs[input_]]
        if tuple(source.shape) != tuple(target.shape) or source.dtype != target.dtype:
            raise InvalidConfigError(
                f"test.state_feedback pair ({output}, {input_}) is not carry compatible: output "
                f"{output} is {source.dtype} {list(source.shape)}, input {input_} is "
                f"{target.dtype} {list(target.shape)}",
                hint="pair an output with an input of the same shape and type",
            )


__all__ = ["check_state_feedback"]
