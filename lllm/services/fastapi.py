"""Layer 4 · lllm-core's import path for the tactic service's envelopes: `from lllm.services.fastapi import RunRequest`.

A thin alias kept because lllm-core 0.2.1's own tests import it (tests/peer); the code is in `tactic_app.py`.
"""

from lllm.services.tactic_app import (ErrorDetail, RunRequest, RunResponse, create_fastapi_app, create_service_app,
                                      create_tactic_app, openapi_schema)

__all__ = ["ErrorDetail", "RunRequest", "RunResponse", "create_fastapi_app", "create_service_app", "create_tactic_app",
           "openapi_schema"]
