"""The law registry lint: every law tested, every marker known, no id ever lost."""

from __future__ import annotations

from pathlib import Path

from conformance.lawdoc import checks_by_law, laws_markdown
from conformance.registry import load_laws

ROOT = Path(__file__).parents[2]


def test_every_law_that_is_not_planned_has_a_test() -> None:
    tests = checks_by_law()
    untested = [
        law.id
        for law in load_laws().values()
        if not law.retired and not law.planned and not tests.get(law.id)
    ]
    assert not untested, f"laws without a test: {untested}"


def test_every_marker_names_a_registered_law() -> None:
    unknown = sorted(set(checks_by_law()) - set(load_laws()))
    assert not unknown, f"tests mark unknown law ids: {unknown}"


def test_no_law_id_ever_disappears() -> None:
    known = [
        line.strip()
        for line in (ROOT / "tests/conformance/known_law_ids.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    gone = [law_id for law_id in known if law_id not in load_laws()]
    assert not gone, f"law ids removed from the registry (retire them instead): {gone}"
    new = [law_id for law_id in load_laws() if law_id not in known]
    assert not new, f"new law ids: add them to tests/conformance/known_law_ids.txt: {new}"


def test_planned_laws_have_no_tests_yet_or_lose_the_mark() -> None:
    tests = checks_by_law()
    stale = [law.id for law in load_laws().values() if law.planned and tests.get(law.id)]
    assert not stale, f"laws marked planned that now have tests: {stale}"


def test_docs_laws_md_is_current() -> None:
    assert (ROOT / "docs/laws.md").read_text() == laws_markdown(), (
        "docs/laws.md is stale: run python -m conformance laws-doc"
    )


def test_every_law_module_runs_under_any_asyncio_mode() -> None:
    """A user's project may run pytest-asyncio in strict mode; unmarked async law tests
    would then not run at all."""
    unmarked = [
        path.name
        for path in sorted((ROOT / "conformance/laws").glob("test_*.py"))
        if "pytestmark = pytest.mark.asyncio" not in path.read_text()
    ]
    assert not unmarked, f"law modules without pytestmark = pytest.mark.asyncio: {unmarked}"
