"""A short reply deadline only around the call that is meant to miss it.

A connector test that needs a TIMEOUT sends a request its adapter never answers: the hang
is the event, so the deadline may be short. Every other call (creating the agent; the
first call after a stop, which starts a fresh process and replays `start` and
`agent.create` to it) keeps the generous deadline the adapter was started with, so a busy
machine cannot make a call that must answer miss its deadline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

from conformance.stdio import StdioImplementation


@contextmanager
def deadline_for_the_hang(implementation: StdioImplementation, seconds: float) -> Iterator[None]:
    """Within the block, each reply is due `seconds` after its request; after it, as before."""
    generous = implementation.options
    implementation.options = dataclasses.replace(generous, reply_timeout=seconds)
    try:
        yield
    finally:
        implementation.options = generous
