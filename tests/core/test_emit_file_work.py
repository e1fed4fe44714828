"""Emit's and Export's per-file work on their fast paths gives what the plain paths gave, once.

``c_hex_bytes`` formats a bytes object with whole-buffer calls; ``includes_of`` finds include lines
with a literal-first pattern instead of ``^\\s*#`` in multi-line mode; inside ``scan_once`` the
kernel library lists each folder once and reads each file once (Emit copies the text the scan
read); Export's walk of the module and the exporters' layout take entry types and names from the
directory listings instead of an ``lstat`` and a path object per file; the constants file is
rendered around placeholders for its bytes. The references below are the plain forms these
replaced, kept here as the definition.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePath, PurePosixPath

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.codegen import c_hex_bytes, render_template
from helia_aot.errors import PluginError
from helia_aot.exporters.base import ModuleLayout
from helia_aot.pack import kernel_library
from helia_aot.pack.kernel_library import KernelLibrary, includes_of, kernel_text, scan_once
from helia_aot.pipeline.emit import CRegion, _constants_text
from helia_aot.pipeline.export import module_entries
from helia_aot.platforms.model import SocPlatform
from helia_aot_ops_builtin.common.kernel_cycles import kernel_cycles_table
from hypothesis import given, settings
from hypothesis import strategies as st

from helia_aot_ops_builtin import families


def reference_hex(data: bytes, per_line: int) -> str:
    if not data:
        return "0x00"
    hexes = [f"0x{b:02x}" for b in data]
    return ",\n".join(", ".join(hexes[i : i + per_line]) for i in range(0, len(hexes), per_line))


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=1, max_value=70))
def test_c_hex_bytes_is_the_item_per_byte_format(data, per_line):
    assert c_hex_bytes(data, per_line) == reference_hex(data, per_line)
    assert c_hex_bytes(bytearray(data), per_line) == reference_hex(data, per_line)


def test_c_hex_bytes_of_other_byte_sequences_and_the_default_width():
    data = bytes(range(256)) * 3
    assert c_hex_bytes(data) == reference_hex(data, 20)
    assert c_hex_bytes(memoryview(data)) == reference_hex(data, 20)
    assert c_hex_bytes(list(data[:45]), 7) == reference_hex(data[:45], 7)


REFERENCE_INCLUDE = re.compile(r'^\s*#\s*include\s+"(hk_[A-Za-z0-9_]+\.h)"', re.MULTILINE)

_PIECES = st.sampled_from(
    [
        "#",
        "include",
        " ",
        "\t",
        "\n",
        "\r\n",
        '"',
        "hk_a.h",
        "hk_b2.h",
        "x",
        "/* c */",
        "<hk_c.h>",
        "hk_",
        ".h",
    ]
)


@settings(max_examples=25, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_includes_of_finds_what_the_multiline_pattern_finds(text):
    assert includes_of(text) == REFERENCE_INCLUDE.findall(text)


def test_includes_of_every_built_in_kernel_file():
    for path in sorted(p for folder in families.KERNEL_PATH for p in Path(folder).glob("hk_*")):
        text = path.read_text(encoding="utf-8")
        assert includes_of(text) == REFERENCE_INCLUDE.findall(text), path.name


def test_a_scan_lists_each_folder_once_and_reads_each_file_once(tmp_path, monkeypatch):
    """Two families sharing a dependency: outside ``scan_once`` each answer reads the files again;
    inside, the shared header is read once for both answers and for the copy's text."""
    (tmp_path / "hk_base.h").write_text("#define HK_BASE 1\n")
    (tmp_path / "hk_one.h").write_text('#include "hk_base.h"\n')
    (tmp_path / "hk_one.c").write_text('  #  include "hk_one.h"\n')
    (tmp_path / "hk_two.h").write_text('#include "hk_base.h"\n')
    (tmp_path / "hk_two_mve.c").write_text('#include "hk_two.h"\n')
    library = KernelLibrary(tmp_path)
    reads: list[str] = []
    listings: list[str] = []
    real_read, real_scandir = Path.read_text, kernel_library.os.scandir
    monkeypatch.setattr(
        Path, "read_text", lambda self, *a, **k: reads.append(self.name) or real_read(self, *a, **k)
    )
    monkeypatch.setattr(
        kernel_library.os, "scandir", lambda folder: listings.append(str(folder)) or real_scandir(folder)
    )
    plain = [library.sources("one"), library.sources("two")]
    assert reads.count("hk_base.h") == 2
    reads.clear()
    with scan_once():
        assert [library.sources("one"), library.sources("two")] == plain
        texts = {path.name: kernel_text(path) for answer in plain for path in answer}
    assert sorted(reads) == sorted(texts)  # every file once: the scan's reads serve the copy
    assert listings == [str(tmp_path)]
    assert [p.name for p in plain[1]] == ["hk_base.h", "hk_two.h", "hk_two_mve.c"]
    with pytest.raises(KeyError, match="no kernel family 'nope'"), scan_once():
        library.sources("nope")


def reference_entries(source: Path) -> list[tuple[Path, PurePosixPath]]:
    entries = []
    for folder, dirs, files in os.walk(source):
        rel = PurePath(os.path.relpath(folder, source)).as_posix()
        prefix = "" if rel == "." else rel + "/"
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise PluginError(f"the generated module holds {Path(path).relative_to(source)}")
            entries.append((Path(path), PurePosixPath(prefix + name)))
    entries.sort(key=lambda entry: entry[1].parts)
    return entries


def a_module_tree(root: Path) -> Path:
    for rel in (
        "includes-api/m_model.h",
        "src/m_model.c",
        "src/kernels/m_hk_a.h",
        "src/kernels/m_hk_a.c",
        "src/kernels/deep/x.h",
        "src-extra/n.c",
        "README.md",
        ".helia-aot",
        "src/a.c.d/y.c",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    (root / "empty").mkdir()
    return root


BOARD = SocPlatform(
    name="board",
    cpu="cortex-m4",
    capabilities=frozenset(),
    memories={"sram": 1024},
    preferred_order=("sram",),
)


def test_module_entries_and_the_layout_list_what_a_walk_and_globs_list(tmp_path):
    """The walk by directory entries gives the lstat walk's entries and order; the layout's file
    lists are ``glob``/``rglob``'s, sorted."""
    root = a_module_tree(tmp_path / "m")
    assert module_entries(root) == reference_entries(root)
    layout = ModuleLayout.scan(
        root, name="m", prefix="m", model_name="x", platform=BOARD, plan_hash="0", version="1"
    )

    def rel(paths):
        return tuple(sorted(p.relative_to(root).as_posix() for p in paths))

    assert layout.sources == rel((root / "src").rglob("*.c"))
    assert layout.headers == rel([*(root / "includes-api").glob("*.h"), *(root / "src").rglob("*.h")])
    assert layout.sources and layout.headers


def test_module_entries_refuse_the_first_link_a_walk_meets(tmp_path):
    root = a_module_tree(tmp_path / "m")
    (root / "src" / "kernels" / "z_link.c").symlink_to(root / "README.md")
    (root / "src" / "to_dir").symlink_to(root / "empty")
    with pytest.raises(PluginError) as ours:
        module_entries(root)
    with pytest.raises(PluginError) as reference:
        reference_entries(root)
    assert str(reference.value) in str(ours.value)
    assert "not a regular file or folder" in str(ours.value)


def a_region(index: int, cold: bool) -> CRegion:
    return CRegion(
        index=index,
        plan_id=index,
        enum=f"m_arena_const_r{index}",
        role="constant" if cold else "persistent",
        memory="MRAM",
        used=8,
        total_size=8,
        alignment=16,
        cold=cold,
        staged=not cold,
        macro="M_ARENA",
        source_memory=None,
        source_plan_id=None,
        source_offset=0,
    )


@pytest.mark.parametrize("comment", ["model kws", "\0constants 1\0"])
def test_constants_are_the_whole_render_with_or_without_placeholders(comment):
    """The placeholders give the text a whole render gives; a name holding one (which ``c_comment``
    never lets through) falls back to the whole render."""
    items = [(a_region(0, True), "m_blob", bytes(range(45))), (a_region(1, False), "m_source", b"\x7f" * 3)]
    values = {"prefix": "m", "PREFIX": "M", "model_comment": comment, "memory": "MRAM"}
    hexes = [c_hex_bytes(data) for _, _, data in items]
    whole = render_template(
        "constants.c.mako", **values, items=[(r, s, len(d), h) for (r, s, d), h in zip(items, hexes)]
    )
    assert _constants_text(values, items, hexes) == whole
    assert hexes[0] in whole and whole.count("\0") == 2 * (comment != "model kws")


KWS = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"


def test_a_conversion_reads_each_kernel_file_it_copies_once(tmp_path, monkeypatch):
    """KWS copies 56 kernel files (45 until the depthwise and fully connected Helium/DSP paths
    left their reference files, 52 until the pools' did, 55 until the M4 pair loops per tap count
    took a header of their own); the scan used to read every header once per family including
    it, and the copy every file again. The kernel cycle table beside the kernels is read once per
    process (cached), so it is read before the count starts: whether an earlier test in the same
    worker read it must not change the result."""
    kernel_cycles_table()
    kernel_dirs = {Path(folder) for folder in families.KERNEL_PATH}
    reads: list[str] = []
    listings: list[str] = []
    real_read, real_scandir = Path.read_text, kernel_library.os.scandir

    def read_text(self, *args, **kwargs):
        if self.parent in kernel_dirs:
            reads.append(self.name)
        return real_read(self, *args, **kwargs)

    def scandir(*args):  # os.scandir is also called with a descriptor (shutil.rmtree)
        if args and isinstance(args[0], (str, os.PathLike)) and Path(args[0]) in kernel_dirs:
            listings.append(str(args[0]))
        return real_scandir(*args)

    monkeypatch.setattr(Path, "read_text", read_text)
    monkeypatch.setattr(kernel_library.os, "scandir", scandir)
    AotConverter(ConvertArgs(model={"path": str(KWS)}, module={"path": str(tmp_path)})).convert()
    copied = sorted(p.name.removeprefix("aot_") for p in tmp_path.glob("*/src/kernels/*"))
    assert len(copied) == 56
    assert sorted(reads) == copied
    assert listings and len(listings) == len(set(listings))  # each folder of the search path once


def reference_sources(folder: Path, families: tuple[str, ...]) -> list[Path]:
    """The scan as it was: a ``stat`` per possible file, every file read per answer."""
    ordered: list[Path] = []
    seen: set[Path] = set()

    def visit(family: str) -> None:
        header = folder / f"hk_{family}.h"
        if not header.is_file():
            raise KeyError(family)
        candidates = [
            folder / f"hk_{family}.c",
            *(folder / f"hk_{family}_{s}.c" for s in ("mve", "dsp", "scalar")),
        ]
        files = [header, *(path for path in candidates if path.is_file())]
        if files[0] in seen:
            return
        seen.update(files)
        for path in files:
            for include in REFERENCE_INCLUDE.findall(path.read_text(encoding="utf-8")):
                if include[3:-2] != family:
                    visit(include[3:-2])
        ordered.extend(files)

    for family in families:
        visit(family)
    return ordered


_NAMES = ("a", "b", "c", "d")
_GRAPHS = st.fixed_dictionaries(
    {
        name: st.tuples(
            st.lists(st.sampled_from(_NAMES), max_size=3),  # the header's includes
            st.lists(st.sampled_from(("", "_mve", "_scalar")), unique=True, max_size=2),  # its sources
        )
        for name in _NAMES
    }
)


@settings(max_examples=15, deadline=None)
@given(_GRAPHS, st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3).map(tuple))
def test_the_scan_orders_files_as_the_file_by_file_scan(tmp_path_factory, graph, families):
    """Include graphs with cycles and self-includes, families asked together: the same files in
    the same order inside and outside ``scan_once``."""
    folder = tmp_path_factory.mktemp("kernels")
    for name, (includes, sources) in graph.items():
        (folder / f"hk_{name}.h").write_text("".join(f'#include "hk_{i}.h"\n' for i in includes))
        for suffix in sources:
            (folder / f"hk_{name}{suffix}.c").write_text(f'#include "hk_{name}.h"\n')
    expected = reference_sources(folder, families)
    library = KernelLibrary(folder)
    assert library.sources(*families) == expected
    with scan_once():
        assert library.sources(*families[::-1]) == reference_sources(folder, families[::-1])
        assert library.sources(*families) == expected
