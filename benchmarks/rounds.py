"""Side-by-side measurement: variants alternate in rounds, the median round is reported.

Running all of one variant and then all of the other lets drift (thermal, a neighbour's
build, the page cache) land on one of them only. Alternating, and flipping the order every
round, spreads it over both; the median then drops the rounds that a burst of noise hit.
"""

from __future__ import annotations

import gc
import statistics
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

Figures = Mapping[str, float]
Measure = Callable[[], Awaitable[Figures]]
"""One round of one variant: runs a batch, checks it, returns its figures by name."""


@dataclass(frozen=True)
class Samples:
    """Per-round values of one figure of one variant, in the order they were taken."""

    values: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def spread(self) -> tuple[float, float]:
        """(min, max) over the rounds, to show how noisy the run was."""
        return min(self.values), max(self.values)


Table = dict[str, dict[str, Samples]]
"""variant -> figure -> samples."""


async def alternate(variants: Mapping[str, Measure], *, rounds: int, warmup: int = 1) -> Table:
    """Run every variant once per round, flipping the order each round; warm-up rounds
    are run the same way and discarded. A collection before each batch keeps one
    variant's garbage from being collected on the other's clock; freezing what exists
    beforehand (imports, clients) keeps those collections cheap, so rounds can be short."""
    gc.collect()
    gc.freeze()
    names = list(variants)
    taken: dict[str, dict[str, list[float]]] = {name: {} for name in names}
    try:
        for index in range(warmup + rounds):
            order = names if index % 2 == 0 else names[::-1]
            for name in order:
                gc.collect()
                figures = await variants[name]()
                if index >= warmup:
                    for figure, value in figures.items():
                        taken[name].setdefault(figure, []).append(value)
    finally:
        gc.unfreeze()
    return {
        name: {figure: Samples(values) for figure, values in figures.items()}
        for name, figures in taken.items()
    }
