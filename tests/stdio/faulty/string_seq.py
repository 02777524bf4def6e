"""Answers a run with its seq as a string ("7", not 7): not the seq it was sent."""

from _minimal import normal, serve


def string_seq(request: dict) -> dict | None:
    reply = normal(request)
    assert reply is not None
    return {**reply, "seq": str(request["seq"])}


serve({"run": string_seq})
