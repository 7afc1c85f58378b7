"""Layer 3 · RemoteTacticError: what a served tactic's failure looks like on the caller's side.

Read `lllm/protocol/errors.py` first. When a service answers with an error, `RemoteTactic`
raises this, carrying the HTTP status and the fields of the service's error envelope:

    {"error": {"type", "message", "tactic", "endpoint", "request_id"}}
    (or the same inside {"detail": ...}, as FastAPI wraps it)

A field the service sent in the wrong shape (a number, a name with a '/') is dropped, not
trusted; a body that is not JSON becomes the message (and `endpoint`, the route we called, is
filled in only then: an envelope speaks for itself). Built by hand, the error checks its own
fields and names the one that is wrong.

Usage:

    >>> error = error_from_reply(500, '{"error": {"type": "ValueError", "message": "no", "endpoint": "run"}}')
    >>> (error.status_code, error.error_type, error.message, error.endpoint)
    (500, 'ValueError', 'no', 'run')
    >>> str(error)
    'the service answered 500: ValueError: no'
"""

from __future__ import annotations

import json

from lllm.protocol import validation as v
from lllm.protocol.errors import TacticServiceError

__all__ = ["RemoteTacticError", "error_from_reply"]

# Each envelope field and the check a value must pass (tokens: no whitespace, paths or ';').
FIELD_CHECKS = {"error_type": v.check_token, "tactic": v.check_name, "endpoint": v.check_token,
                "request_id": v.check_token}


class RemoteTacticError(TacticServiceError):
    def __init__(self, status_code: int, *, error_type: str | None = None, message: str | None = None,
                 tactic: str | None = None, endpoint: str | None = None, request_id: str | None = None,
                 detail=None):
        if isinstance(status_code, bool) or not isinstance(status_code, int) or not 100 <= status_code <= 599:
            raise ValueError(f"status_code must be an HTTP status between 100 and 599, got {status_code!r}")
        fields = {"error_type": error_type, "message": message, "tactic": tactic, "endpoint": endpoint,
                  "request_id": request_id}
        for field, value in fields.items():
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{field} must be a string or None, got {type(value).__name__}")
            if value is not None and field in FIELD_CHECKS:
                FIELD_CHECKS[field](value, field)
        self.status_code, self.detail = status_code, detail
        self.error_type, self.message, self.tactic = error_type, message, tactic
        self.endpoint, self.request_id = endpoint, request_id
        summary = ": ".join(part for part in (error_type, message) if part) or "no details"
        super().__init__(f"the service answered {status_code}: {summary}")


def trusted(value, field: str):
    """The value when it is a string that passes the field's check, else None."""
    if not isinstance(value, str):
        return None
    try:
        return FIELD_CHECKS[field](value, field) if field in FIELD_CHECKS else value
    except (TypeError, ValueError):
        return None


def error_from_reply(status_code: int, text: str, *, endpoint: str | None = None, tactic: str | None = None):
    """The RemoteTacticError for an error reply's body (JSON envelope, or plain text as the message)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return RemoteTacticError(status_code, message=text or None, endpoint=endpoint, tactic=tactic, detail=text)
    envelope = data.get("detail", data) if isinstance(data, dict) else None
    problem = envelope.get("error") if isinstance(envelope, dict) else None
    if not isinstance(problem, dict):
        return RemoteTacticError(status_code, message=text, endpoint=endpoint, tactic=tactic, detail=data)
    return RemoteTacticError(status_code, error_type=trusted(problem.get("type"), "error_type"),
                             message=trusted(problem.get("message"), "message"),
                             tactic=trusted(problem.get("tactic"), "tactic"),
                             endpoint=trusted(problem.get("endpoint"), "endpoint"),
                             request_id=trusted(problem.get("request_id"), "request_id"), detail=data)
