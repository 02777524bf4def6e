"""The README's main job works, and the recording it produces is the committed one."""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.wire_demo import main

RECORDING = Path(__file__).parents[2] / "recordings" / "wire-demo.json"


async def test_demo_runs_and_matches_the_committed_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    provider = await main(tmp_path / "wire-demo.json")
    printed = capsys.readouterr().out
    assert "provider verified" in printed
    assert len(provider.wire.requests) == 7
    assert provider.wire.requests[-1].user_texts() == [
        "Book me a table for two on Friday.",
        "Make it three.",
    ]
    produced = (tmp_path / "wire-demo.json").read_text()
    assert produced == RECORDING.read_text(), (
        "recordings/wire-demo.json is stale: regenerate it with `nox -s demo`"
    )
