"""Holds run replies until two runs are waiting, then answers them newest first: the
connector must pair replies with requests by seq, not by order."""

from _minimal import ok, send, serve

held: list[dict] = []


def run(request: dict) -> None:
    held.append(request)
    if len(held) == 2:
        for waiting in reversed(held):
            send(ok(waiting, {"answer": waiting["message"]}))
        held.clear()


serve({"run": run})
