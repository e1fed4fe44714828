"""The fast indented JSON writer spells every value exactly as ``json.dumps(indent=2)`` does.

The plan, report and residency files are written with it; their bytes are part of the module
(a test compares modules across runs and readers parse them), so any difference is a bug.
"""

from __future__ import annotations

import enum
import json

import pytest
from helia_aot.codegen.json_text import dumps_indented
from hypothesis import given, settings
from hypothesis import strategies as st


class Colour(str, enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from([Colour.RED, Level.HIGH])
)
KEYS = st.text(max_size=6) | st.integers(-5, 5) | st.floats(allow_nan=False) | st.booleans() | st.none()
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=25, deadline=None)
@given(VALUES)
def test_same_text_as_json_dumps(value):
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_what_json_refuses_is_refused():
    for bad in ({"a": object()}, {(1, 2): 3}):
        with pytest.raises(TypeError):
            json.dumps(bad, indent=2)
        with pytest.raises(TypeError):
            dumps_indented(bad)
