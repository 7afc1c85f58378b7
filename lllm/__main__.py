"""`python -m lllm ...` — see lllm/cli.py."""

import sys

from .cli import main

sys.exit(main())
