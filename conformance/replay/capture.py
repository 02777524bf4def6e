"""Writing a repro file when a law test fails (loaded by conformance.runner.plugin).

`--repro-dir DIR` receives `<law-id>-<short-hash>.json` for every test that failed after
the expectation manifest was applied (a known failure is not news), and the failure
report ends with the command that replays it.

Without `--repro-dir`, repro files go beside the run's other artifacts: `repro/` in the
folder of `--results` (or of `--report-md`). A run that writes neither keeps them in a
fresh temporary folder, named in each replay command: the suite is run from the user's
project, whose root is not the suite's to fill.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from pathlib import Path
from typing import Any

import pytest

from .. import __version__
from ..redaction import session_redactor
from ..runner._run_state import COLLECTOR, SWEEP
from ..runner.selection import law_ids
from ..verdicts import Outcome
from ..wire import ScriptedProvider
from .counters import counter_values
from .hypothesis_examples import extract_example
from .model import LAW_MODULE_PATTERN, ReproFile, TestRef, source_sha256

WORTH_REPLAYING = {Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT}
_COUNTERS = pytest.StashKey[dict[str, int]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("turnlaw", "turnlaw conformance suite")
    group.addoption(
        "--repro-dir",
        type=Path,
        default=None,
        help="write a replayable repro file for each failing law test here (default: repro/ "
        "beside --results or --report-md, else a temporary folder)",
    )


_TEMPORARY = pytest.StashKey[Path]()


def repro_folder(config: pytest.Config) -> Path:
    """Where this run's repro files go: `--repro-dir`, else `repro/` beside the results
    file (or the Markdown report), else one temporary folder for the run."""
    chosen: Path | None = config.getoption("--repro-dir")
    if chosen is not None:
        return chosen
    for option in ("--results", "--report-md"):
        artifact: Path | None = config.getoption(option, default=None)
        if artifact is not None:
            return artifact.parent / "repro"
    if _TEMPORARY not in config.stash:
        config.stash[_TEMPORARY] = Path(tempfile.mkdtemp(prefix="turnlaw-repro-"))
    return config.stash[_TEMPORARY]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture: where the test module's counters stand as this test starts."""
    if law_ids(item):
        item.stash[_COUNTERS] = counter_values(getattr(item, "module", None))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Outermost: it sees the report after the runner classified it and applied the
    manifest."""
    report = yield
    if report.when == "call" and report.failed:
        path = write_repro(item, call, report)
        if path is not None:
            command = replay_command(path, str(item.config.getoption("--impl")))
            longrepr = report.longrepr
            if hasattr(longrepr, "addsection"):
                longrepr.addsection("turnlaw replay", command)
            else:
                report.longrepr = f"{longrepr}\n\nturnlaw replay: {command}"
    return report


def replay_command(path: Path, impl: str) -> str:
    return shlex.join(["python", "-m", "conformance", "replay", str(path), "--impl", impl])


def write_repro(item: pytest.Item, call: pytest.CallInfo[None], report: Any) -> Path | None:
    """Store the failing case; None when the test checks no law or did not really fail."""
    laws = law_ids(item)
    collector = item.config.stash.get(COLLECTOR, None)
    if not laws or collector is None:
        return None
    # this test's own record, under the law it was charged to (a LawViolation names one
    # of its laws; a missing door, the door's law)
    test_id = collector.test_id(item.nodeid)
    mine = [
        (law, records[-1])
        for law in [*laws, *(law for law in collector.by_law if law not in laws)]
        if (records := collector.by_law.get(law)) and records[-1].test == test_id
    ]
    charged = [(law, record) for law, record in mine if record.outcome in WORTH_REPLAYING]
    if not charged:
        return None
    law, record = charged[0]
    module = getattr(item, "module", None)
    if module is None or not getattr(module, "__file__", None):
        return None
    if not re.fullmatch(LAW_MODULE_PATTERN, module.__name__):
        # a law-marked test of the user's own: a replay imports only the suite's law
        # modules (a repro file must not name code to run), so there is nothing to write
        return None
    callspec = getattr(item, "callspec", None)
    dialect = callspec.params.get("dialect") if callspec is not None else None
    fake = getattr(item, "funcargs", {}).get("fake")
    config = item.config
    scrub = session_redactor(config).scrub_text  # the wire export is scrubbed already
    example = extract_example(call.excinfo.value) if call.excinfo else None
    if example is not None:
        example = example.model_copy(update={"steps": [scrub(step) for step in example.steps]})
    repro = ReproFile(
        law=law,
        laws=laws,
        test=TestRef(
            module=module.__name__,
            name=item.name,
            nodeid=test_id,
            source_sha256=source_sha256(module.__file__),
        ),
        implementation=scrub(str(config.getoption("--impl"))),
        dialect=dialect,
        hypothesis_profile=_option(config, "hypothesis_profile"),
        hypothesis_seed=_option(config, "hypothesis_seed"),
        outcome=record.outcome,
        failure=record.detail[-4000:],  # scrubbed by the collector
        example=example,
        wire=fake.wire.export_data() if isinstance(fake, ScriptedProvider) else [],
        counters=item.stash.get(_COUNTERS, {}),
        suite_version=__version__,
    )
    folder = repro_folder(config)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / repro.file_name()
    path.write_text(repro.model_dump_json(indent=2) + "\n", encoding="utf-8")
    config.stash[SWEEP].add(path)  # scrubbed again at the end, with every key learned by then
    return path


def _option(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(name, default=None)
    return None if value is None else str(value)
