"""Emit's per-file work on its fast paths gives what the plain paths gave, and does it once.

``c_hex_bytes`` formats a bytes object with whole-buffer calls; ``includes_of`` finds include lines
with a literal-first pattern instead of ``^\\s*#`` in multi-line mode; inside ``scan_once`` the
kernel library lists each folder once and reads each file once (Emit copies the text the scan
read). The references below are the plain forms these replaced, kept here as the definition.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helia_aot.codegen import c_hex_bytes
from helia_aot.pack import kernel_library
from helia_aot.pack.kernel_library import KernelLibrary, includes_of, kernel_text, scan_once
from hypothesis import given, settings
from hypothesis import strategies as st

from helia_aot_ops_builtin import kernels


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
    for path in sorted(Path(kernels.KERNEL_DIR).glob("hk_*")):
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
