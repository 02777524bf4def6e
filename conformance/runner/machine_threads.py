"""Where the stateful laws run their (synchronous) Hypothesis state machines.

Off the event loop, which the machine's steps call back into, and on a few long-lived
threads rather than a new one per test: Hypothesis seeds the PRNG of each thread it
first runs in after a full `gc.collect()` (`register_random`), 0.1-0.3 s over the
suite's heap, and `asyncio.to_thread` under pytest-asyncio's per-test loop made a new
thread for every stateful test.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="turnlaw-state-machine")
"""Several, though tests run one at a time: a machine a timed-out test left running
keeps its thread, and the next test's machine must not queue behind it."""


async def off_the_loop(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`asyncio.to_thread`, on the suite's long-lived threads: the caller's context
    variables go along, and its exception comes back."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_THREADS, call)
