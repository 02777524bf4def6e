"""No key reaches an artifact: a runtime that leaks every key it holds, run through the
suite with every artifact switched on, leaves none of them in any file or in the terminal.

The runtime (`leaky_runtime.py`) sends four keys the suite never gave it (bearer, Basic
proxy password, organization header, query parameter) and holds a fifth it only read from
its environment; it prints, logs, quotes to the model and raises all of them. Each key is
looked for in every form `key_forms` knows, and inside the Basic token. Run in-process and
as a `cmd:` adapter (whose stderr log is an artifact too). Each (key, artifact) pair is
one input of the tally; a key found is a leak.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from tests.hostile import leaky_runtime
from tests.hostile.budget import TALLY
from tests.hostile.key_forms import key_forms
from tests.suite_args import PLUGIN_ARGS

ENV_KEY = "tl-env/ONLY+KEY=never-sent_2b7c"
"""Held only in the runtime's environment: no request carries it, so only the run's own
knowledge of its environment can scrub it. `/`, `+` and `=` make its escaped forms differ."""

LAWS = [
    "conformance.laws.test_smoke",
    "conformance.laws.test_run",
    "conformance.laws.test_continuation",
]
ARTIFACT_OPTIONS = {
    "results": "results.jsonl",
    "report-md": "report.md",
    "junitxml": "junit.xml",
    "record": "wire",
    "repro-dir": "repro",
    "adapter-stderr": "adapter-stderr.log",
}
"""Every artifact a run can write, by option, and the name it is written under."""


def artifacts(folder: Path, run: pytest.RunResult) -> dict[str, str]:
    """Everything the run wrote, by name: each file under `folder`, and the terminal."""
    found = {
        str(path.relative_to(folder)): path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
    found["terminal (stdout)"] = run.stdout.str()
    found["terminal (stderr)"] = run.stderr.str()
    return found


@pytest.mark.parametrize(
    "impl",
    [
        "tests.hostile.leaky_runtime:implementation",
        f"cmd:{sys.executable} -m tests.hostile.leaky_runtime",
    ],
    ids=["in-process", "stdio"],
)
def test_no_key_the_runtime_leaks_reaches_any_artifact(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, impl: str
) -> None:
    monkeypatch.setenv(leaky_runtime.ENV_VAR, ENV_KEY)
    monkeypatch.chdir(Path(__file__).parents[2])  # the cmd: adapter imports tests.hostile
    pytester.makeini("[pytest]\nasyncio_mode = auto\n")
    out = tmp_path / "artifacts"
    options = [*PLUGIN_ARGS, "--dialects=openai-chat,anthropic-messages", f"--impl={impl}"]
    options += [f"--{option}={out / name}" for option, name in ARTIFACT_OPTIONS.items()]
    run = pytester.runpytest(*options, "-rA", "--pyargs", *LAWS)  # -rA: output to the terminal
    written = artifacts(out, run)
    # the run did fail, with the keys in its evidence: otherwise nothing was tested
    assert run.ret == 1, run.stdout.str()[-2000:]
    assert {"results.jsonl", "report.md", "junit.xml"} <= set(written), sorted(written)
    assert any(name.startswith("repro/") for name in written), sorted(written)
    assert any(name.startswith("wire/") for name in written), sorted(written)
    keys = {**leaky_runtime.SENT, "environment": ENV_KEY, "basic-token": leaky_runtime.BASIC_TOKEN}
    leg = "stdio" if impl.startswith("cmd:") else "in-process"
    target = f"secrets: artifacts of a leaky run ({leg})"
    leaks = []
    for name, text in written.items():
        for which, key in keys.items():
            shown = [form for form in key_forms(key) if form in text]
            TALLY.add(target, "leak" if shown else "accepted")
            if shown:
                leaks.append(f"{name}: the {which} key ({shown[0]!r})")
    assert not leaks, "keys reached artifacts:\n" + "\n".join(leaks)
