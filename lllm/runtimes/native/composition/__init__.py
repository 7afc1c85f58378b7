"""Layer 3 · composition: tactics calling tactics by reference, here or across HTTP, streamed as events.

Read in this order: `refs.py` (names), `sse.py` (a stream on the wire), `remote_errors.py` and
`remote.py` (a served tactic, called like a local one), `resolver.py` (a name to a tactic),
`composed.py` (a tactic that calls others by reference and streams what happens; import
`ComposedTactic` from there, so `python -m lllm.runtimes.native.composition.composed` runs its demo).

Usage:

    >>> from lllm.runtimes.native.composition import TacticRef
    >>> TacticRef("psi://demo/math/tactics/add").package
    'math'
"""

from lllm.runtimes.native.composition.refs import TacticRef
from lllm.runtimes.native.composition.remote import RemoteTactic, RemoteTacticError
from lllm.runtimes.native.composition.resolver import TacticResolver
from lllm.runtimes.native.composition.sse import format_sse

__all__ = ["RemoteTactic", "RemoteTacticError", "TacticRef", "TacticResolver", "format_sse"]
