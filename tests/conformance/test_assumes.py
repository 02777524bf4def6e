"""`assumes` in laws.toml: which laws a law's tests rest on, checked as the registry loads."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conformance.lawdoc import laws_markdown
from conformance.registry import SMOKE_LAW, Law, Level, assumption_problem, load_laws

ROOT = Path(__file__).parents[2]


def laws(**assumes: tuple[str, ...]) -> dict[str, Law]:
    """A registry of made-up laws `a.x`, `b.x`, ... with the given assumptions."""
    made = {
        law_id: Law(id=law_id, level=Level.MUST, source="s", quote="q", assumes=assumed)
        for law_id, assumed in ((k.replace("_", "."), v) for k, v in assumes.items())
    }
    return {SMOKE_LAW: Law(id=SMOKE_LAW, level=Level.MUST, source="s", quote="q"), **made}


def test_the_shipped_registry_has_sound_assumptions() -> None:
    assert assumption_problem(load_laws()) is None
    assert load_laws()["checkpoint.no-trim"].assumes == ("continue-from.any-conversation",)
    assert load_laws()["pending.refusal-kind"].assumes == (
        "pending.refuses-new-message",
        "pending.resume-continues",
    )


@pytest.mark.parametrize(
    ("registry", "problem"),
    [
        (laws(a_x=("b.x",)), "law 'a.x' assumes unknown law 'b.x'"),
        (laws(a_x=("a.x",)), "law 'a.x' assumes itself"),
        (laws(a_x=(SMOKE_LAW,)), "every law assumes it, list none"),
        (laws(a_x=("b.x",), b_x=("c.x",), c_x=("a.x",)), "cycle: a.x -> b.x -> c.x -> a.x"),
    ],
    ids=["unknown", "self", "smoke", "cycle"],
)
def test_a_wrong_assumption_is_named(registry: dict[str, Law], problem: str) -> None:
    found = assumption_problem(registry)
    assert found is not None and problem in found


def test_a_chain_without_a_loop_is_fine() -> None:
    assert assumption_problem(laws(a_x=("b.x", "c.x"), b_x=("c.x",), c_x=())) is None


def test_docs_laws_md_lists_what_a_law_assumes() -> None:
    doc = laws_markdown()
    entry = doc.split("## `pending.refusal-kind`")[1].split("## ")[0]
    assert "- assumes: `pending.refuses-new-message`, `pending.resume-continues`" in entry


def premises_by_test() -> list[tuple[str, list[str], str]]:
    """(test, the laws it is marked with, a law a premise() in it names), from source."""
    found: list[tuple[str, list[str], str]] = []
    for path in sorted((ROOT / "conformance/laws").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            for t in n.targets
            if isinstance(t, ast.Name) and isinstance(n.value.value, str)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef):
                continue
            marked = [
                str(a.value)
                for d in node.decorator_list
                if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "law"
                for a in d.args
                if isinstance(a, ast.Constant)
            ]
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == "premise"
                    and call.args
                ):
                    first = call.args[0]
                    if isinstance(first, ast.Constant):
                        found.append((f"{path.name}::{node.name}", marked, str(first.value)))
                    elif isinstance(first, ast.Name) and first.id in names:
                        found.append((f"{path.name}::{node.name}", marked, names[first.id]))
    return found


def test_every_premise_names_a_law_the_test_s_laws_assume() -> None:
    """A premise() is a statement of another law: `assumes` must say so, or the report
    cannot tie a FAIL to its root cause. (Premises checked in a helper the test calls are
    seen where the helper is marked, which is nowhere: they are not checked here.)"""
    registry = load_laws()
    unlisted = [
        f"{test}: premise {law_id!r} is not in the assumes of {marked}"
        for test, marked, law_id in premises_by_test()
        if marked
        and law_id != SMOKE_LAW  # everyone's premise, listed by no law
        and not any(law_id in registry[m].assumes for m in marked)
    ]
    assert not unlisted, "\n".join(unlisted)
