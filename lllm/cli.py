"""lllm-core's import path for the command line: `from lllm.cli import main`.

The commands live in `lllm/commands/` (one module per subcommand); this root module keeps
lllm-core's names for them, its private ones included (its own tests import `_serve_host` and
`_serve_log_level` from here).
"""

from lllm.commands import main
from lllm.runtimes.native.entrypoints import load_tactic_entrypoint
from lllm.services.app import check_host as _serve_host
from lllm.services.app import check_log_level as _serve_log_level

__all__ = ["main", "load_tactic_entrypoint"]

