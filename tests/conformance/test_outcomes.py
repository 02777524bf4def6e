"""How a pytest result becomes a law outcome."""

from __future__ import annotations

import pytest

from conformance.verdicts import NOT_APPLICABLE_PREFIX, Outcome, classify, worst


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("call", False, False, "", False, False), Outcome.PASS),
        (("call", True, False, "AssertionError: run carried history", True, False), Outcome.FAIL),
        (("call", True, False, "BadRequestError: script ran out", False, True), Outcome.FAIL),
        (("call", True, False, "RuntimeError: adapter bug", False, False), Outcome.ERROR),
        (("setup", True, False, "AssertionError in a fixture", True, False), Outcome.ERROR),
        (  # pytest-timeout 2.4's line, and the older one
            (
                "call",
                True,
                False,
                "E       Failed: Timeout (>1.0s) from pytest-timeout.",
                True,
                False,
            ),
            Outcome.TIMEOUT,
        ),
        (("call", True, False, "E   Failed: Timeout >60.0s", True, False), Outcome.TIMEOUT),
        (  # a traceback that quotes source mentioning timeouts is not a timeout
            (
                "call",
                True,
                False,
                "    except TimeoutError:  # pytest-timeout covers the rest\n"
                "E   DeclaredButMissing: checkpoint() raised NotImplementedError",
                True,
                False,
            ),
            Outcome.FAIL,
        ),
        (
            ("setup", False, True, f"{NOT_APPLICABLE_PREFIX}x needs memory", False, False),
            Outcome.NOT_APPLICABLE,
        ),
        (("setup", False, True, "skipped for another reason", False, False), Outcome.ERROR),
    ],
)
def test_classify(args: tuple[str, bool, bool, str, bool, bool], expected: Outcome) -> None:
    assert classify(*args) is expected


def test_a_law_is_as_bad_as_its_worst_test() -> None:
    assert worst([Outcome.PASS, Outcome.FAIL, Outcome.NOT_APPLICABLE]) is Outcome.FAIL
    assert worst([Outcome.PASS, Outcome.ERROR, Outcome.FAIL]) is Outcome.ERROR
    assert worst([Outcome.NOT_APPLICABLE]) is Outcome.NOT_APPLICABLE
    assert worst([Outcome.PASS, Outcome.NOT_APPLICABLE]) is Outcome.PASS
