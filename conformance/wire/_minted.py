"""What a runtime mints per agent or per run, learned from a control pair.

Comparing the wire of two doors (follow_up against run(continue_from=checkpoint())) must
not fail because a runtime stamps an agent id, a run id or a clock reading into its
requests: those differ between any two agents, whatever the door. A fixed regex can only
know the shapes somebody thought of (a uuid, a long hex run id) and misses the rest (an
8-character random id, a timestamp in a format nobody listed). So the suite *learns* what
is minted: it plays the same door twice, on two fresh agents (the control pair), and
whatever differs between those two bodies is minted. Where the control pair agrees, the
doors must agree exactly; where it differed, a value is masked if it has the shape the
control pair showed (the same literal text around the parts that changed). One exception
to "agrees": a word or hyphen glued (no whitespace) to a changed part is taken as part of
the minted value, since two random ids can share a whole word by chance (`1` and `1-`
share the `1`, and a third agent's `0` must still be masked).

Play the compared door *between* the two controls: a clock field the two controls agree
on (the same second, the same day) then holds for the door in the middle too, because
time only moves forward.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

MINTED = "<minted>"
"""What a masked value (or a masked part of a string) is replaced with."""

_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
_JOINED = re.compile(r"\w+|-")
"""Agreed tokens a changed part absorbs, out to the nearest other token, when glued to it
without whitespace: words and hyphens make up one id (`1` and `1-`, `a-b` and `a-c`,
`run-7` and `run-7-retry`, `agent-<uuid>` whose `agent-` goes with the uuid). Whitespace
and other punctuation stop it, so the `(agent ` and `)` around an id, and the date and
minute two timestamps agree on (`2026-12-01T15:38:`), are still compared exactly."""
_GLUE = re.compile(r"[^\w\s]{1,2}")
"""Punctuation between two changed parts is part of one minted value (a uuid's dashes, a
timestamp's colons and dot), so the learned shape does not demand it where it fell."""

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class _Part:
    """A changed part (later widened by the agreed tokens it absorbs): its text in the
    first control and in the second."""

    first: str
    second: str

    def attached(self, edge: int) -> bool:
        """Whether either control's text starts (edge 0) or ends (edge -1) with a
        non-whitespace character, so an agreed word there is glued to the minted value."""
        return any(text and not text[edge].isspace() for text in (self.first, self.second))


@dataclass(frozen=True, slots=True)
class _Shape:
    """A string whose changed parts are minted: literal text around wildcards.

    A wildcard is `\\S*?` when neither control's minted value (with what it absorbed)
    held whitespace, so it cannot swallow a word the door added next to it; `.*?` only
    where the controls showed whitespace inside the minted value."""

    pattern: re.Pattern[str]

    @classmethod
    def between(cls, first: str, second: str) -> _Shape:
        a, b = _TOKENS.findall(first), _TOKENS.findall(second)
        pieces: list[str | _Part] = []  # an agreed token, or a changed part
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for tag, a0, a1, b0, b1 in matcher.get_opcodes():
            if tag == "equal":
                pieces += a[a0:a1]
            else:
                pieces.append(_Part("".join(a[a0:a1]), "".join(b[b0:b1])))
        absorbed: set[int] = set()
        for index, piece in enumerate(pieces):
            if isinstance(piece, _Part):
                for step, edge in ((-1, 0), (1, -1)):
                    at = index + step
                    while piece.attached(edge) and 0 <= at < len(pieces):
                        token = pieces[at]
                        if not isinstance(token, str) or not _JOINED.fullmatch(token):
                            break
                        absorbed.add(at)
                        at += step
        merged: list[str | _Part] = []  # literal text, or one minted value
        for index, piece in enumerate(pieces):
            if isinstance(piece, str) and index not in absorbed:
                if merged and isinstance(merged[-1], str):
                    merged[-1] += piece
                else:
                    merged.append(piece)
                continue
            part = _Part(piece, piece) if isinstance(piece, str) else piece
            glue = merged[-1] if len(merged) > 1 and isinstance(merged[-2], _Part) else None
            if isinstance(glue, str) and _GLUE.fullmatch(glue):
                merged.pop()
                part = _Part(glue + part.first, glue + part.second)
            if merged and isinstance(merged[-1], _Part):
                merged[-1] = _Part(merged[-1].first + part.first, merged[-1].second + part.second)
            else:
                merged.append(part)
        regex = "".join(re.escape(p) if isinstance(p, str) else _wildcard(p) for p in merged)
        return cls(re.compile(regex, re.DOTALL))

    def mask(self, value: str) -> str:
        """The value with its minted parts replaced, or unchanged if it has another shape
        (then it differs where the control pair agreed, and the comparison shows it)."""
        found = self.pattern.fullmatch(value)
        if found is None:
            return value
        out, last = [], 0
        for group in range(1, (self.pattern.groups or 0) + 1):
            out += [value[last : found.start(group)], MINTED]
            last = found.end(group)
        return "".join([*out, value[last:]])


@dataclass(frozen=True, slots=True)
class MintedValues:
    """Where two plays of the same door differed: those values are minted, not restored.

    `learn(control, again)` takes two JSON values (request bodies, or any list of them)
    from the same door on two fresh agents; `masked(value)` replaces what was minted, so
    `masked(door_a) == masked(door_b)` compares everything the runtime did not mint.
    """

    shapes: dict[Path, _Shape] = field(default_factory=dict)
    wholes: frozenset[Path] = frozenset()
    """Paths whose whole value is minted (a number, or a structure that differed)."""

    @classmethod
    def learn(cls, control: Any, again: Any) -> MintedValues:
        shapes: dict[Path, _Shape] = {}
        wholes: set[Path] = set()

        def walk(a: Any, b: Any, path: Path) -> None:
            if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
                for key in a:
                    walk(a[key], b[key], (*path, str(key)))
            elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
                for index, (x, y) in enumerate(zip(a, b, strict=True)):
                    walk(x, y, (*path, index))
            elif isinstance(a, str) and isinstance(b, str):
                if a != b:
                    shapes[path] = _Shape.between(a, b)
            elif a != b or type(a) is not type(b):
                wholes.add(path)

        walk(control, again, ())
        return cls(shapes, frozenset(wholes))

    def masked(self, value: Any, path: Path = ()) -> Any:
        if path in self.wholes:
            return MINTED
        if isinstance(value, dict):
            return {key: self.masked(inner, (*path, str(key))) for key, inner in value.items()}
        if isinstance(value, list | tuple):
            return [self.masked(inner, (*path, i)) for i, inner in enumerate(value)]
        if isinstance(value, str) and path in self.shapes:
            return self.shapes[path].mask(value)
        return value

    def difference(self, door: Any, other: Any) -> str | None:
        """Where two doors' values differ once minted values are masked; None if they
        agree."""
        return _first_difference(self.masked(door), self.masked(other))

    def describe(self, limit: int = 5) -> str:
        """Where values were minted, for a failure message."""
        where = sorted({".".join(map(str, p)) for p in [*self.shapes, *self.wholes]})
        if not where:
            return "nothing was minted"
        more = f" and {len(where) - limit} more" if len(where) > limit else ""
        return "minted at " + ", ".join(where[:limit]) + more


def _wildcard(part: _Part) -> str:
    """`\\S*?` unless the controls showed whitespace inside this minted value."""
    return "(.*?)" if any(ch.isspace() for ch in part.first + part.second) else r"(\S*?)"


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two JSON values first differ, for a failure message; None if equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'the second' if key not in a else 'the first'}"
            found = _first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        return None
    return None if a == b else f"{path}: {str(a)[:160]!r} against {str(b)[:160]!r}"
