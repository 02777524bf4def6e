"""`python -m conformance replay FILE (--impl SPEC | --impl-from-file)`: replay a stored
failing case.

It runs exactly the stored test (same module, same parameters, same dialect and
Hypothesis profile) in a fresh pytest process against `--impl`, with the stored shrunk
example when there is one, and prints the verdict per law next to the recorded one. For
a test that is not property-based it also says whether the fake saw the same wire as in
the recording. Exit status: 0 when every law passes on replay, 1 when one does not, 2
when the file or the stored test cannot be used (its test changed, its Hypothesis
profile is unknown, its stored example is from another Hypothesis version or damaged).

A repro file is data someone may have sent you, and both `cmd:...` and `module:attr`
run code. So the implementation it names runs only when you pass `--impl-from-file`,
which prints it before running it; and the only module a file can make replay load is a
law test module of this suite, found on disk (`conformance/laws/test_*.py`) and hashed,
never imported here.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .._run import pytest_args
from ..runner.profiles import profile_problem
from ..verdicts import Outcome, ResultsFileError, read_results
from .hypothesis_examples import example_problem
from .model import ReproError, ReproFile, TestRef, load_repro, source_sha256

REPLAY_TIMEOUT = 600.0


@dataclass(frozen=True)
class Verdict:
    outcomes: dict[str, Outcome]
    details: dict[str, str]
    same_wire: bool | None
    output: str

    @property
    def passed(self) -> bool:
        return bool(self.outcomes) and all(o is Outcome.PASS for o in self.outcomes.values())


def law_test_file(test: TestRef) -> Path:
    """The stored test's source file: a law test module of this suite, unchanged since
    the failure was stored. Found by its spec, so nothing the file names is imported."""
    laws = importlib.util.find_spec("conformance.laws")
    package = Path(laws.origin).parent if laws is not None and laws.origin else None
    try:
        spec = importlib.util.find_spec(test.module)
    except (ImportError, ValueError) as error:
        raise ReproError(f"the stored test's module {test.module} is gone: {error}") from error
    origin = Path(spec.origin) if spec is not None and spec.origin else None
    if origin is None or package is None or origin.resolve().parent != package.resolve():
        raise ReproError(
            f"test.module: {test.module} is not a law test module of this suite "
            "(conformance/laws/test_*.py)"
        )
    if source_sha256(origin) != test.source_sha256:
        raise ReproError(
            f"{test.module} changed since this failure was stored: its shrunk example "
            "may not mean the same any more. Rerun the suite to get a fresh repro file."
        )
    return origin


def replay_problem(repro: ReproFile) -> str | None:
    """What in the file the replay's pytest or Hypothesis would refuse (None: nothing):
    a Hypothesis profile this suite does not register, or a stored example Hypothesis
    cannot play here. Each makes the file unusable (exit 2), said before anything runs."""
    if repro.hypothesis_profile:
        problem = profile_problem(repro.hypothesis_profile)
        if problem is not None:
            return f"hypothesis_profile: {problem}"
    if repro.example is not None:
        return example_problem(repro.example)
    return None


def replay_arguments(
    repro: ReproFile,
    repro_path: Path,
    folder: Path,
    *,
    impl: str,
    timeout_multiplier: float = 1.0,
    validate_protocol: bool = False,
) -> list[str]:
    """The pytest command line of the replay, after checking the stored test."""
    test_file = law_test_file(repro.test)
    return [
        sys.executable,
        "-m",
        "pytest",
        *pytest_args(
            impl,
            select=[f"{test_file}::{repro.test.name}"],
            dialects=None if repro.dialect is None else repro.dialect.value,
            profile=repro.hypothesis_profile or None,
            seed=repro.hypothesis_seed or None,
            results=folder / "results.jsonl",
            repro_dir=folder / "repro",
            record=folder / "wire",
            timeout_multiplier=timeout_multiplier,
            options=[
                *("-p", "conformance.replay.replaying", "-p", "no:cacheprovider", "-q"),
                *("--replay-file", str(repro_path)),
                *(["--validate-protocol"] if validate_protocol else []),
            ],
        ),
    ]


def replay(
    repro: ReproFile,
    repro_path: Path,
    *,
    impl: str,
    timeout_multiplier: float = 1.0,
    validate_protocol: bool = False,
) -> Verdict:
    """Run the stored test once against `impl` and collect its per-law outcomes."""
    with tempfile.TemporaryDirectory(prefix="turnlaw-replay-") as scratch:
        folder = Path(scratch)
        args = replay_arguments(
            repro,
            repro_path,
            folder,
            impl=impl,
            timeout_multiplier=timeout_multiplier,
            validate_protocol=validate_protocol,
        )
        done = subprocess.run(
            args, capture_output=True, text=True, timeout=REPLAY_TIMEOUT * timeout_multiplier
        )
        output = done.stdout + done.stderr
        results_path = folder / "results.jsonl"
        if not results_path.exists():
            raise ReproError(f"the replay run did not start:\n{output[-3000:]}")
        try:
            results = read_results(results_path)
        except ResultsFileError as error:  # the child died writing it: say so, exit 2
            raise ReproError(f"the replay run left an unreadable results file: {error}") from error
        outcomes = results.per_law()
        details = {record.law: record.detail for record in results.records if record.detail}
        recordings = list((folder / "wire").glob("*.json"))
        same_wire = None
        if repro.example is None and len(recordings) == 1 and repro.wire:
            same_wire = json.loads(recordings[0].read_text(encoding="utf-8")) == repro.wire
    return Verdict(outcomes=outcomes, details=details, same_wire=same_wire, output=output)


def chosen_implementation(
    repro: ReproFile, path: Path, impl: str | None, impl_from_file: bool
) -> str:
    """`--impl`, or with `--impl-from-file` the file's own; never the file's silently."""
    if impl is not None:
        return impl
    if impl_from_file:
        return repro.implementation
    raise ReproError(
        f"{path} was recorded against --impl {shlex.quote(repro.implementation)}, and replay "
        "never runs an implementation a file names on its own: both cmd: and module:attr "
        "run code. Name the implementation to replay against with --impl SPEC, or pass "
        "--impl-from-file to run the file's, which is printed first."
    )


def replay_main(
    path: Path,
    *,
    impl: str | None,
    impl_from_file: bool = False,
    timeout_multiplier: float = 1.0,
    validate_protocol: bool = False,
) -> int:
    try:
        repro = load_repro(path)
        law_test_file(repro.test)
        problem = replay_problem(repro)
        if problem is not None:
            raise ReproError(f"{path}: this file cannot be used: {problem}")
        against = chosen_implementation(repro, path, impl, impl_from_file)
        if impl is None:
            print(
                f"turnlaw replay: --impl-from-file: running the implementation {path} names:\n"
                f"  --impl {shlex.quote(against)}",
                flush=True,
            )
        verdict = replay(
            repro,
            path,
            impl=against,
            timeout_multiplier=timeout_multiplier,
            validate_protocol=validate_protocol,
        )
    except (ReproError, subprocess.TimeoutExpired) as error:
        print(f"turnlaw replay: {error}", file=sys.stderr)
        return 2
    example = (
        f"the shrunk Hypothesis example ({len(repro.example.steps)} noted lines)"
        if repro.example
        else "the whole test (no shrunk example stored: not property-based, or it failed on "
        "an explicit or pinned example)"
    )
    print(f"replay of {path}")
    print(f"  test:     {repro.test.module}::{repro.test.name}")
    print(f"  replayed: {example}")
    print(f"  recorded: {repro.outcome.value} against {repro.implementation}")
    print(f"  against:  {against}")
    if not verdict.outcomes:
        print("  verdict:  nothing ran (the stored test was not collected)")
        print(verdict.output[-3000:])
        return 2
    for law, outcome in verdict.outcomes.items():
        print(f"  verdict:  {outcome.value:<15} {law}")
    if verdict.same_wire is not None:
        print(
            f"  wire:     {'identical to' if verdict.same_wire else 'differs from'} the recording"
        )
    for law, detail in verdict.details.items():
        if verdict.outcomes[law] is not Outcome.PASS:
            print(f"\n{law}:\n{detail}")
    return 0 if verdict.passed else 1
