"""One Helium assembly loop per int8 FULLY_CONNECTED layer, written at conversion.

The kernel library's eight-unit blocks (``hk_fc_blocks8_*`` in hk_fully_connected_mve.c) read the
layer's shape, shifts, offset and clamp from memory at run time and keep them in registers; per
block of eight units that costs reloads of the loop state, a second weight pointer and a
counter. A converter knows all of it, so for the layers it fits this module writes the loop
itself, with every constant an immediate:

- loads and VMLADAVs alternate, each weight vector loaded into ``q2`` right before the VMLADAV
  that reads it: on the M55 an instruction overlaps the one before when they use different
  pipes, so every one of them costs one cycle; the first chunk of a block starts the
  accumulators (VMLADAV), the others accumulate;
- one weight pointer up to a depth of 128: a pair of the packed groups of four units
  (``pack_fc_filter``) spans at most 1,024 bytes, reached at VLDRW's immediate offsets (+-508)
  with three of the block's loads writing their address back (:func:`one_pointer_weights`);
  deeper layers read the two groups by two post-incremented pointers;
- the input's first chunks held in q3-q7 for the whole layer (q3-q6 when the others stream
  through q7), so most chunks load no input;
- the requantization of ``fc_integer_requant`` with the output offset added in the multiply
  (VQRDMLASH, ``fused=True``) and shifts as immediates, software-pipelined by one block: its
  head (accumulators to vectors, biases and multipliers from a table in lane order) runs as
  soon as a block's dot products end, its tail (VRSHR and the saturating narrowings, the clamp
  by VMAX/VMIN when it is not the whole int8 range) between the next block's loads and
  multiplies, and the outputs are stored by the head after that;
- short blocks unrolled two to four to a pass of the loop (:func:`loop_unroll`).

The weights stay the packed constants every core reads, so the other cores' call is unchanged;
the template renders both under ``HK_HAVE_MVE``. The loop follows LiteRT's reference
FullyConnected (per-unit or per-tensor scales, int8), through the integer form the converter
proved equal to its double rounding.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from helia_aot_ops_builtin.fully_connected.fc_integer_requant import IntegerRequant, fused_addend

ONE_POINTER_DEPTH = 128
"""Deepest layer one weight pointer serves: a pair of groups is 128 * depth bytes, at most 1,024."""

MAX_DEPTH = 1008
"""Deepest layer written out (63 chunks: the second group's pointer is one ADDW of 64 * chunks
from the first, and a block stays under 4.3 KB); deeper ones keep the kernel call."""

WEIGHT_REACH = 508
"""VLDRW's largest immediate offset."""

HELD_REGISTERS = ("q3", "q4", "q5", "q6", "q7")
"""Where the input's last chunks stay for the whole layer (q0-q2 are the loop's work)."""

ACCUMULATORS = ("r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr")
"""Units 0-7 of a block: VMLADAVA accumulates into even registers only."""


# Read field by field, never compared, hashed or printed: no generated __eq__/__hash__/__repr__.
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class HeliumLayer:
    """What the loop of one layer needs: its shape, shifts, fused offset and clamp."""

    depth: int
    units: int
    left: int
    right: int
    addend: int  # output offset << right, added by VQRDMLASH
    act_min: int
    act_max: int

    @property
    def chunks(self) -> int:
        return -(-self.depth // 16)

    @property
    def full_range(self) -> bool:
        """Whether the clamp is all of int8, which the saturating narrowings give for free."""
        return (self.act_min, self.act_max) == (-128, 127)

    @property
    def held(self) -> int:
        """Input chunks kept in registers: q3-q7 (q3-q6 when the other chunks stream through
        q7), or q3-q5 when q6/q7 hold the clamp."""
        if self.full_range:
            return self.chunks if self.chunks <= len(HELD_REGISTERS) else len(HELD_REGISTERS) - 1
        return min(self.chunks, len(HELD_REGISTERS) - 2)

    @property
    def stream_register(self) -> str:
        """Where the chunks not held are loaded: ``q7`` when the clamp is all of int8 (the
        previous block's tail then runs beside those loads), else ``q0`` (the tail runs in the
        first chunk, before ``q0`` is needed)."""
        return "q7" if self.full_range else "q0"


def helium_layer(
    depth: int, units: int, requant: IntegerRequant | None, offset: int, act_min: int, act_max: int
) -> HeliumLayer | None:
    """The layer's loop parameters, or None when it does not fit (units not a multiple of eight
    or over 4,095, deeper than MAX_DEPTH, no fused integer requantization, or its addend beyond
    int32)."""
    if requant is None or not 0 < units < 4096 or units % 8 != 0 or not 0 < depth <= MAX_DEPTH:
        return None
    addend = fused_addend(offset, requant.right)
    if addend is None or not (0 <= requant.left <= 31 and 1 <= requant.right <= 32):
        return None
    return HeliumLayer(depth, units, requant.left, requant.right, addend, act_min, act_max)


def block_table(folded_bias: np.ndarray, multipliers: np.ndarray) -> np.ndarray:
    """Per block of eight units, in the lanes' order (even units 0, 2, 4, 6 in ``q0``, odd ones
    in ``q1``): the even units' folded biases, the odd units', then their multipliers the same
    way. The loop reads them with four VLDRWs, the order it adds and multiplies them in."""
    bias = np.asarray(folded_bias, np.int64).reshape(-1, 8)
    mult = np.broadcast_to(np.asarray(multipliers, np.int64), (bias.size,)).reshape(-1, 8)
    parts = [bias[:, 0::2], bias[:, 1::2], mult[:, 0::2], mult[:, 1::2]]
    return np.concatenate(parts, axis=1).reshape(-1).astype(np.int32)


def _mov_immediate(register: str, value: int) -> list[str]:
    """``register = value`` (any int32) by MOVW/MOVT."""
    bits = value & 0xFFFFFFFF
    lines = [f"movw {register}, #{bits & 0xFFFF}"]
    if bits >> 16:
        lines.append(f"movt {register}, #{bits >> 16}")
    return lines


def held_chunks(layer: HeliumLayer) -> list[int]:
    """The input chunks kept in q3 onwards for the whole layer: the first ones, and the last
    when it is partial (so every predicated load happens once, before the loop)."""
    if layer.depth % 16 == 0 or layer.held == layer.chunks:
        return list(range(layer.held))
    return [*range(layer.held - 1), layer.chunks - 1]


def _held_loads(layer: HeliumLayer) -> list[str]:
    """The held chunks into q3 onwards from the input row at r1; the partial chunk's lanes
    past the depth load as zero. r0 is free here."""
    lines = []
    for register, chunk in zip(HELD_REGISTERS, held_chunks(layer), strict=False):
        offset = 16 * chunk
        base = "r1"
        if offset > 112:
            lines.append(f"add r0, r1, #{offset}")
            base, offset = "r0", 0
        rest = layer.depth - 16 * chunk
        if rest < 16:
            lines += [f"movs r2, #{rest}", "vctp.8 r2", "vpst", f"vldrbt.8 {register}, [{base}, #{offset}]"]
        else:
            lines.append(f"vldrb.8 {register}, [{base}, #{offset}]")
    return lines


def _requant_head(layer: HeliumLayer, addend: str, load_addend: list[str], store: bool) -> list[str]:
    """A block's eight accumulators to ``q0`` (even units) and ``q1`` (odd ones), its folded
    biases added, shifted left and multiplied with the output offset added (VQRDMLASH): what
    must happen before the next block's first VMLADAV overwrites the accumulators. The biases
    and multipliers come from r9 in lane order (:func:`block_table`), through ``q2``. With
    ``store``, the block before's eight outputs (narrowed into ``q1`` by :func:`_requant_tail`)
    are stored between the first two VMOVs. The order alternates the load/store, multiply
    (VMOV, VQRDMLASH) and integer pipes so each instruction overlaps the one before, and puts
    every result at least its latency ahead of its use."""
    lines = ["vldrw.u32 q2, [r9], #16", "vmov q0[2], q0[0], r0, r8", *load_addend]
    lines += ["vstrb.16 q1, [r7], #8"] if store else []
    lines += ["vmov q0[3], q0[1], r4, r12", "vmov q1[2], q1[0], r2, r10", "vadd.i32 q0, q0, q2"]
    lines += ["vmov q1[3], q1[1], r6, lr"]
    if layer.left:
        lines.append(f"vqshl.s32 q0, q0, #{layer.left}")
    lines += ["vldrw.u32 q2, [r9], #16", "vadd.i32 q1, q1, q2", "vldrw.u32 q2, [r9], #16"]
    lines.append(f"vqrdmlash.s32 q0, q2, {addend}")
    if layer.left:
        lines.append(f"vqshl.s32 q1, q1, #{layer.left}")
    return lines + ["vldrw.u32 q2, [r9], #16", f"vqrdmlash.s32 q1, q2, {addend}"]


def _requant_tail(layer: HeliumLayer) -> list[str]:
    """The rounding right shift and the narrowing to eight int8 outputs in unit order (even
    units in the bottom halves, odd ones in the top) with the clamp, into ``q1``: run while the
    next block's first chunk multiplies, so their latencies cost nothing; the next head stores
    them."""
    lines = [f"vrshr.s32 q0, q0, #{layer.right}", f"vrshr.s32 q1, q1, #{layer.right}"]
    lines += ["vqmovnb.s32 q0, q0", "vqmovnt.s32 q0, q1"]
    if layer.full_range:
        return lines + ["vqmovnb.s16 q1, q0"]
    return lines + ["vmax.s16 q0, q0, q6", "vmin.s16 q1, q0, q7"]


TAIL_SPACING = 2
"""Multiplies between two instructions of the previous block's tail: four cycles, more than the
narrowings' latency of three."""


def _block_stream(
    layer: HeliumLayer, weight: list[list[str]], streamed: dict[int, str], tail: list[str]
) -> list[str]:
    """One block's dot products, every weight load right before the VMLADAV reading it (``q2``),
    so loads and multiplies alternate and each overlaps the one before; the first chunk starts
    the accumulators (VMLADAV). ``weight[chunk][unit]`` loads that weight vector;
    ``streamed[chunk]`` loads a chunk not held into the stream register.

    The previous block's ``tail`` (integer-pipe instructions and, with the stream register
    ``q0``, nothing that touches it after the first chunk) runs between the multiplies: right
    after each streamed input load when the stream register is ``q7``, where it keeps that
    extra load from meeting the next weight load on the load/store pipe, else every
    TAIL_SPACING multiplies from the first."""
    held = {chunk: HELD_REGISTERS[i] for i, chunk in enumerate(held_chunks(layer))}
    beside_loads = layer.stream_register != "q0" and len(streamed) > 0
    last_streamed = max(streamed, default=-1)
    lines: list[str] = []
    pending = list(tail)
    spaced = not beside_loads  # pop every TAIL_SPACING multiplies from here on
    count = 0
    for chunk in range(layer.chunks):
        x = held.get(chunk, layer.stream_register)
        if chunk not in held:
            lines.append(streamed[chunk])
            if pending and beside_loads:
                lines.append(pending.pop(0))
            if chunk == last_streamed:
                spaced, count = True, 1
        for unit in range(8):
            lines.append(weight[chunk][unit])
            op = "vmladav.s8" if chunk == 0 else "vmladava.s8"
            lines.append(f"{op} {ACCUMULATORS[unit]}, {x}, q2")
            if pending and spaced and count % TAIL_SPACING == 0:
                lines.append(pending.pop(0))
            count += 1
    return lines + pending


def one_pointer_weights(layer: HeliumLayer) -> tuple[int, list[list[str]]]:
    """Depths of at most ONE_POINTER_DEPTH: the weight loads of a block, ``[chunk][unit]``, at
    immediate offsets from r3, and where r3 starts before the first pair (bytes from it). A
    pair spans 128 * chunks bytes, more than VLDRW's +-508 reach, so three of its loads write
    their address back to r3 (pre-indexed): each just before the next load would leave the
    reach, and the block's last one, which leaves r3 where the next block starts from. No ADD
    moves the pointer."""
    group_size = 64 * layer.chunks
    order = [(c, j) for c in range(layer.chunks) for j in range(8)]
    address = {(c, j): (j // 4) * group_size + 64 * c + 16 * (j % 4) for c, j in order}
    start = address[order[-1]] - 2 * group_size
    base = start
    loads: list[list[str]] = [["" for _ in range(8)] for _ in range(layer.chunks)]
    for i, key in enumerate(order):
        offset = address[key] - base
        if not -WEIGHT_REACH <= offset <= WEIGHT_REACH:  # never up to ONE_POINTER_DEPTH (tested)
            raise ValueError(f"depth {layer.depth}: weight at {address[key]} out of reach of {base}")
        last = i == len(order) - 1
        if last or abs(address[order[i + 1]] - base) > WEIGHT_REACH:
            loads[key[0]][key[1]] = f"vldrw.u32 q2, [r3, #{offset}]!"
            base = address[key]
        else:
            loads[key[0]][key[1]] = f"vldrw.u32 q2, [r3, #{offset}]"
    return start, loads


def layer_assembly(layer: HeliumLayer) -> list[str]:
    """The instructions of the layer's loop, one per string, entered with ``%[a]`` pointing at
    {input row, packed weights, output row, block table}. r4-r11 and d8-d15 are
    saved here (r7 is the frame pointer at -O0), so the block builds at every optimization
    level.

    Software-pipelined by one block: the first block runs alone up to its requantization head,
    each pass of the loop then multiplies the next block while finishing the one before
    (:func:`_requant_tail`), and the last block's tail follows the loop; :func:`loop_unroll`
    blocks run to a pass."""
    deep = layer.depth > ONE_POINTER_DEPTH
    lines = ["push {r4-r11}", "vpush {d8-d15}", "mov r11, %[a]", "ldm r11, {r1, r3, r7, r9}"]
    lines.append(f"add r11, r7, #{layer.units - 8}")  # the output pointer when the loop ends
    lines += _clamp_setup(layer) + _mov_immediate("r5", layer.addend) + _held_loads(layer)
    chunks = layer.chunks
    held = held_chunks(layer)
    group_size = 64 * chunks
    if deep:
        weight = [["vldrb.8 q2, [r3], #16"] * 4 + ["vldrb.8 q2, [r5], #16"] * 4 for _ in range(chunks)]
        first_streamed = next((c for c in range(chunks) if c not in held), chunks)
        streamed = {c: f"vldrb.8 {layer.stream_register}, [r1], #16" for c in range(chunks) if c not in held}
        lines += ["push {r5}", f"add r1, r1, #{16 * first_streamed}", f"add r5, r3, #{group_size}"]
        head = functools.partial(_requant_head, layer, "r0", ["ldr r0, [sp]"])
        steps = ["mov r3, r5", f"add r5, r5, #{group_size}"]
        if streamed:
            steps.append(f"sub r1, r1, #{16 * len(streamed)}")
    else:
        start, weight = one_pointer_weights(layer)
        lines.append(f"sub r3, r3, #{-start}")
        stream = layer.stream_register
        streamed = {c: f"vldrb.8 {stream}, [r1, #{16 * c}]" for c in range(chunks) if c not in held}
        head = functools.partial(_requant_head, layer, "r5", [])
        steps = []
    lines += _block_stream(layer, weight, streamed, []) + head(False) + steps
    blocks = layer.units // 8
    if blocks > 1:
        unroll = loop_unroll(layer)
        body = _block_stream(layer, weight, streamed, _requant_tail(layer)) + head(True) + steps
        if (blocks - 1) % unroll:  # the passes that do not fill the unrolled loop, before it
            lines += body * ((blocks - 1) % unroll)
        if blocks - 1 >= unroll:
            lines += ["2:"] + body * unroll + ["cmp r7, r11", "bne 2b"]
    # The last tail's narrowings wait on each other: the restore of q4-q7 runs before the last
    # one, unless the clamp reads q6/q7 there.
    tail = _requant_tail(layer)
    if layer.full_range:
        lines += tail[:-1] + ["vpop {d8-d15}", tail[-1], "vstrb.16 q1, [r7], #8"]
    else:
        lines += tail + ["vstrb.16 q1, [r7], #8", "vpop {d8-d15}"]
    if deep:
        lines.append("add sp, sp, #4")
    return lines + ["pop {r4-r11}"]


UNROLLED_BYTES = 2048
"""Code a layer's loop body may take when unrolled (about 512 instructions): blocks of the
loop pass a branch back each (compare, branch and its refill: about seven cycles), so short
blocks run two or four to a pass."""


def loop_unroll(layer: HeliumLayer) -> int:
    """Blocks per pass of the loop: as many as fit UNROLLED_BYTES (up to four), at least one."""
    per_block = 4 * (16 * layer.chunks + 24)
    return max(1, min(4, UNROLLED_BYTES // per_block))


def _clamp_setup(layer: HeliumLayer) -> list[str]:
    if layer.full_range:
        return []
    lines = _mov_immediate("r0", layer.act_min & 0xFFFF) + ["vdup.16 q6, r0"]
    return lines + _mov_immediate("r0", layer.act_max & 0xFFFF) + ["vdup.16 q7, r0"]


def asm_string(lines: list[str]) -> list[str]:
    """The lines as C string literals, one instruction each, for the template's __asm__."""
    return ['"' + line + ('\\n"' if line.endswith(":") else '\\n\\t"') for line in lines]
