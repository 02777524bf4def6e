"""How long a save and a load take on a 20-turn checkpoint: the numbers the hosting
issue asks for (a hosted turn persists before it replies, so a save is on every turn's
critical path). Not a test: run `python -m tests.store.timing [DIR]`."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reference_impl.checkpoint import AgentRunCheckpoint
from reference_impl.conversation import ToolCall, Turn
from reference_impl.store import SessionStore, memory_sessions, sqlite_sessions

ROUNDS = 400


def twenty_turns() -> str:
    """A checkpoint of 20 user turns, each answered, every fourth through a tool call."""
    history: list[Turn] = []
    for n in range(20):
        history.append(Turn(role="user", text=f"question {n}: " + "words " * 30))
        if n % 4 == 0:
            call = ToolCall(id=f"call-{n}", name="lookup", arguments={"query": f"q{n}", "k": 5})
            history.append(Turn(role="assistant", tool_calls=(call,)))
            history.append(Turn(role="tool", text="result " * 40, tool_call_id=f"call-{n}"))
        history.append(Turn(role="assistant", text=f"answer {n}: " + "prose " * 60))
    return AgentRunCheckpoint(history=tuple(history)).model_dump_json()


def percentiles(action: Callable[[int], object]) -> tuple[float, float]:
    times = []
    for n in range(ROUNDS):
        start = time.perf_counter()
        action(n)
        times.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(times, n=100)
    return cuts[49], cuts[98]


def measure(name: str, store: SessionStore, checkpoint: str) -> None:
    save = percentiles(lambda n: store.save(f"s{n % 50}", checkpoint, owner="o"))
    load = percentiles(lambda n: store.load(f"s{n % 50}"))
    print(
        f"{name:<22} save p50 {save[0]:.3f} ms p99 {save[1]:.3f} ms | "
        f"load p50 {load[0]:.3f} ms p99 {load[1]:.3f} ms"
    )
    store.close()


def main() -> None:
    checkpoint = twenty_turns()
    print(f"20-turn checkpoint: {len(checkpoint)} bytes, {ROUNDS} rounds each")
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    measure("memory_sessions", memory_sessions(), checkpoint)
    measure(f"sqlite_sessions {folder}", sqlite_sessions(folder / "timing.db"), checkpoint)


if __name__ == "__main__":
    main()
