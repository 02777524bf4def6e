"""Which tests check which law, and docs/laws.md generated from the registry.

Markers are read from the law modules' source (`@pytest.mark.law("id", ...)`), not by
running pytest, so the registry lint and the docs cost nothing to check.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from importlib import resources

from .registry import load_capabilities, load_laws

LAWS_DOC = "docs/laws.md"
"""Where `python -m conformance laws-doc` writes the doc, relative to the repository."""


def checks_by_law() -> dict[str, list[str]]:
    """law id -> ["test_module.py::test_name", ...] for every marker in conformance/laws."""
    found: dict[str, list[str]] = defaultdict(list)
    folder = resources.files("conformance").joinpath("laws")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not (entry.name.startswith("test_") and entry.name.endswith(".py")):
            continue
        tree = ast.parse(entry.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for law_id in _marked_laws(node):
                    found[law_id].append(f"{entry.name}::{node.name}")
    return dict(found)


def _marked_laws(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    ids: list[str] = []
    for decorator in node.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "law"
        ):
            ids += [str(a.value) for a in decorator.args if isinstance(a, ast.Constant)]
    return ids


def laws_markdown(tests: dict[str, list[str]] | None = None) -> str:
    """docs/laws.md: every law with its level, source, quote and the tests that check it
    (`tests`: law id -> its tests; read from the law modules when not given)."""
    tests = checks_by_law() if tests is None else tests
    lines = [
        "# The laws",
        "",
        "Generated from `conformance/laws.toml` by `python -m conformance laws-doc`; a test",
        "keeps this file in sync. Ids are stable and never reused.",
        "",
    ]
    for law in load_laws().values():
        status = " (retired)" if law.retired else ""
        lines += [_heading(law.id, law.level.value, status), "", f"> {law.quote}", ""]
        lines.append(f"- source: {law.source}")
        needs = ", ".join(f"`{c.value}`" for c in law.requires)
        if law.requires_any:
            one_of = "one of " + ", ".join(f"`{c.value}`" for c in law.requires_any)
            needs = f"{needs} and {one_of}" if needs else one_of
        lines.append(f"- requires: {needs or 'nothing beyond one-turn runs'}")
        if law.assumes:
            lines.append("- assumes: " + ", ".join(f"`{a}`" for a in law.assumes))
        checked = tests.get(law.id, [])
        if checked:
            lines.append("- tests: " + ", ".join(f"`{t}`" for t in checked))
        else:
            lines.append(f"- tests: none yet — {law.planned or 'MISSING'}")
        lines.append("")
        if law.notes:
            lines += [law.notes.strip(), ""]
    lines += capability_audit()
    return "\n".join(lines)


def capability_audit() -> list[str]:
    """The capability audit: what each capability means, the laws it can exclude (from
    the laws' own `requires`), and why the seed lets a runtime lack it."""
    laws = [law for law in load_laws().values() if not law.retired]
    lines = [
        "## Capabilities",
        "",
        "A capability names a feature the seed makes optional, or the one means a law has of",
        "seeing its scene; never the safety of a door the runtime has. A law needing one that",
        "is not declared is NOT_APPLICABLE, and the run's summary lists every MUST law that",
        "was, with what excluded it. `requires_any` laws apply as soon as one of their",
        "capabilities is declared.",
        "",
    ]
    for capability, entry in load_capabilities().items():
        alone = [f"`{law.id}`" for law in laws if capability in law.requires]
        grouped = [f"`{law.id}`" for law in laws if capability in law.requires_any]
        lines += [f"### `{capability.value}`", "", entry.means, ""]
        lines.append("- excludes: " + (", ".join(alone) or "no law on its own"))
        if grouped:
            lines.append("- one of the doors of: " + ", ".join(grouped))
        lines += [f"- why the seed allows lacking it: {entry.optional}", ""]
    return lines


def _heading(law_id: str, level: str, status: str) -> str:
    return f"## `{law_id}` — {level}{status}"


def law_lines() -> dict[str, int]:
    """law id -> the line (from 1) of its heading in docs/laws.md, as this version of the
    suite writes it: what a report points at with `docs/laws.md:<line>`."""
    headings = {
        _heading(law.id, law.level.value, " (retired)" if law.retired else ""): law.id
        for law in load_laws().values()
    }
    # Each law's entry has one `- tests:` line whatever its tests are, so the headings'
    # lines do not depend on them: the doc is laid out without parsing every law module
    # on every run's report.
    return {
        headings[line]: number
        for number, line in enumerate(laws_markdown(tests={}).splitlines(), start=1)
        if line in headings
    }


def law_location(law_id: str, lines: dict[str, int] | None = None) -> str:
    """`docs/laws.md:<line>` of a law's entry (the doc's path alone for an unknown id)."""
    line = (law_lines() if lines is None else lines).get(law_id)
    return LAWS_DOC if line is None else f"{LAWS_DOC}:{line}"
