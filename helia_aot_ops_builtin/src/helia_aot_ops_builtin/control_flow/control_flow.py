"""IF and WHILE: operators that run other subgraphs of the model, as regions of the schedule.

Load merges the subgraphs these operators name into the one AIR model as regions whose operators
follow their owner in the schedule (``helia_aot.pipeline.regions_load``); the planner widens
lifetimes around them (``helia_aot.memory.liveness``). What is left here is the run: the owner
copies its operands into a region's input tensors, calls ``<prefix>_run_range`` for the region's
operators, and copies the region's outputs back, as LiteRT's IF and WHILE kernels copy between
subgraphs. WHILE keeps its loop-carried values in its own output tensors: they start as copies of
its inputs and take the body's outputs after each iteration; the condition region reads them
before every iteration and the loop ends when its bool output is false.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

from helia_aot.air import (
    AirControlFlowOptions,
    AirModel,
    AirOperator,
    AirRegion,
    AirTensor,
    AirTensorType,
    TensorId,
    region_layout,
)
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.parsing import node_options, operator_from_node
from helia_aot_ops_builtin.data_movement.movers import ANY_DTYPE

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirIfOptions(AirControlFlowOptions):
    """IF's regions: ``subgraphs`` = (then, else) subgraph indices of the model file."""


@dataclass(slots=True)
class AirWhileOptions(AirControlFlowOptions):
    """WHILE's regions: ``subgraphs`` = (cond, body); they repeat, so ``LOOPS`` is set."""

    LOOPS: ClassVar[bool] = True


def parse_if(
    op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel
) -> AirOperator:
    """Parse one LiteRT IF node: the then and else subgraph indices become its regions at Load."""
    del model, air_model
    raw = cast("litert.IfOptionsT | None", node_options(subgraph, op_id))
    if raw is None:
        raise ValueError("IF carries no IfOptions naming its then and else subgraphs")
    options = AirIfOptions(subgraphs=(int(raw.thenSubgraphIndex), int(raw.elseSubgraphIndex)))
    return operator_from_node(op_id, subgraph, "IF", options)


def parse_while(
    op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel
) -> AirOperator:
    """Parse one LiteRT WHILE node: the cond and body subgraph indices become its regions at Load."""
    del model, air_model
    raw = cast("litert.WhileOptionsT | None", node_options(subgraph, op_id))
    if raw is None:
        raise ValueError("WHILE carries no WhileOptions naming its cond and body subgraphs")
    options = AirWhileOptions(subgraphs=(int(raw.condSubgraphIndex), int(raw.bodySubgraphIndex)))
    return operator_from_node(op_id, subgraph, "WHILE", options)


@dataclass(frozen=True, slots=True)
class _Copy:
    dst: str
    src: str
    nbytes: int


_STATIC_SHAPES = (
    "Every region input and output must have the static shape and element type of the operator "
    "value it is copied from or to (shapes that change from one run or iteration to the next are "
    "not supported)."
)
_ONE_BOOL = "The condition is a bool tensor of one element."


_NO_VALUES: dict[str, Any] = dict.fromkeys(
    ("branches", "start", "cond_range", "cond_in", "body_range", "body_in", "body_out")
) | {"status_base": KERNEL_STATUS_BASE}
"""Every name the shared template reads (it renders both kinds), each operator filling its own."""


class _ControlFlowOperator(BuiltinOperator):
    """What IF and WHILE share: region lookup, shape checks and the copies between tensors."""

    SUPPORTED_DTYPES = ANY_DTYPE
    KERNELS = ("copy",)
    TEMPLATE = "control_flow.c.mako"
    REGION_NAMES: tuple[str, ...] = ()

    def regions(self) -> list[AirRegion]:
        options = self.op.options
        assert isinstance(options, AirControlFlowOptions)
        return [self.model.regions[name] for name in options.regions]

    def tensors(self, ids: Sequence[str]) -> list[AirTensor]:
        return [self.model.tensors[TensorId(t)] for t in ids]

    def pair_problems(self, what: str, ours: list[AirTensor], theirs: list[AirTensor]) -> list[str]:
        """``ours`` (the operator's values) against ``theirs`` (a region's), position by position."""
        if len(ours) != len(theirs):
            return [f"{what}: the operator has {len(ours)} values but the region {len(theirs)}"]
        problems = []
        for position, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
                problems.append(
                    f"{what} {position} is {a.dtype}{list(a.shape)} outside but {b.dtype}{list(b.shape)} "
                    "in the region (dynamic shapes are not supported)"
                )
        return problems

    @staticmethod
    def condition_problems(tensor: AirTensor, what: str) -> list[str]:
        if tensor.dtype is not AirTensorType.BOOL or tensor.size != 1:
            return [f"{what} is {tensor.dtype}{list(tensor.shape)}, not a bool tensor of one element"]
        return []

    def region_problems(self) -> list[str]:
        regions = self.regions()
        if len(regions) != len(self.REGION_NAMES):
            return [f"{self.op.op_type} needs {len(self.REGION_NAMES)} regions, not {len(regions)}"]
        return []

    def range_of(self, region: AirRegion) -> tuple[int, int]:
        return region_layout(self.model).regions[region.name]

    def used_inputs(self, region: AirRegion) -> set[str]:
        """Region inputs some region operator reads or the region returns: the ones worth copying."""
        first, end = self.range_of(region)
        used = {t for op in self.model.operators[first:end] for t in op.input_ids if t}
        return used | set(region.outputs)

    def copies(self, dst: Sequence[str], src: Sequence[str], keep: set[str] | None = None) -> list[_Copy]:
        """One copy per position, skipping destinations not in ``keep`` (when given)."""
        result = []
        for d, s in zip(dst, src, strict=True):
            if keep is not None and d not in keep:
                continue
            target = self.model.tensors[TensorId(d)]
            source = self.model.tensors[TensorId(s)]
            result.append(
                _Copy(
                    f"ctx->tensor_ptrs[{self.tensor_enum(target)}]",
                    f"ctx->tensor_ptrs[{self.tensor_enum(source)}]",
                    target.nbytes,
                )
            )
        return result

    def kernel_calls(self) -> dict[str, str]:
        return {"copy": "hk_copy_bytes"}


class IfOperator(_ControlFlowOperator):
    """IF: runs the then region when the bool condition is true, else the else region."""

    TYPE = "IF"
    REGION_NAMES = ("then", "else")
    RESTRICTIONS = (
        _ONE_BOOL,
        "The then and else subgraphs take the operator's inputs after the condition and return its outputs.",
        _STATIC_SHAPES,
    )

    def check(self) -> Iterable[str]:
        problems = self.region_problems()
        if problems:
            return problems
        problems = self.condition_problems(self.input_tensors[0], "the condition (input 0)")
        operands = self.tensors(self.op.input_ids[1:])
        for name, region in zip(self.REGION_NAMES, self.regions(), strict=True):
            problems += self.pair_problems(f"{name} input", operands, self.tensors(region.inputs))
            problems += self.pair_problems(
                f"{name} output", self.output_tensors, self.tensors(region.outputs)
            )
        return problems

    def compute_values(self) -> dict[str, Any]:
        branches = []
        for region in self.regions():
            first, end = self.range_of(region)
            branches.append(
                {
                    "first": first,
                    "end": end,
                    "copy_in": self.copies(region.inputs, self.op.input_ids[1:], self.used_inputs(region)),
                    "copy_out": self.copies(self.op.output_ids, region.outputs),
                }
            )
        return {
            **_NO_VALUES,
            "kind": "IF",
            "cond": f"ctx->tensor_ptrs[{self.tensor_enum(self.input_tensors[0])}]",
            "branches": branches,
        }


class WhileOperator(_ControlFlowOperator):
    """WHILE: runs the body region as long as the cond region returns true."""

    TYPE = "WHILE"
    REGION_NAMES = ("cond", "body")
    RESTRICTIONS = (
        "The cond subgraph takes the loop values and returns one bool; the body takes the loop "
        "values and returns their next values.",
        _STATIC_SHAPES,
    )

    def check(self) -> Iterable[str]:
        problems = self.region_problems()
        if problems:
            return problems
        cond, body = self.regions()
        values = self.input_tensors
        problems = self.pair_problems("loop value", self.output_tensors, values)
        problems += self.pair_problems("cond input", values, self.tensors(cond.inputs))
        problems += self.pair_problems("body input", values, self.tensors(body.inputs))
        problems += self.pair_problems("body output", values, self.tensors(body.outputs))
        if len(cond.outputs) != 1:
            problems.append(f"the cond subgraph returns {len(cond.outputs)} values, not one bool")
        else:
            problems += self.condition_problems(self.model.tensors[cond.outputs[0]], "the cond output")
        return problems

    def compute_values(self) -> dict[str, Any]:
        cond, body = self.regions()
        state = self.op.output_ids
        return {
            **_NO_VALUES,
            "kind": "WHILE",
            "start": self.copies(state, self.op.input_ids),
            "cond_range": self.range_of(cond),
            "cond_in": self.copies(cond.inputs, state, self.used_inputs(cond)),
            "cond": f"ctx->tensor_ptrs[{self.tensor_enum(self.model.tensors[cond.outputs[0]])}]",
            "body_range": self.range_of(body),
            "body_in": self.copies(body.inputs, state, self.used_inputs(body)),
            "body_out": self.copies(state, body.outputs),
        }


REGISTRATIONS = [
    OperatorRecord("IF", parse_if, AirIfOptions, IfOperator),
    OperatorRecord("WHILE", parse_while, AirWhileOptions, WhileOperator),
]
