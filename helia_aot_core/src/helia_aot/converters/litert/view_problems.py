"""Every unsupported tensor and operator of a subgraph, collected into one error.

A model a user tries is often refused for several reasons at once (a RESOURCE tensor and an INT4
weight, two stored-sparse tensors). Stopping at the first would make ``helia-aot check`` and
``convert`` report one at a time, and a check would stop where the conversion stops instead of
saying everything that is wrong. The view builder therefore reads every tensor, collects each
:class:`~helia_aot.errors.UnsupportedModelError` here with the operators that read or write the
tensor, and raises them together; the error's ``details`` list one mapping per problem (the tensor
index, the operators by file index and key, the reason) so ``check`` puts each on its operator's
row. A malformed file (ModelLoadError) is not collected: nothing after it can be trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.source_indices import source_index, subgraph_is_marked
from helia_aot.errors import HeliaAotError, UnsupportedModelError

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(frozen=True, slots=True)
class ViewProblem:
    """One reason the subgraph cannot convert: ``tensor`` (its index, or None for an operator's
    own problem), ``operators`` ((file index, key) of the operators it concerns), ``reason``
    (the error's message) and ``hint``."""

    tensor: int | None
    operators: tuple[tuple[int, str], ...]
    reason: str
    hint: str | None

    def line(self) -> str:
        """The problem as one line, naming the operators that use the tensor."""
        if self.tensor is None or not self.operators:
            return self.reason
        used = ", ".join(f"#{index} {key}" for index, key in self.operators)
        return f"{self.reason} (used by {used})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tensor": self.tensor,
            "operators": [{"index": index, "key": key} for index, key in self.operators],
            "reason": self.reason,
        }


class ViewProblems:
    """The problems found so far in one subgraph of ``model`` (falsy while there are none)."""

    def __init__(self, model: litert.ModelT, subgraph: litert.SubGraphT) -> None:
        self.model = model
        self.subgraph = subgraph
        self.found: list[ViewProblem] = []

    def __bool__(self) -> bool:
        return bool(self.found)

    def _operator(self, position: int) -> tuple[int, str]:
        node = sa.operators_of(self.subgraph)[position]
        index = source_index(node) if subgraph_is_marked(self.subgraph) else position
        try:
            key = sa.op_key(self.model, node)
        except HeliaAotError:  # a malformed code: the operator check names it later
            key = "?"
        return (position if index is None else index), key

    def add_tensor(self, index: int, error: UnsupportedModelError) -> None:
        """Tensor ``index`` is unsupported: recorded with every operator that reads or writes it."""
        users = [
            self._operator(position)
            for position, node in enumerate(sa.operators_of(self.subgraph))
            if index in (*sa.inputs_of(node), *sa.outputs_of(node), *sa.intermediates_of(node))
        ]
        self.found.append(ViewProblem(index, tuple(users), error.message, error.hint))

    def add_operator(self, position: int, error: UnsupportedModelError) -> None:
        """The operator at ``position`` is unsupported as wired (its tensors' sizes, say)."""
        self.found.append(ViewProblem(None, (self._operator(position),), error.message, error.hint))

    def error(self) -> UnsupportedModelError:
        """One error naming every problem found; a single problem keeps its own hint."""
        lines = [problem.line() for problem in self.found]
        hints: list[str] = []
        for problem in self.found:
            if problem.hint and problem.hint not in hints:
                hints.append(problem.hint)
        if len(lines) == 1:
            message = lines[0]
        else:
            message = f"{len(lines)} problems stop the conversion:\n  " + "\n  ".join(lines)
        return UnsupportedModelError(
            message,
            hint="; ".join(hints) or None,
            details=[problem.to_dict() for problem in self.found],
        )


__all__ = ["ViewProblem", "ViewProblems"]
