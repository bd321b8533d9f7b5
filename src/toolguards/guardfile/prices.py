"""The price table: what a model's tokens cost, to turn the tokens of the loops replay and report find into money.

It is a mapping from model-name patterns to US dollars per million input and output tokens, in a guard file's
``prices:`` or in a YAML file of its own (``--prices FILE``, the same mapping at its top level)::

    prices:
      claude-sonnet-4*: {input: 3, output: 15}
      gpt-5*: {input: 1.25, output: 10}
      "*": {input: 1, output: 4}       # everything else

A pattern matches the whole model name, ``*`` being the only wildcard (as tool patterns do); the first pattern that
matches wins, in the file's order. A model no pattern matches has no price: its tokens are counted, not priced.
Mistakes are diagnostics with their position, like every other problem of a guard file:
``prices.yaml:2:35: gpt-5.output: invalid price -1 — must be a number >= 0 (US dollars per million tokens)``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..patterns import compile_pattern

__all__ = ["NO_PRICES", "Price", "PriceTable", "load_prices"]


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """What these tokens cost, in US dollars."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


@dataclass(frozen=True)
class PriceTable:
    """Model-name patterns and their prices, in order (the first match wins)."""

    entries: tuple[tuple[str, Price], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.entries)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> PriceTable:
        """The table of a schema-valid ``prices`` mapping."""
        return cls(tuple((pattern, Price(float(p["input"]), float(p["output"]))) for pattern, p in data.items()))

    def price(self, model: str | None) -> Price | None:
        """The price of ``model``: the first pattern's that matches it; None for none (or no model)."""
        if model is None:
            return None
        for pattern, price in self.entries:
            if compile_pattern(pattern).fullmatch(model):
                return price
        return None


NO_PRICES = PriceTable()


def load_prices(path: str | os.PathLike[str]) -> PriceTable:
    """The price table of a YAML file whose top level is the mapping; ConfigError listing every problem."""
    from .check import document_diagnostics  # noqa: PLC0415 - jsonschema, only for a --prices file
    from .diagnostics import ConfigError  # noqa: PLC0415
    from .document import parse_document  # noqa: PLC0415
    from .reading import read_guard_file  # noqa: PLC0415
    from .schema import PRICES_SCHEMA  # noqa: PLC0415

    display = os.fspath(path)
    document = parse_document(display, read_guard_file(display, path))
    problems = [d for _, d in document.problems]
    if not problems:
        problems = [d for _, d in document_diagnostics(display, document, PRICES_SCHEMA)]
    if problems:
        raise ConfigError(problems)
    return PriceTable.of(document.data)
