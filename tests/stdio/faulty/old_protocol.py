"""Speaks another protocol version: answers start with an error."""

from _minimal import serve

serve(
    {
        "start": lambda request: {
            "seq": request["seq"],
            "status": "error",
            "message": f"this adapter speaks protocol 0, not {request['version']}",
            "traceback": "",
        }
    }
)
