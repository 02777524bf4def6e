"""A checkpoint continued in a separate Python process: plain JSON, nothing live."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from conformance.wire import ScriptedProvider, text
from reference_impl import Agent, make_provider
from tests.conftest import API_KEY

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from reference_impl import Agent, make_provider

    async def main(base_url, dialect, path):
        llm = make_provider(dialect, base_url=base_url, api_key="sk-child-process-key")
        agent = Agent.create(provider=llm, model="ref-model", id="booking").build()
        result = await agent.run("Make it three.", continue_from=open(path).read())
        print(result.answer)

    asyncio.run(main(*sys.argv[1:]))
    """
)


async def test_continue_in_another_process(
    loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([text("Booked for two."), text("Three it is.")])
    llm = make_provider("anthropic-messages", base_url=wire.base_url, api_key=API_KEY)
    agent = Agent.create(provider=llm, model="ref-model", id="booking").build()
    await agent.run("Book me a table for two on Friday.")
    path = tmp_path / "conversation.json"
    path.write_text(agent.checkpoint().to_json())
    child = subprocess.run(
        [sys.executable, "-c", CHILD, wire.base_url or "", "openai-chat", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "Three it is."
    continued: Any = wire.wire.last
    assert continued.dialect.value == "openai-chat"  # recorded via one API, continued via another
    assert continued.turns() == [
        ("user", "Book me a table for two on Friday."),
        ("assistant", "Booked for two."),
        ("user", "Make it three."),
    ]
