"""One Helium assembly loop per int8 FULLY_CONNECTED layer, written at conversion.

The kernel library's eight-unit blocks (``hk_fc_blocks8_*`` in hk_fully_connected_mve.c) read the
layer's shape, shifts, offset and clamp from memory at run time and keep them in registers; per
block of eight units that costs reloads of the loop state, a second weight pointer and a
counter. A converter knows all of it, so for the layers it fits this module writes the loop
itself, with every constant an immediate:

- one weight pointer: a pair of the packed groups of four units (``pack_fc_filter``) spans at
  most 1,024 bytes when the depth is at most 128, which VLDRW's immediate offsets (+-508) reach
  from one register set 508 bytes into the pair; one ADD per block moves it to the next pair;
- the input row read at immediate offsets from one fixed register (VLDRB reaches +-127), and
  its last chunks held in q3-q7 for the whole layer, so most blocks load no input at all;
- per block one table pointer reads the eight folded biases (LDRD) and then the eight
  multipliers in the order the lanes take them (even units, odd units);
- the requantization of ``fc_integer_requant`` with the output offset added in the multiply
  (VQRDMLASH, ``fused=True``), shifts as immediates (VQSHL, VRSHR), the clamp to int8 by the
  saturating narrowings when it is the whole int8 range, else VMAX/VMIN.

The weights stay the packed constants every core reads, so the other cores' call is unchanged;
the template renders both under ``HK_HAVE_MVE``. The loop follows LiteRT's reference
FullyConnected (per-unit or per-tensor scales, int8), through the integer form the converter
proved equal to its double rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helia_aot_ops_builtin.fully_connected.fc_integer_requant import IntegerRequant, fused_addend

ONE_POINTER_DEPTH = 128
"""Deepest layer one weight pointer serves: a pair of groups is 128 * depth bytes, at most 1,024."""

MAX_DEPTH = 1008
"""Deepest layer written out (63 chunks: the second group's pointer is one ADDW of 64 * chunks
from the first, and the unrolled loop stays under 4.3 KB); deeper ones keep the kernel call."""

WEIGHT_BIAS = 508
"""Bytes the weight register points past the start of its pair (VLDRW's largest offset)."""

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
        """Input chunks kept in registers: q3-q7, or q3-q5 when q6/q7 hold the clamp."""
        return min(self.chunks, len(HELD_REGISTERS) - (0 if self.full_range else 2))


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
    """Per block of eight units, the folded biases in unit order, then the multipliers of the
    even units and of the odd ones (the lanes of q0 and q1): the order the loop reads them."""
    bias = np.asarray(folded_bias, np.int64).reshape(-1, 8)
    mult = np.broadcast_to(np.asarray(multipliers, np.int64), (bias.size,)).reshape(-1, 8)
    return np.concatenate([bias, mult[:, 0::2], mult[:, 1::2]], axis=1).reshape(-1).astype(np.int32)


def _chunk(x: str, weights: list[str]) -> list[str]:
    """Eight units against the 16 input bytes in ``x``, unit j's weights loaded by
    ``weights[j]``: two weight registers in turn, so each VMLADAVA reads a load issued one
    instruction earlier."""
    lines = []
    temps = ("q1", "q2")
    for unit in range(8):
        lines.append(weights[unit].format(q=temps[unit % 2]))
        if unit > 0:
            lines.append(f"vmladava.s8 {ACCUMULATORS[unit - 1]}, {x}, {temps[(unit - 1) % 2]}")
    lines.append(f"vmladava.s8 {ACCUMULATORS[7]}, {x}, {temps[1]}")
    return lines


def _mov_immediate(register: str, value: int) -> list[str]:
    """``register = value`` (any int32) by MOVW/MOVT."""
    bits = value & 0xFFFFFFFF
    lines = [f"movw {register}, #{bits & 0xFFFF}"]
    if bits >> 16:
        lines.append(f"movt {register}, #{bits >> 16}")
    return lines


def _held_loads(layer: HeliumLayer, base: str, base_chunk: int) -> list[str]:
    """The input's last chunks into q3 onwards, from ``base`` (which points at chunk
    ``base_chunk``); the last, partial chunk's lanes past the depth load as zero."""
    lines = []
    first_held = layer.chunks - layer.held
    for chunk in range(first_held, layer.chunks):
        register = HELD_REGISTERS[chunk - first_held]
        offset = 16 * (chunk - base_chunk)
        rest = layer.depth - 16 * chunk
        if rest < 16:
            lines += [f"movs r2, #{rest}", "vctp.8 r2", "vpst", f"vldrbt.8 {register}, [{base}, #{offset}]"]
        else:
            lines.append(f"vldrb.8 {register}, [{base}, #{offset}]")
    return lines


def _requantize_and_store(layer: HeliumLayer, addend: str) -> list[str]:
    """The eight accumulators to eight int8 outputs at r7 (post-incremented), ``addend``
    holding the output offset << right."""
    # Even units into q0, odd ones into q1 (VMOV Qd[2], Qd[0], Rt, Rt2 puts Rt in lane 0).
    lines = [
        "vmov q0[2], q0[0], r0, r8",
        "vmov q0[3], q0[1], r4, r12",
        "vmov q1[2], q1[0], r2, r10",
        "vmov q1[3], q1[1], r6, lr",
    ]
    if layer.left:
        lines += [f"vqshl.s32 q0, q0, #{layer.left}", f"vqshl.s32 q1, q1, #{layer.left}"]
    lines += [
        "vldrw.32 q2, [r9], #16",
        f"vqrdmlash.s32 q0, q2, {addend}",
        "vldrw.32 q2, [r9], #16",
        f"vqrdmlash.s32 q1, q2, {addend}",
        f"vrshr.s32 q0, q0, #{layer.right}",
        f"vrshr.s32 q1, q1, #{layer.right}",
        "vqmovnb.s32 q0, q0",
        "vqmovnt.s32 q0, q1",
    ]
    if layer.full_range:
        lines.append("vqmovnb.s16 q0, q0")
    else:
        lines += ["vmax.s16 q0, q0, q6", "vmin.s16 q0, q0, q7"]
    return lines + ["vstrb.16 q0, [r7], #8"]


def _clamp_setup(layer: HeliumLayer) -> list[str]:
    if layer.full_range:
        return []
    lines = _mov_immediate("r0", layer.act_min & 0xFFFF) + ["vdup.16 q6, r0"]
    return lines + _mov_immediate("r0", layer.act_max & 0xFFFF) + ["vdup.16 q7, r0"]


def layer_assembly(layer: HeliumLayer) -> list[str]:
    """The instructions of the layer's loop, one per string, entered with ``%[a]`` pointing at
    {input row, weights + weight_bias(layer), output row, block table}. r4-r11 and d8-d15 are
    saved here (r7 is the frame pointer at -O0), so the block builds at every optimization
    level."""
    lines = ["push {r4-r11}", "vpush {d8-d15}", "mov r11, %[a]", "ldm r11, {r1, r3, r7, r9}"]
    lines.append(f"add r11, r7, #{layer.units}")  # where the output pointer stops
    lines += _clamp_setup(layer)
    body = _one_pointer_blocks(layer) if layer.depth <= ONE_POINTER_DEPTH else _deep_blocks(layer)
    return lines + body + ["vpop {d8-d15}", "pop {r4-r11}"]


def _one_pointer_blocks(layer: HeliumLayer) -> list[str]:
    """Depths of at most ONE_POINTER_DEPTH: the weights at immediate offsets from r3, the input
    at immediate offsets from r1, the addend in r5."""
    chunks = layer.chunks
    first_held = chunks - layer.held
    group_size = 64 * chunks

    def weights(chunk: int) -> list[str]:
        offsets = [(j // 4) * group_size + 64 * chunk + 16 * (j % 4) - WEIGHT_BIAS for j in range(8)]
        return ["vldrw.u32 {q}, [r3, #" + str(o) + "]" for o in offsets]

    lines = _mov_immediate("r5", layer.addend) + _held_loads(layer, "r1", 0)
    lines += ["2:"] + _bias_loads()
    for chunk in range(chunks):
        if chunk < first_held:
            lines.append(f"vldrb.8 q0, [r1, #{16 * chunk}]")
            lines += _chunk("q0", weights(chunk))
        else:
            lines += _chunk(HELD_REGISTERS[chunk - first_held], weights(chunk))
    lines.append(f"add r3, r3, #{2 * group_size}")
    return lines + _requantize_and_store(layer, "r5") + ["cmp r7, r11", "bne 2b"]


def _deep_blocks(layer: HeliumLayer) -> list[str]:
    """Deeper layers: the pair's two groups by two post-incremented pointers (r3, r5), the input
    streamed from r1 (reset per block) and fully unrolled; the input's start and the addend wait
    on the stack, the addend loaded into r1 once the block's dot products are done."""
    chunks = layer.chunks
    first_held = chunks - layer.held
    group_size = 64 * chunks
    weights = ["vldrb.8 {q}, [r3], #16"] * 4 + ["vldrb.8 {q}, [r5], #16"] * 4
    lines = _mov_immediate("r5", layer.addend) + ["push {r1, r5}"]
    lines += [f"add r0, r1, #{16 * first_held}"] + _held_loads(layer, "r0", first_held)
    lines += ["2:"] + _bias_loads() + ["ldr r1, [sp]", f"add r5, r3, #{group_size}"]
    for chunk in range(chunks):
        if chunk < first_held:
            lines.append("vldrb.8 q0, [r1], #16")
            lines += _chunk("q0", weights)
        else:
            lines += _chunk(HELD_REGISTERS[chunk - first_held], weights)
    lines += ["mov r3, r5", "ldr r1, [sp, #4]"]
    return lines + _requantize_and_store(layer, "r1") + ["cmp r7, r11", "bne 2b", "add sp, sp, #8"]


def _bias_loads() -> list[str]:
    """The block's eight folded biases into the accumulators, from the table at r9."""
    return [f"ldrd {a}, {b}, [r9], #8" for a, b in zip(ACCUMULATORS[0::2], ACCUMULATORS[1::2])]


def weight_bias(layer: HeliumLayer) -> int:
    """Bytes past the weights' start the loop's weight register begins at."""
    return WEIGHT_BIAS if layer.depth <= ONE_POINTER_DEPTH else 0


def asm_string(lines: list[str]) -> list[str]:
    """The lines as C string literals, one instruction each, for the template's __asm__."""
    return ['"' + line + ('\\n"' if line.endswith(":") else '\\n\\t"') for line in lines]
