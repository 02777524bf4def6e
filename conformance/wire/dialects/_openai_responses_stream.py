"""Streamed Responses output: the event sequence the SDK's accumulator replays.

Split from `openai_responses` only to keep each module short; the codec owns the order
of items and the final Response, this module owns the per-item event choreography.
"""

from __future__ import annotations

from itertools import count
from typing import Any

from ._base import SseEvent, halves, text_pieces


def text_part(text: str) -> dict[str, Any]:
    """An output_text part; `annotations` and `logprobs` are required by the SDK models."""
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


class EventLog:
    """Numbers events as they are emitted: the SDK orders and resumes streams by it."""

    def __init__(self) -> None:
        self.events: list[SseEvent] = []
        self._seq = count()

    def emit(self, kind: str, **fields: Any) -> None:
        payload = {"type": kind, "sequence_number": next(self._seq), **fields}
        self.events.append(SseEvent.of(payload, event=kind))

    def message(self, index: int, item: dict[str, Any]) -> None:
        """Open the item and each part empty, so the SDK's snapshot grows only by deltas."""
        where = self._open(index, item, content=[])
        for part, content in enumerate(item["content"]):
            text: str = content["text"]
            at = {**where, "content_index": part}
            self.emit("response.content_part.added", **at, part=text_part(""))
            for piece in text_pieces(text):
                self.emit("response.output_text.delta", **at, delta=piece, logprobs=[])
            self.emit("response.output_text.done", **at, text=text, logprobs=[])
            self.emit("response.content_part.done", **at, part=text_part(text))
        self.emit("response.output_item.done", output_index=index, item=item)

    def call(self, index: int, item: dict[str, Any]) -> None:
        """Open the call with empty arguments: the SDK appends each delta to them."""
        arguments: str = item["arguments"]
        where = self._open(index, item, arguments="")
        for piece in halves(arguments):
            self.emit("response.function_call_arguments.delta", **where, delta=piece)
        self.emit("response.function_call_arguments.done", **where, arguments=arguments)
        self.emit("response.output_item.done", output_index=index, item=item)

    def _open(self, index: int, item: dict[str, Any], **empty: Any) -> dict[str, Any]:
        """Announce `item` in progress with `empty` for its content; what its deltas name."""
        added = {**item, "status": "in_progress", **empty}
        self.emit("response.output_item.added", output_index=index, item=added)
        return {"item_id": item["id"], "output_index": index}
