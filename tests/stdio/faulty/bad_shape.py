"""Answers a run with a result of the wrong shape (the answer is a number), and a
checkpoint with a reply that has a field protocol v1 does not know."""

from _minimal import ok, serve


def extra_field(request: dict) -> dict:
    reply = ok(request, {"turns": 1})
    assert reply is not None
    return {**reply, "debug": "extra"}


serve({"run": lambda request: ok(request, {"answer": 42}), "checkpoint": extra_field})
