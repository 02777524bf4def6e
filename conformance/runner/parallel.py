"""The conformance run under pytest-xdist (`-n auto`, `-n 2`): workers judge, the
controller reports.

Each worker is a whole pytest session of its own: it loads the implementation, starts
its own fake provider server, its own `cmd:` adapter and hosts, and judges the tests it
is handed with its own Collector. What a judgment needs (the exception, the fake's
findings) exists only there, so the worker judges and sends the records it made on the
test's report (an extra report attribute: pytest serializes a report's attributes, and
xdist hands the rebuilt report to the controller's `pytest_runtest_logreport`). The
controller (the process without `workerinput`) keeps them in its own Collector, and is
the only process that writes the results file and the Markdown report, prints the
per-law matrix, checks the manifest and sets the exit status: one file, one verdict,
from every worker's records. At the end each worker sends, in `workeroutput`, the law
tests it collected (every worker collects them all: the controller has no collection of
its own, and owes a verdict for each), the secrets its redactor learned and the files it
wrote, so the controller's last sweep scrubs every artifact with every secret of the run.

The smoke law still comes first. The plugin sorts its tests to the front of the
collection, so they are the first handed out; and a worker about to run any other law
test waits until every selected smoke test has finished (on whichever worker), through a
folder the controller makes and names to each worker in `workerinput`. A worker that
finds the adapter broken (or given up) writes the reason there: every worker stops
before its next test, so no law is judged after the smoke law failed, as without `-n`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ..redaction import session_redactor
from ..registry import SMOKE_LAW
from ..verdicts import Outcome, TestRecord, report_reason
from ._run_state import COLLECTOR, SWEEP
from .selection import law_ids, normalized

RECORDS = "turnlaw_records"
"""The report attribute carrying a worker's records of one phase: `[{"record": <the
record as JSON>, "message": ...}]`, strings only (what execnet can carry; JSON, as the
results file, so a strict record reads back the same)."""
STOP = "turnlaw_stop"
"""The report attribute saying why no further law can be judged (adapter broken)."""
GATE = "turnlaw_gate"
"""The `workerinput` key naming the folder where workers say the smoke tests are done."""
SELECTED, SECRETS, ARTIFACTS = "turnlaw_selected", "turnlaw_secrets", "turnlaw_artifacts"
"""The `workeroutput` keys: the law tests collected, the secrets learned, files written."""
IDS = "turnlaw_ids"
"""The `workeroutput` key mapping pytest's node ids to the ids the artifacts write."""
STOP_FILE = "stop"
POLL_SECONDS = 0.05
_CONTROLLER = pytest.StashKey["Controller"]()
_WORKER = pytest.StashKey["Worker"]()


def is_worker(config: pytest.Config) -> bool:
    """An xdist worker: it runs tests and judges them; it reports nothing itself."""
    return hasattr(config, "workerinput")


def is_controller(config: pytest.Config) -> bool:
    """The xdist controller of a distributed run (as xdist decides to be one: a dist mode,
    workers to start, not a mere collection); it runs no test and reports them all."""
    if is_worker(config) or config.getoption("collectonly", default=False):
        return False
    return config.getoption("dist", default="no") != "no" and bool(
        config.getoption("tx", default=None)
    )


def start(config: pytest.Config, smoke_wait: float) -> None:
    """Register this process's side of a distributed run (nothing without one).
    `smoke_wait`: how long a worker waits for the smoke tests before it goes on anyway
    (their own deadline: a smoke test cannot take longer unless its worker died)."""
    if is_worker(config):
        worker = config.stash[_WORKER] = Worker(config, smoke_wait)
        config.pluginmanager.register(worker, "turnlaw-xdist-worker")
    elif is_controller(config):
        controller = config.stash[_CONTROLLER] = Controller(config)
        config.pluginmanager.register(controller, "turnlaw-xdist-controller")


def send_judgment(
    config: pytest.Config,
    report: pytest.TestReport,
    records: tuple[TestRecord, ...],
    stop: str | None,
) -> None:
    """On a worker: put the records of this phase (and why the run must stop) on the
    report, for the controller; and tell the other workers to stop."""
    worker = config.stash.get(_WORKER, None)
    if worker is None:
        return
    collector = config.stash[COLLECTOR]
    setattr(
        report,
        RECORDS,
        [
            {"record": r.model_dump_json(), "message": collector.messages.get(r, "")}
            for r in records
        ],
    )
    if stop is not None:
        setattr(report, STOP, stop)
        worker.announce_stop(stop)


def _done_file(folder: Path, nodeid: str) -> Path:
    return folder / (hashlib.sha256(nodeid.encode()).hexdigest()[:16] + ".done")


class Worker:
    """A worker's part: hold other law tests back until the smoke tests are done, stop
    when any worker found the adapter broken, and hand its collection, secrets and files
    to the controller at the end."""

    def __init__(self, config: pytest.Config, smoke_wait: float) -> None:
        self.config = config
        gate = getattr(config, "workerinput", {}).get(GATE)
        # a worker on another host (`--tx ssh=...`) cannot see the controller's folder:
        # it runs unheld, and only the controller's verdict says the adapter is broken
        self.gate: Path | None = Path(gate) if gate and Path(gate).is_dir() else None
        self.smoke_wait = smoke_wait
        self.smoke: list[str] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.smoke = [item.nodeid for item in session.items if SMOKE_LAW in law_ids(item)]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> bool | None:
        """A law test other than the smoke law's waits for the smoke tests; when a
        worker found the adapter broken, it is not run (it counts among the not run)."""
        if self.gate is None or not law_ids(item) or item.nodeid in self.smoke:
            return None
        self._wait_for_smoke()
        reason = self._stop_reason()
        if reason is None:
            return None
        item.session.shouldstop = reason
        return True

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        """Every phase of a smoke test is reported (and a stop announced): say so."""
        if self.gate is not None and nodeid in self.smoke:
            _done_file(self.gate, nodeid).touch()

    def _wait_for_smoke(self) -> None:
        assert self.gate is not None
        deadline = time.monotonic() + self.smoke_wait
        pending = [_done_file(self.gate, nodeid) for nodeid in self.smoke]
        while time.monotonic() < deadline and (self.gate / STOP_FILE).exists() is False:
            pending = [path for path in pending if not path.exists()]
            if not pending:
                return
            time.sleep(POLL_SECONDS)

    def _stop_reason(self) -> str | None:
        assert self.gate is not None
        try:
            return (self.gate / STOP_FILE).read_text(encoding="utf-8") or "stopped"
        except OSError:
            return None

    def announce_stop(self, reason: str) -> None:
        """Every worker stops before its next test (the first word wins). The reason is
        written whole before the stop file appears (a draft of this worker's, linked in),
        so a worker polling the folder never reads it empty or half written."""
        if self.gate is None:
            return
        draft = self.gate / f"{STOP_FILE}.{os.getpid()}"
        draft.write_text(reason, encoding="utf-8")
        try:
            os.link(draft, self.gate / STOP_FILE)  # fails if another worker's is there
        except FileExistsError:
            pass
        finally:
            draft.unlink(missing_ok=True)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Inside xdist's own sessionfinish wrapper, so it travels with `workeroutput`."""
        output: dict[str, Any] = getattr(self.config, "workeroutput", {})
        collector = self.config.stash.get(COLLECTOR, None)
        if collector is not None:
            output[SELECTED] = {nodeid: list(laws) for nodeid, laws in collector.selected.items()}
            output[IDS] = dict(collector.ids)
        output[SECRETS] = sorted(session_redactor(self.config).secrets)
        sweep = self.config.stash.get(SWEEP, None)
        output[ARTIFACTS] = [str(path) for path in sweep.paths] if sweep is not None else []


class Controller:
    """The controller's part: every worker's records into the one Collector, the
    collection and the secrets of each worker at its end, and the folder workers gate on."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.gate = Path(tempfile.mkdtemp(prefix="turnlaw-xdist-"))
        self.selection_from_worker = False
        self.crashed: dict[str, tuple[str, float]] = {}
        """nodeid -> what xdist said of the worker that died running it, until its laws
        are known (a worker sends its selection only at its end)."""
        config.add_cleanup(lambda: shutil.rmtree(self.gate, ignore_errors=True))

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[GATE] = str(self.gate)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """What the run owes a verdict for, until a worker says which laws each checks:
        were every worker to die first, the tests still count as not run."""
        collector = self.config.stash[COLLECTOR]
        if not self.selection_from_worker and not collector.selected:
            collector.select(dict.fromkeys((normalized(nodeid) for nodeid in ids), ()))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        collector = self.config.stash[COLLECTOR]
        sent = getattr(report, RECORDS, None)
        if sent:
            records = [
                (TestRecord.model_validate_json(entry["record"]), str(entry.get("message", "")))
                for entry in sent
            ]
            collector.receive(report.nodeid, records)
            if report.failed:
                collector.failed_reports += 1
        if getattr(report, STOP, None):
            collector.adapter_broken = True
        if report.when not in ("setup", "call", "teardown"):
            # xdist's report of a test whose worker died: it never says it is done
            _done_file(self.gate, report.nodeid).touch()
            # and whatever it reported before (a PASS, then a crash in its teardown) is
            # not its verdict: each of its laws gets an ERROR
            self.crashed[report.nodeid] = (report_reason(report.longrepr), report.duration)
            self._charge_crashes()

    def _charge_crashes(self) -> None:
        collector = self.config.stash[COLLECTOR]
        for nodeid, (said, duration) in list(self.crashed.items()):
            laws = collector.laws_of(nodeid)
            if not laws:
                continue  # not known yet; unknown at the end, the test counts as not run
            detail = collector.scrub(f"the worker running this test died: {said}")[-4000:]
            made = [
                (
                    TestRecord(
                        law=law_id,
                        test=collector.test_id(nodeid),
                        outcome=Outcome.ERROR,
                        duration=duration,
                        detail=detail,
                    ),
                    "",
                )
                for law_id in laws
            ]
            collector.receive(nodeid, made)
            collector.failed_reports += 1
            del self.crashed[nodeid]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        output: Mapping[str, Any] = getattr(node, "workeroutput", None) or {}
        collector = self.config.stash[COLLECTOR]
        collector.learn_ids(output.get(IDS) or {})
        selected = output.get(SELECTED)
        if selected is not None and not self.selection_from_worker:
            collector.select({nodeid: tuple(laws) for nodeid, laws in selected.items()})
            self.selection_from_worker = True
        self._charge_crashes()
        redactor = session_redactor(self.config)
        for secret in output.get(SECRETS, ()):
            redactor.learn(secret)
        sweep = self.config.stash[SWEEP]
        for path in output.get(ARTIFACTS, ()):
            sweep.add(Path(path))


__all__ = [
    "ARTIFACTS",
    "GATE",
    "IDS",
    "RECORDS",
    "SECRETS",
    "SELECTED",
    "STOP",
    "is_controller",
    "is_worker",
    "send_judgment",
    "start",
]
