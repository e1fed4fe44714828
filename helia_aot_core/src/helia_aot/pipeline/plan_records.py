"""The plan's records: arenas (``ArenaRegion``), each tensor's place (``Placement``), the operator
order (``OperatorSchedule``) and the whole ``MemoryPlan`` that Plan returns and Emit, the reports and
the result's views read. Kept apart from the planner so a reader of a plan imports no planning."""

from __future__ import annotations

from dataclasses import dataclass, field

from helia_aot.air import TensorId
from helia_aot.pipeline.patch_plan import PatchStage

ROLES = ("scratch", "persistent", "constant")


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def arena_size(used: int, alignment: int) -> int:
    """Bytes an arena reserves: ``used`` rounded up to its alignment, at least one alignment unit."""
    return max(alignment, _align(used, alignment))


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class ArenaRegion:
    """One arena: a contiguous buffer of one role in one memory.

    A staged constant region (``source_region`` set) is a RAM buffer filled at init with ``used``
    bytes copied from region ``source_region`` starting ``source_offset`` bytes in; its
    ``source_memory`` is where those bytes are stored. ``capacity`` is the cap of ``memory``
    (shared by every region in it).
    """

    id: int
    role: str  # scratch | persistent | constant
    memory: str
    used: int
    alignment: int
    peak_live: int | None = None
    capacity: int | None = None
    planner: str | None = None
    tensor_peak_live: int | None = None
    """Scratch arenas: the peak of the tensors alone (no kernel scratch buffers), the bound the
    memory-aware kernel choice keeps ``used`` at."""
    source_memory: str | None = None
    source_region: int | None = None
    source_offset: int = 0

    @property
    def total_size(self) -> int:
        """Bytes reserved: ``used`` rounded up to the alignment (at least one alignment unit)."""
        return arena_size(self.used, self.alignment)

    @property
    def fragmentation(self) -> float:
        """Share of the arena the planner could not fill at the peak: ``1 - peak_live / used``."""
        if not self.used or self.peak_live is None:
            return 0.0
        return round(1.0 - self.peak_live / self.used, 6)

    @property
    def staged(self) -> bool:
        return self.source_region is not None

    @property
    def bindable(self) -> bool:
        """Whether the buffer is RAM the application may provide (everything but cold constants)."""
        return self.role != "constant" or self.staged

    @property
    def tag(self) -> str:
        """``scratch_dtcm``, ``constant_mram``, ``constant_dtcm_from_mram``: unique in a plan."""
        base = f"{self.role}_{self.memory.lower()}"
        return f"{base}_from_{self.source_memory.lower()}" if self.staged and self.source_memory else base


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class Placement:
    region: int
    offset: int
    size: int


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class OperatorSchedule:
    """Which order the operators run in, and what it saves.

    ``layer_bound`` is the tensors' peak in the model's stored (layer-by-layer) order;
    ``schedule_bound`` the peak in ``order`` (operator ids, as the module runs them). ``method``
    says how the order was found: ``stored`` (the goal does not reorder, or the graph cannot be),
    ``exact`` (every order searched) or ``greedy`` (the stated heuristic of
    :mod:`helia_aot.memory.schedule`).
    """

    order: list[str]
    layer_bound: int
    schedule_bound: int
    method: str
    reordered: bool = False


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class MemoryPlan:
    """Where everything lives: regions, each tensor's placement, and the aliasing used.

    ``constant_blobs`` holds the bytes of each cold constant region (staged bytes included, at
    their regions' ``source_offset``).
    """

    regions: list[ArenaRegion] = field(default_factory=list)
    placements: dict[TensorId, Placement] = field(default_factory=dict)
    alias_of: dict[TensorId, TensorId] = field(default_factory=dict)
    constant_blobs: dict[int, bytes] = field(default_factory=dict)
    dropped_scratch: dict[str, int] = field(default_factory=dict)
    """Operator id -> bytes of the optional kernel scratch the memory-aware choice dropped."""
    schedule: OperatorSchedule | None = None
    inplace_rows: list[str] = field(default_factory=list)
    """Operators (AIR ids) that write their output over their input row by row (goal size)."""
    patches: list[PatchStage] = field(default_factory=list)
    """Stages run band by band in patches (goal size; :mod:`helia_aot.pipeline.patch_plan`)."""
    accessed: dict[TensorId, int] = field(default_factory=dict)
    """Bytes each tensor is read or written per inference (:mod:`helia_aot.pipeline.access_cost`)."""
    simplest_constants: dict[TensorId, str] = field(default_factory=dict)
    """Where the simplest placement (model order, first memory that holds each) reads each
    constant no rule places: the baseline of the report's ``placement`` figures."""
    simplest_scratch_wait_cycles: int | None = None
    """Modeled wait cycles of the scratch tensors' accesses in the simplest layout (each memory
    filled in turn, the largest tensors moving on, beside the constants placed first); None
    when that layout does not fit."""
    simplest_scratch_bytes: int | None = None
    """The scratch regions' bytes in all in that simplest layout (None: it does not fit)."""
    scratch_over_bound: tuple[int, int] | None = None
    """At goal latency, when the scratch layout kept is above 1.02x of the fewest bytes: its bytes
    above that bound and the modeled wait cycles it saves against the best layout within it."""
    constants_yield: bool = False
    """The scratch spilled, and the constants read less per byte than it left the first memory to
    it (:func:`helia_aot.pipeline.plan.yield_claims`) because that pays fewer wait cycles."""
    """The operator order the plan is for and the tensor peaks of the stored and chosen orders."""

    def region(self, role: str) -> ArenaRegion | None:
        return next((r for r in self.regions if r.role == role), None)

    def region_of(self, tensor_id: TensorId) -> ArenaRegion | None:
        placement = self.placements.get(tensor_id)
        return None if placement is None else self.regions[placement.region]


__all__ = ["ROLES", "ArenaRegion", "MemoryPlan", "OperatorSchedule", "Placement", "arena_size"]
