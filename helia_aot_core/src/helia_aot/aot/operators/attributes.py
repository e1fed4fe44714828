"""OperatorAttributes: the keys an ``operators[]`` rule may set on an operator."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass


@dataclass(config=ConfigDict(extra="forbid"))
class OperatorAttributes:
    """Attributes every operator takes. Subclass (a pydantic dataclass) to declare more.

    ``code_placement: ITCM`` puts the operator's run code in ITCM on platforms that have one.
    A field without a default is a required attribute (declare the subclass ``kw_only=True``).
    """

    code_placement: Literal["DEFAULT", "ITCM"] = "DEFAULT"
