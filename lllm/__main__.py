"""`python -m lllm ...` — see lllm/cli.py."""

import sys

from lllm.cli import main

sys.exit(main())
