"""AotOperator: the lowering of one AIR operator to C.

One instance wraps one AirOperator. ``resolve()`` validates it against the declared contract
(SUPPORTED_DTYPES, ``check()``) and precomputes what the C needs (derived constants, scratch);
the planner then places every tensor; ``emit()`` writes the operator's ``.h``/``.c`` pair. The
upper-case class attributes are the declarative contract the pipeline reads.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
from pydantic import ValidationError

from helia_aot.air import (
    AirModel,
    AirOperator,
    AirOperatorOptions,
    AirOpType,
    AirTensor,
    AirTensorKind,
    AirTensorType,
    TensorId,
    c_identifier,
)
from helia_aot.aot.operators.attributes import OperatorAttributes
from helia_aot.errors import ConfigValueError, InvalidConfigError, UnsupportedModelError

if TYPE_CHECKING:  # annotations only: the stages are above the operators
    from helia_aot.pipeline.patch_plan import PatchStage
    from helia_aot.pipeline.plan_records import MemoryPlan
    from helia_aot.platforms.model import SocPlatform

_OptionsT = TypeVar("_OptionsT", bound=AirOperatorOptions)

SCRATCH_ISAS = frozenset({"mve", "dsp", "scalar"})
"""The instruction sets a module's kernels may be built for (the kernel library's fast paths):
a module converted once can be cross-built for any core, so a scratch-free variant is free only
when it is free on all of them."""


class OpCapability(enum.Flag):
    """Optimization contract an operator declares (interning, reordering, shared init)."""

    NONE = 0
    STATELESS = enum.auto()
    INTERNS_CONSTANTS = enum.auto()
    SHARED_KERNEL = enum.auto()
    DESCRIPTOR_DRIVEN = enum.auto()


class CtxBufUsage(str, enum.Enum):
    """Whether an operator's kernel reads a shared working buffer."""

    NO_CTX = "no_ctx"
    IGNORED = "ignored"
    REQUIRED = "required"
    CONDITIONAL = "conditional"


@dataclass(frozen=True)
class KernelVariant:
    """One kernel an operator can run, named by the knob value that selects it.

    ``scratch_bytes`` is the working buffer it asks the scratch arena for, ``const_bytes`` the
    derived constants it adds to the module (packed weights, folded bias), ``code_bytes`` an
    estimate of its code (0 when unknown; the measured table has the linked figures). A memory-
    aware choice compares these; the resolved knob picks one.
    """

    knob: str
    value: str
    scratch_bytes: int = 0
    const_bytes: int = 0
    code_bytes: int = 0


def _remembered(method: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``method`` answering from the operator's memo while it is on (see ``FIXED_AFTER_RESOLVE``).

    Keyed by the qualified name, so an override that calls ``super().method()`` keeps both answers
    apart (each class's body is run once and remembered under its own key).
    """
    key = method.__qualname__

    @functools.wraps(method)
    def remembered(self: Any) -> Any:
        memo = self._memo
        if memo is None:
            return method(self)
        if key in memo:
            return memo[key]
        value = memo[key] = method(self)
        return value

    remembered.__remembered__ = True  # type: ignore[attr-defined]
    return remembered


class AotOperator:
    """Base class for the AOT lowering of a single AIR operator (provisional API).

    Subclasses set ``TYPE`` and implement ``check``/``on_resolve``/``emit`` (operators rendered
    from Mako templates, the built-ins among them, derive from ``helia_aot.pack.TemplateOperator``).
    """

    TYPE: str = AirOpType.OPERATOR
    SUPPORTED_DTYPES: tuple[type, ...] | None = None
    """Element types accepted on the operator's non-constant inputs and outputs, or None."""
    WEIGHT_DTYPES: tuple[str, ...] = ()
    """Element types its constant weights may have beyond ``SUPPORTED_DTYPES`` (``"int4"``: packed
    two per byte), for the catalogue; ``check`` enforces them."""
    HYBRID_WEIGHT_DTYPES: tuple[str, ...] = ()
    """Constant weight types with which the operator also runs hybrid (float32 activations
    quantized at run time as LiteRT's dynamic-range kernels do), for the catalogue; ``check``
    enforces them."""
    RESTRICTIONS: tuple[str, ...] = ()
    """User-facing sentences describing the limits ``check`` enforces."""
    ATTRIBUTES: type[OperatorAttributes] = OperatorAttributes
    CAPABILITIES: OpCapability = OpCapability.NONE
    CTX_BUF_USAGE: CtxBufUsage | None = None
    MOVES_DATA_ONLY: bool = False
    """The lowering only moves or selects stored values, never rescales them."""
    ALIASES_INPUT: bool = False
    """Output 0 may share input 0's storage (RESHAPE and friends): when a transform marks the AIR
    operator ``shares_input_storage`` (PRUNE_IDENTITY_OPS), the planner gives both one buffer and
    the emitted run copies only when the pointers differ."""
    INPLACE_INPUTS: tuple[int, ...] = ()
    """Input positions whose storage output 0 may reuse when that input dies at this operator and
    is at least as large (elementwise operators that read each element before writing it)."""
    INPLACE_GROWS: bool = False
    """Output 0, written over input 0 (``INPLACE_INPUTS``), may be the larger: an in-place row loop
    that writes last row first runs on past the input's end (set by ``enable_inplace_rows``)."""
    ACCEPTS_EMPTY_TENSORS: frozenset[type] = frozenset()
    KNOB_VALUES: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """Per knob, the values this operator's kernels offer, preferred first (see ``knob_values``)."""
    KNOB_FAMILY: ClassVar[str | None] = None
    """The family name measured tables file this operator under (``measured.json``'s code bytes for
    the hints; a pack's own cycle table, such as the built-in pack's ``kernel_cycles.json``)."""
    DTYPE_PLATFORM_CAPABILITIES: ClassVar[Mapping[str, str]] = {}
    """Per element type (``"float16"``), the platform capability (``"fp16"``) the operator's kernels
    need to compute on non-constant tensors of that type. Resolve refuses the operator on a platform
    without it, before instantiating it, naming the registered platforms that have it; constant
    tensors are exempt (a constant float16 weight widened by DEQUANTIZE needs no FP16 arithmetic)."""
    _name_made: tuple[tuple[str, str], str] | None = None  # see ``name``
    FIXED_AFTER_RESOLVE: ClassVar[tuple[str, ...]] = ()
    """Names of argument-free methods whose answer depends only on the operator's tensors, options,
    knobs and goal, so is fixed once the knobs are resolved: each is asked dozens of times per
    operator by Resolve, Plan and Emit (a 1,000-layer model asked a convolution's kernel type 30,000
    times), so from the knobs' resolution on the first answer is remembered per operator. The
    memo is forgotten whenever the operator adds or drops a tensor of its own (``forget_fixed``
    for any other change). A subclass's list extends its parents'; an override of a listed method
    is remembered too. Never list a method that reads the plan (scratch kept, reused) or a flag
    toggled while rendering."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Every class's own list counts, and a shared base may list what only its subclasses define.
        names = {n for c in cls.__mro__ for n in c.__dict__.get("FIXED_AFTER_RESOLVE", ())}
        for name in sorted(names):
            own = cls.__dict__.get(name)
            if callable(own) and not getattr(own, "__remembered__", False):
                setattr(cls, name, _remembered(own))

    def __init__(
        self,
        op: AirOperator,
        model: AirModel,
        platform: SocPlatform,
        prefix: str = "aot",
        attributes: dict[str, Any] | None = None,
    ) -> None:
        self.op = op
        self.model = model
        self.platform = platform
        self.prefix = prefix
        self.requested_attribute_keys = frozenset(attributes or {})
        try:
            self.attributes = self.ATTRIBUTES(**(attributes or {}))
        except (ValidationError, TypeError) as exc:
            raise InvalidConfigError(
                f"operator {op.id} ({op.op_type}): attributes rejected: {exc}",
                hint="check the operators[] rules that reach this operator",
            ) from exc
        self.resolved_knobs: dict[str, str] = {}
        self.knob_choices: dict[str, Any] = {}
        self.optimization_goal = "balanced"
        """The conversion's ``optimization.goal`` (set with the knobs at Resolve): a kernel may
        shape its constants by it (goal ``size`` keeps the model's own)."""
        self.knob_resolver: Callable[[AotOperator], None] | None = None
        self.optional_scratch: dict[str, int] = {}
        """Scratch buffers (name -> bytes) a scratch-free variant of the kernel can do without;
        the planner drops those that would raise the arena above the tensors' peak."""
        self.dropped_scratch: dict[str, int] = {}
        """Optional scratch buffers the planner dropped: the kernel runs its scratch-free variant."""
        self.scratch_free_on: dict[str, frozenset[str]] = {}
        """Per optional buffer, the instruction sets (``SCRATCH_ISAS``) on which its scratch-free
        variant runs exactly the fast path's instructions: goal ``balanced`` drops a buffer only
        when that holds on every one, as a module converted once may be built for any core."""
        self.scratch_drop_reasons: dict[str, str] = {}
        """Why the planner dropped each buffer of ``dropped_scratch`` (the goal's rule), for the plan."""
        self.reusable_scratch: dict[str, int] = {}
        """Optional buffers (name -> input position) the kernel can instead place in this
        operator's own dead bytes (the output it has not written yet and that input's consumed
        part) at no instruction cost, when that input dies here: the planner checks that."""
        self.reused_scratch: set[str] = set()
        """Dropped buffers the kernel places in dead bytes (``reusable_scratch``) rather than
        running its scratch-free variant."""
        self._resolved = False
        self._memo: dict[str, Any] | None = None
        """Answers of ``FIXED_AFTER_RESOLVE`` methods; None (asking each time) until the knobs are set."""

    def forget_fixed(self) -> None:
        """Drop the remembered ``FIXED_AFTER_RESOLVE`` answers (after changing what they read)."""
        if self._memo:
            self._memo.clear()

    # -- identity ------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.op.id

    @property
    def name(self) -> str:
        """``<op type>_<id>`` as a C identifier fragment; files and symbols are ``<prefix>_<name>``.

        Kept with the type and id it was made from (every tensor an operator adds and every file
        and symbol it writes asks for it): made again only when either changes."""
        key = (self.op.op_type, self.op.id)
        made = self._name_made
        if made is None or made[0] != key:
            made = self._name_made = (key, c_identifier(f"{key[0]}_{key[1]}", max_length=64, fallback="op"))
        return made[1]

    @property
    def stem(self) -> str:
        return f"{self.prefix}_{self.name}"

    @property
    def has_init(self) -> bool:
        """Whether the operator emits ``<stem>_init``; False makes the model skip the call."""
        return True

    @property
    def code_in_itcm(self) -> bool:
        return self.attributes.code_placement == "ITCM" and self.platform.has_itcm

    # -- tensors -------------------------------------------------------------------------------
    @property
    def input_tensors(self) -> list[AirTensor]:
        """Inputs in position order; an absent optional input is skipped (see ``input_or_none``)."""
        return [self.model.tensors[t] for t in self.op.input_ids if t]

    def input_or_none(self, position: int) -> AirTensor | None:
        """The input at ``position`` keeping LiteRT positions (None when absent or optional)."""
        ids = self.op.input_ids
        return self.model.tensors[ids[position]] if position < len(ids) and ids[position] else None

    def required_input(self, position: int) -> AirTensor:
        """The input at ``position`` (LiteRT positions), for an input the operator's ``check``
        requires: a KeyError naming the operator if it is absent (``check`` let it through).
        Written out rather than through ``input_or_none``: operators ask it for their weights and
        sources many times per conversion (tests/core/test_conversion_scaling.py), and without
        ``len`` (a call each time): an index past the end is caught instead."""
        try:
            tensor_id = self.op.input_ids[position]
        except IndexError:
            tensor_id = TensorId("")
        if tensor_id:
            return self.model.tensors[tensor_id]
        raise KeyError(f"operator {self.op.id} ({self.op.op_type}) has no input at position {position}")

    @property
    def output_tensors(self) -> list[AirTensor]:
        return [self.model.tensors[t] for t in self.op.output_ids]

    @property
    def local_tensors(self) -> list[AirTensor]:
        return [self.model.tensors[t] for t in self.op.named_tensors.values()]

    def get_local_tensor(self, name: str) -> AirTensor:
        try:
            return self.model.tensors[self.op.named_tensors[name]]
        except KeyError:
            raise KeyError(f"operator {self.op.id} has no local tensor {name!r}") from None

    def tensor_enum(self, tensor: AirTensor) -> str:
        """The enumerator that indexes ``ctx->tensor_ptrs`` for ``tensor``."""
        return f"{self.prefix}_{tensor.name}"

    @staticmethod
    def tensor_zero_point(tensor: AirTensor, index: int = 0) -> int:
        return tensor.zero_point(index)

    def typed_options(self, options_type: type[_OptionsT]) -> _OptionsT:
        """``op.options`` checked against the class this operator expects."""
        if not isinstance(self.op.options, options_type):
            raise TypeError(
                f"operator {self.op.id} ({self.op.op_type}) carries {type(self.op.options).__name__}, "
                f"expected {options_type.__name__}: is the parser registered under the right key?"
            )
        return self.op.options

    # -- conversion-time additions -------------------------------------------------------------
    def _local_id(self, name: str) -> TensorId:
        return TensorId(f"op{self.op.id}_{c_identifier(name)}")

    def intern_constant_array(
        self,
        name: str,
        data: np.ndarray,
        *,
        role: AirTensorKind = AirTensorKind.CONSTANT,
        alignment: int | None = None,
    ) -> TensorId:
        """Add an operator-local array (multipliers, packed weights) as a model tensor.

        The tensor goes through planning like any other and is reached from C through
        ``ctx->tensor_ptrs``; calling again with the same name replaces it (idempotent).
        """
        data = np.ascontiguousarray(data)
        tid = self._local_id(name)
        existing = self.model.tensors.get(tid)
        tensor = AirTensor(
            id=tid,
            name=existing.name if existing else self.model.unique_tensor_name(f"{self.name}_{name}"),
            shape=tuple(int(d) for d in data.shape),
            dtype=AirTensorType.from_numpy(data.dtype),
            kind=role,
            data=data.copy() if role is AirTensorKind.CONSTANT else None,
            source_name=f"{self.op.op_type} {self.op.id} {name}",
            alignment=alignment,
        )
        self.model.add_tensor(tensor, replace=True)
        self.op.named_tensors[name] = tid
        self.forget_fixed()
        return tid

    def add_scratch(
        self,
        name: str,
        nbytes: int,
        *,
        alignment: int | None = None,
        optional: bool = False,
        free_on: Iterable[str] = (),
    ) -> TensorId:
        """Reserve ``nbytes`` of working memory live only while this operator runs.

        ``optional`` says the kernel has a variant that runs without it (same results, usually
        more instructions): the memory-aware choice at Plan may then drop it (``drop_scratch``)
        where the buffer would raise the arena above what the tensors alone need, as the goal
        allows. ``free_on`` names the instruction sets (``SCRATCH_ISAS``) on which that variant
        costs no instructions at all; goal ``balanced`` drops only buffers free on every one.
        """
        tid = self._local_id(name)
        existing = self.model.tensors.get(tid)
        tensor = AirTensor(
            id=tid,
            name=existing.name if existing else self.model.unique_tensor_name(f"{self.name}_{name}"),
            shape=(max(int(nbytes), 1),),
            dtype=AirTensorType.INT8,
            kind=AirTensorKind.SCRATCH,
            source_name=f"{self.op.op_type} {self.op.id} {name}",
            alignment=alignment,
        )
        self.model.add_tensor(tensor, replace=True)
        self.op.named_tensors[name] = tid
        self.forget_fixed()
        if optional:
            self.optional_scratch[name] = int(nbytes)
            self.scratch_free_on[name] = frozenset(free_on)
        return tid

    def has_scratch(self, name: str) -> bool:
        """Whether the scratch buffer ``name`` was reserved and not dropped by the planner."""
        return name in self.op.named_tensors and name not in self.dropped_scratch

    # -- goal size's hooks (pipeline/plan_choices.py): an operator that can do better overrides --
    def inplace_rows_bytes(self, block: int = 1) -> int | None:
        """Bytes of the ring of output rows this operator needs to write its output over its
        input, ``block`` rows per kernel call, or None when it cannot (the default)."""
        return None

    def enable_inplace_rows(self, block: int = 1) -> None:
        """Write the output over the input row by row (only called where ``inplace_rows_bytes``
        answered a size)."""
        raise ValueError(f"operator {self.op.id} cannot write its output in place")

    def join_patch_stage(self, stage: PatchStage, members: list[AotOperator]) -> None:
        """Run as one of ``members``, the operators of a patch stage (only called on operators
        whose ``patch_geometry`` answered; see :mod:`helia_aot.pipeline.patch_plan`)."""
        raise ValueError(f"operator {self.op.id} cannot run in a patch stage")

    def leave_patch_stage(self) -> None:
        """Undo ``join_patch_stage``; nothing to undo for an operator that never joins one."""

    def drop_scratch(self, name: str, reason: str = "") -> None:
        """Give up the optional scratch buffer ``name``: the kernel takes its scratch-free variant."""
        nbytes = self.optional_scratch.pop(name)
        tid = self.op.named_tensors.pop(name)
        self.model.tensors.pop(tid, None)
        self.dropped_scratch[name] = nbytes
        self.scratch_drop_reasons[name] = reason
        self.forget_fixed()

    def reuse_scratch(self, name: str, reason: str = "") -> None:
        """Give up the optional buffer ``name`` for the kernel's dead-bytes placement
        (``reusable_scratch``): same instructions, no bytes of its own in the arena."""
        self.drop_scratch(name, reason)
        self.reused_scratch.add(name)

    # -- resolve -------------------------------------------------------------------------------
    def check(self) -> Iterable[str]:
        """Yield one user-facing sentence per way this operator breaks ``RESTRICTIONS``."""
        return ()

    def dtype_violations(self) -> list[str]:
        """Violations of ``SUPPORTED_DTYPES`` on the non-constant inputs and outputs."""
        if self.SUPPORTED_DTYPES is None:
            return []
        allowed = {np.dtype(t) for t in self.SUPPORTED_DTYPES}
        problems = []
        for role, tensors in (("input", self.input_tensors), ("output", self.output_tensors)):
            for tensor in tensors:
                if tensor.is_constant:
                    continue
                if tensor.dtype.numpy not in allowed:
                    names = ", ".join(sorted(np.dtype(t).name for t in self.SUPPORTED_DTYPES))
                    problems.append(
                        f"{role} {tensor.source_name or tensor.name!r} is {tensor.dtype}; supported: {names}"
                    )
        return problems

    def validate(self) -> None:
        """Check the operator against its contract; raise UnsupportedModelError listing every problem."""
        problems = self.dtype_violations()
        if not problems:
            problems.extend(self.check())
        if problems:
            raise UnsupportedModelError(
                f"operator #{self.op.id} {self.op.op_type}: " + "; ".join(problems),
                hint="; ".join(self.RESTRICTIONS) or None,
                details={"operator": self.op.id, "type": self.op.op_type, "problems": problems},
            )

    def on_resolve(self) -> None:
        """Precompute constants and scratch; runs once, after ``validate`` passed."""

    def resolve(self) -> None:
        """Validate, resolve the knobs (``knob_resolver``, set by the pipeline), then precompute.

        Only runs once even if called repeatedly. The knobs are resolved after validation, so
        ``knob_values`` may rely on a valid operator, and before ``on_resolve``, so the derived
        constants and scratch follow the kernel the knobs picked.
        """
        if self._resolved:
            return
        self.validate()
        if self.knob_resolver is not None:
            self.knob_resolver(self)
        self._memo = {}  # FIXED_AFTER_RESOLVE: tensors, options, knobs and goal are set from here
        self.on_resolve()
        self._resolved = True

    @staticmethod
    def require_symmetric_filter(tensor: AirTensor, label: str, hint: str | None = None) -> None:
        """Reject a quantized tensor whose zero points are not all 0."""
        if tensor.quantization is not None and np.any(tensor.quantization.zero_point != 0):
            raise ConfigValueError(f"{label} has a nonzero zero point", hint=hint)

    def reads_input(self, position: int) -> bool:
        """Whether the emitted C reads input ``position``.

        Inputs the C never reads (a RESHAPE's shape, weights an operator repacked into a tensor
        of its own) are left out of the constant arena. The default reads every input.
        """
        return True

    # -- knobs ---------------------------------------------------------------------------------
    def knob_values(self, knob: str) -> tuple[str, ...]:
        """The values of ``knob`` this operator's kernels offer, preferred first.

        Empty means the operator has no choice for it (the knob's default is recorded). The
        default reads ``KNOB_VALUES``; override it when the offer depends on the tensors (a
        fast path that needs constant weights).
        """
        return tuple(self.KNOB_VALUES.get(knob, ()))

    def modeled_knob_choice(self, knob: str, goal: str, offered: tuple[str, ...], today: str) -> str | None:
        """The value of ``knob`` this operator's modeled cycles prefer at ``goal`` over ``today``
        (the knob's ``auto`` table value), or None: no say, the ``auto`` table decides (here, for
        every operator; a pack that measured its kernels' cycles by shape overrides it, as the
        built-in pack does from its kernel cycle table)."""
        return None

    def goal_size_savings(self) -> tuple[int, int]:
        """Constant and scratch bytes this operator gives up under goal ``size`` beyond what its
        knob values change (a kernel that runs another form there), for the goal hint: (0, 0)."""
        return (0, 0)

    def knob(self, name: str, default: str = "") -> str:
        """The resolved value of knob ``name`` (``default`` before resolution or for no such knob)."""
        return self.resolved_knobs.get(name, default)

    def kernel_variants(self) -> list[KernelVariant]:
        """Every kernel variant the operator offers with its costs; one per offered knob value.

        Operators with derived constants or scratch per variant override this; the default
        lists the offered ``kernel`` values with no costs known.
        """
        return [KernelVariant("kernel", value) for value in self.knob_values("kernel")]

    # -- plan / report -------------------------------------------------------------------------
    def on_placed(self, memory_plan: MemoryPlan) -> None:
        """Adjust constant bytes to the final placement (idempotent); the default does nothing."""

    def macs(self) -> int | None:
        """Multiply-accumulates per inference, or None when the type has no defined count."""
        return None

    def parameters(self) -> int | None:
        """Elements of constant weights and bias, or None when the type has no defined count."""
        return None

    def kernel_calls(self) -> dict[str, str] | None:
        """Kernel entry points the emitted C calls, by role (``{}`` = none, None = unknown)."""
        return None

    def kernel_sources(self) -> list[Path]:
        """C library files the emitted code needs; copied once into the module's ``src/kernels``."""
        return []

    # -- emit ----------------------------------------------------------------------------------
    def compute_values(self) -> dict[str, Any]:
        """Values for the operator's template."""
        return {}

    def emit(self, save_path: Path) -> None:
        """Write ``includes-api/<stem>.h`` and ``src/<stem>.c`` under ``save_path``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement emit()")
