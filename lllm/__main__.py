"""`python -m lllm ...` — the command line (lllm/commands/)."""

import sys

from lllm.commands import main

sys.exit(main())
