"""An implementation's optional declarations are read in one place, with the spec's
defaults for what it leaves out (conformance.adapter.declaration_of)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conformance.adapter import (
    DEFAULT_COMPACTION_TRIGGERS,
    DEFAULT_DELIVERIES,
    DEFAULT_DIALECTS,
    Declaration,
    Delivery,
    Dialect,
    declaration_of,
)


def test_an_implementation_that_says_nothing_gets_the_defaults() -> None:
    declared = declaration_of(SimpleNamespace(name="x", capabilities=frozenset()))
    assert declared == Declaration()
    assert declared.dialects == DEFAULT_DIALECTS == {Dialect.OPENAI_CHAT}
    assert declared.deliveries == DEFAULT_DELIVERIES == {Delivery.STREAM}
    assert declared.compaction_triggers == DEFAULT_COMPACTION_TRIGGERS == ("turns",)
    assert (declared.trace_tool, declared.version, declared.revision) == (None, None, None)


def test_declarations_are_read_as_declared() -> None:
    declared = declaration_of(
        SimpleNamespace(
            dialects=frozenset({"anthropic-messages", "no-such-dialect"}),
            deliveries=("stream", "whole"),
            trace_tool="read_trace",
            trace_activation="",
            compaction_triggers=("chars",),
            version=3,
            notes=["a note"],
            revision=True,
        )
    )
    assert declared.dialects == {Dialect.ANTHROPIC_MESSAGES}  # one the suite does not speak: out
    assert declared.deliveries == {Delivery.STREAM, Delivery.WHOLE}
    assert (declared.trace_tool, declared.trace_activation) == ("read_trace", None)
    assert declared.compaction_triggers == ("chars",)
    assert (declared.version, declared.notes) == ("3", ("a note",))
    assert declared.revision is None  # a bool is no revision


def test_no_compaction_trigger_is_turns_and_an_unknown_delivery_is_refused() -> None:
    assert declaration_of(SimpleNamespace(compaction_triggers=())).compaction_triggers == ("turns",)
    with pytest.raises(ValueError, match="carrier-pigeon"):
        declaration_of(SimpleNamespace(deliveries=("carrier-pigeon",)))
