"""The catalog stays sound while reference_impl/ changes: every snippet still occurs
exactly once, ids are unique, files exist, and no two mutants are one."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.mutants import DOORS, Mutant, catalog_problems, load_mutants
from tests.mutants.catalog import law_families

MUTANTS = load_mutants()


def test_the_catalog_is_sound() -> None:
    assert catalog_problems(MUTANTS) == []


def test_enough_mutants_spread_over_every_family_and_door() -> None:
    counted = [m for m in MUTANTS if m.equivalent is None]
    assert len(counted) >= 60
    families = Counter(m.family for m in MUTANTS)
    # seed 003's session model is guarded by the kill run's rogues of its doors (and a
    # few mutants); every family of seed 000, hosting included, has mutants of its own
    assert law_families(sessions=False) - {"smoke"} <= set(families), families
    assert set(m.door for m in MUTANTS) == DOORS


def _one(tmp_path: Path, text: str, **changes: Any) -> list[str]:
    (tmp_path / "reference_impl").mkdir(exist_ok=True)
    (tmp_path / "reference_impl" / "x.py").write_text(text, encoding="utf-8")
    base = Mutant("m", "reference_impl/x.py", "a = 1", "a = 2", "run", "run", "b")
    return catalog_problems([replace(base, **changes)], tmp_path)


@pytest.mark.parametrize(
    ("text", "changes", "problem"),
    [
        ("a = 1\na = 1\n", {}, "occurs 2 times"),
        ("b = 1\n", {}, "occurs 0 times"),
        ("a = 1\n", {"file": "reference_impl/y.py"}, "does not exist"),
        ("a = 1\n", {"family": "nope"}, "no law family"),
        ("a = 1\n", {"door": "nope"}, "door 'nope'"),
        ("a = 1\n", {"new": "a = 1"}, "`new` is `old`"),
        ("a = 1\n", {"gap": "nope: x"}, "gap class 'nope'"),
        ("a = 1\n", {"modules": ("test_nope_*",)}, "match no law module"),
    ],
)
def test_each_problem_is_found(
    tmp_path: Path, text: str, changes: dict[str, str], problem: str
) -> None:
    found = _one(tmp_path, text, **changes)
    assert any(problem in line for line in found), found


def test_two_mutants_with_one_source_and_one_id_are_found(tmp_path: Path) -> None:
    (tmp_path / "reference_impl").mkdir()
    (tmp_path / "reference_impl" / "x.py").write_text("a = 1\nb = 1\n", encoding="utf-8")
    base = Mutant("m", "reference_impl/x.py", "a = 1\n", "a = 2\n", "run", "run", "b")
    twins = [
        base,
        replace(base, id="n", old="a = 1\nb", new="a = 2\nb"),
        replace(base, old="b = 1", new="b = 3"),
    ]
    found = catalog_problems(twins, tmp_path)
    assert any("the id is used twice" in line for line in found), found
    assert any("produces the same source as m" in line for line in found), found


def test_a_mutants_modules_narrow_its_run_to_the_law_modules_they_name() -> None:
    base = Mutant("m", "reference_impl/x.py", "a = 1", "a = 2", "run", "run", "b")
    assert base.targets == ("conformance.laws",)
    narrowed = replace(base, modules=("test_sessions_*", "test_failure"))
    assert "conformance.laws.test_sessions_turns" in narrowed.targets
    assert "conformance.laws.test_failure" in narrowed.targets
    assert not [t for t in narrowed.targets if not t.startswith("conformance.laws.test_")]


def test_every_session_runtime_mutant_runs_the_session_laws() -> None:
    """Only the session door reaches reference_impl/sessions/, and the test_sessions_*
    modules are all its laws: a mutant there narrowed to fewer could miss its killer."""
    session = [m for m in MUTANTS if m.file.startswith("reference_impl/sessions/")]
    assert session
    assert all(m.modules == ("test_sessions_*",) for m in session), [m.id for m in session]


def test_every_host_mutant_runs_the_hosting_laws() -> None:
    """Only the hosting door (a host process) reaches reference_impl/hosting/, and the
    test_hosting_* modules are all its laws: a host mutant narrowed to fewer could miss
    its killer, and one running the whole suite would spend its time on laws that start
    no host."""
    host = [m for m in MUTANTS if m.file.startswith("reference_impl/hosting/")]
    assert len(host) >= 15
    assert all("test_hosting_*" in m.modules for m in host), [m.id for m in host]
    assert all(m.family == "hosting" for m in host), [m.id for m in host]
