"""The literal-first patterns that rename kernel identifiers match exactly what ``\\bhk_`` does.

They are written differently only to be fast (a leading ``\\b`` makes the regex engine try every
character); any text must come out of the renaming the same.
"""

from __future__ import annotations

import re

from helia_aot.pipeline.emit import KERNEL_NAME_PATTERNS
from hypothesis import given, settings
from hypothesis import strategies as st

WORD_BOUNDARY = (re.compile(r"\bhk_"), re.compile(r"\bHK_"))
PIECES = st.sampled_from(
    ["h", "k", "H", "K", "_", " ", "a", "1", "(", "\n", "é", "hk_", "HK_", "xhk_", "_HK_"]
)
TEXT = st.lists(PIECES, max_size=20).map("".join)


@settings(max_examples=25, deadline=None)
@given(TEXT)
def test_same_renaming_as_word_boundary_patterns(text):
    for fast, plain in zip(KERNEL_NAME_PATTERNS, WORD_BOUNDARY, strict=True):
        assert fast.sub("p_", text) == plain.sub("p_", text)
