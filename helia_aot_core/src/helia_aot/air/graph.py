"""AIR graph nodes: tensors, operators, and the model that owns them.

Tensors and operators are mutable records with identity equality (two operators with the same
fields are still two nodes); the model keeps tensors in insertion order and operators in execution
order, so every traversal is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from helia_aot.air.names import c_identifier
from helia_aot.air.types import AirQuantization, AirTensorKind, AirTensorType, OpId, TensorId


@dataclass(slots=True)
class AirOperatorOptions:
    """Marker base of the typed options an operator carries.

    Each operator type registers its own subclass in ``RegistryContext.air_options``; a parser fills
    it from the model file and the operator class reads it through ``AotOperator.typed_options``.
    """


@dataclass(slots=True)
class AirControlFlowOptions(AirOperatorOptions):
    """Options of an operator that runs other subgraphs (IF, WHILE): the regions it owns.

    The parser fills ``subgraphs`` with the model file's subgraph indices, in the order the
    operator runs them (IF: then, else; WHILE: cond, body). Load then gives each one a region of
    the model (``regions``, same order): the subgraph's operators, placed right after this
    operator in the schedule. ``LOOPS`` says the regions repeat, so the planner keeps every tensor
    they touch alive across the whole loop.
    """

    LOOPS: ClassVar[bool] = False
    subgraphs: tuple[int, ...] = ()
    regions: tuple[str, ...] = ()


@dataclass(slots=True, eq=False)
class AirRegion:
    """One subgraph instance that a control-flow operator runs: its operators carry its ``name``.

    ``inputs`` and ``outputs`` are the subgraph's own tensors, which the owning operator fills
    and reads by copying (they are distinct from the owner's tensors). ``owner`` is the id of
    that operator; ``loops`` is True for regions that may run more than once per model run.
    """

    name: str
    subgraph: int
    owner: OpId
    inputs: list[TensorId]
    outputs: list[TensorId]
    loops: bool = False


@dataclass(slots=True, eq=False)
class AirTensor:
    """One tensor of the graph.

    ``name`` is a C identifier fragment, unique in the model, that the generated code uses for the
    tensor's enumerator (``<prefix>_<name>``); ``source_name`` keeps the name from the model file
    for reports (never emitted unsanitized). ``data`` holds constant contents as a numpy array of
    ``dtype`` and ``shape``.
    """

    id: TensorId
    name: str
    shape: tuple[int, ...]
    dtype: AirTensorType
    kind: AirTensorKind = AirTensorKind.SCRATCH
    data: np.ndarray | None = None
    quantization: AirQuantization | None = None
    source_name: str = ""
    alignment: int | None = None

    @property
    def size(self) -> int:
        """Number of elements (the product in C: every stage asks it of every tensor)."""
        return math.prod(map(int, self.shape))

    @property
    def nbytes(self) -> int:
        """Bytes of the tensor's contents."""
        return self.size * self.dtype.itemsize

    @property
    def is_constant(self) -> bool:
        return self.kind is AirTensorKind.CONSTANT

    @property
    def ctype(self) -> str:
        return self.dtype.ctype

    def required_data(self) -> np.ndarray:
        """``data``, for a tensor its operator's check required to be constant: a ValueError
        naming the tensor when it holds none (the check let it through)."""
        if self.data is None:
            raise ValueError(f"tensor {self.id!r} ({self.source_name or self.name}) holds no constant data")
        return self.data

    def required_quantization(self) -> AirQuantization:
        """``quantization``, for a tensor its operator's check required to be quantized: a
        ValueError naming the tensor when it has none (the check let it through)."""
        if self.quantization is None:
            raise ValueError(f"tensor {self.id!r} ({self.source_name or self.name}) is not quantized")
        return self.quantization

    def scale(self, index: int = 0) -> float:
        """The quantization scale at ``index`` (0.0 when the tensor is not quantized)."""
        return float(self.quantization.scale[index]) if self.quantization is not None else 0.0

    def zero_point(self, index: int = 0) -> int:
        """The quantization zero point at ``index`` (0 when the tensor is not quantized)."""
        return int(self.quantization.zero_point[index]) if self.quantization is not None else 0


@dataclass(slots=True, eq=False)
class AirOperator:
    """One operator of the graph, in execution order inside its model.

    ``op_type`` is the canonical key shared with the parser and the operator class.
    ``named_tensors`` maps operator-local names (``multiplier``, ``scratch``) to tensors an
    operator added for itself. ``source_indices`` are the operator's indices in the model file's
    subgraph; a fused activation adds none, an operator a transform creates has none.
    ``shares_input_storage`` says the output may live in input 0's bytes (a byte mover the
    PRUNE_IDENTITY_OPS transform made an alias): the planner then gives both one buffer when
    it can, and the run's copy finds equal pointers and moves nothing.
    ``region`` names the :class:`AirRegion` the operator belongs to ("" for the main subgraph).
    """

    id: OpId
    op_type: str
    input_ids: list[TensorId]
    output_ids: list[TensorId]
    named_tensors: dict[str, TensorId] = field(default_factory=dict)
    options: AirOperatorOptions = field(default_factory=AirOperatorOptions)
    source_indices: tuple[int, ...] = ()
    shares_input_storage: bool = False
    region: str = ""

    def __post_init__(self) -> None:
        self.op_type = str(self.op_type.value if hasattr(self.op_type, "value") else self.op_type)
        self.id = OpId(str(self.id))
        self.input_ids = [TensorId(str(t)) for t in self.input_ids]
        self.output_ids = [TensorId(str(t)) for t in self.output_ids]
        if not self.source_indices and self.id.isdigit():
            self.source_indices = (int(self.id),)


@dataclass(slots=True, eq=False)
class AirModel:
    """A graph: tensors by id, operators in execution order, and the model's inputs and outputs.

    ``regions`` holds the subgraphs control-flow operators run (empty for a one-subgraph model);
    their operators sit in ``operators`` right after their owner (see ``helia_aot.air.regions``).
    """

    name: str = "model"
    tensors: dict[TensorId, AirTensor] = field(default_factory=dict)
    operators: list[AirOperator] = field(default_factory=list)
    inputs: list[TensorId] = field(default_factory=list)
    outputs: list[TensorId] = field(default_factory=list)
    description: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    regions: dict[str, AirRegion] = field(default_factory=dict)
    _names_seen: set[str] = field(default_factory=set, init=False, repr=False, compare=False)
    """Every name a tensor of this model has had (a superset of today's names), so that
    unique_tensor_name costs O(1) instead of a scan of every tensor (quadratic over a model)."""
    _names_source: tuple[int, int] = field(default=(0, -1), init=False, repr=False, compare=False)

    def add_tensor(self, tensor: AirTensor, *, replace: bool = False) -> AirTensor:
        """Add ``tensor``; an id already present is an error unless ``replace``."""
        if tensor.id in self.tensors and not replace:
            raise ValueError(f"tensor id {tensor.id!r} already exists in the model")
        in_step = self._names_source == (id(self.tensors), len(self.tensors))
        self.tensors[tensor.id] = tensor
        self._names_seen.add(tensor.name)
        if in_step:  # else the next unique_tensor_name rebuilds the set
            self._names_source = (id(self.tensors), len(self.tensors))
        return tensor

    def tensor(self, tensor_id: str) -> AirTensor:
        """The tensor with ``tensor_id``, or KeyError naming it."""
        try:
            return self.tensors[TensorId(str(tensor_id))]
        except KeyError:
            raise KeyError(f"the model has no tensor {tensor_id!r}") from None

    def operator(self, op_id: str) -> AirOperator:
        for op in self.operators:
            if op.id == op_id:
                return op
        raise KeyError(f"the model has no operator {op_id!r}")

    def producers(self) -> dict[TensorId, AirOperator]:
        """Map each produced tensor to the operator that writes it."""
        return {t: op for op in self.operators for t in op.output_ids}

    def consumers(self) -> dict[TensorId, list[AirOperator]]:
        """Map each tensor to the operators that read it, in execution order."""
        result: dict[TensorId, list[AirOperator]] = {}
        for op in self.operators:
            for t in op.input_ids:
                if t:
                    result.setdefault(t, []).append(op)
        return result

    def tensors_of(self, op: AirOperator) -> Iterator[AirTensor]:
        """Every tensor ``op`` touches: inputs, outputs, then its named tensors."""
        seen: set[str] = set()
        for t in [*op.input_ids, *op.output_ids, *op.named_tensors.values()]:
            if t and t not in seen:
                seen.add(t)
                yield self.tensors[t]

    def unique_tensor_name(self, base: str) -> str:
        """A fresh tensor name ``t<ordinal>_<sanitized base>``.

        The ``t<ordinal>_`` head keeps every tensor enumerator (``<prefix>_<name>``) apart from the
        module's own symbols (``<prefix>_model_init``, ``<prefix>_num_tensors``, operator
        functions), whatever the model calls its tensors, and makes names unique.
        """
        stem = c_identifier(base, max_length=40, fallback="tensor")
        ordinal = len(self.tensors)
        name = f"t{ordinal}_{stem}"
        while self._name_taken(name):
            ordinal += 1
            name = f"t{ordinal}_{stem}"
        self._names_seen.add(name)
        return name

    def _name_taken(self, name: str) -> bool:
        """Whether a tensor of the model is called ``name`` now.

        ``_names_seen`` only grows, so a name missing from it is free; a name in it is checked
        against the tensors (it may belong to one since removed or renamed). The set is rebuilt
        when the tensors changed other than through ``add_tensor`` (a new dict, or a count
        ``add_tensor`` did not leave).
        """
        source = (id(self.tensors), len(self.tensors))
        if source != self._names_source:
            self._names_seen = {t.name for t in self.tensors.values()} | self._names_seen
            self._names_source = source
        if name not in self._names_seen:
            return False
        return any(t.name == name for t in self.tensors.values())
