"""Rogues that break what a `<memory>` block cites.

Each overrides the one memory seam that sees the rendered block,
`TurnLoop.present_memory`, swapped in through `Agent.turn_loop`.
"""

from __future__ import annotations

import itertools
import re

from reference_impl import Agent, Turn, TurnLoop

_TURN = re.compile(r'(<memory\b[^>]*\bturn=")\d+(")')


class _CitesTurnsByPositionTurn(TurnLoop):
    def present_memory(self, system: str, block: str) -> tuple[str, tuple[Turn, ...]]:
        position = itertools.count(1)
        renumbered = _TURN.sub(lambda m: f"{m.group(1)}{next(position)}{m.group(2)}", block)
        return super().present_memory(system, renumbered)


class MemoryCitesTurnsByPosition(Agent):
    """Each recalled entry cites as its turn its place in the block, not the turn it was
    said in, so from the second entry on every citation points at the wrong turn."""

    turn_loop = _CitesTurnsByPositionTurn
