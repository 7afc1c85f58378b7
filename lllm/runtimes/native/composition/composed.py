"""Layer 3 · ComposedTactic: a tactic whose program calls other tactics by `psi://` reference, streaming as it goes.

Read `resolver.py` first. A ComposedTactic is a protocol Tactic built on a resolver. You write
its program once, as a generator `steps(value, context)`; each call to another tactic is one line,

    story = yield from self.call_ref("psi://demo/story/tactics/continue", opening, context)

and the program's `return` is the tactic's output. The same program serves every way of calling:

    events(value) / aevents    a 'call' event (which ref, with what), a 'return' event (its output)
                               per sub-tactic call, as each happens, then one 'result' event
    stream / astream           the same events (and over a service's /stream, the same as SSE)
    run(value) / arun          the output only, validated against output_type

The callee may be registered in this process, live in another package, or sit behind a service
(`resolver.bind_url`): the program does not change. `TacticResolver.as_function(ref)` is the
other direction: a tactic by reference as a tool an agent can call.

Usage:

    >>> from lllm.runtimes.function_tactic import as_tactic
    >>> from lllm.runtimes.native.composition.resolver import TacticResolver
    >>> resolver = TacticResolver()
    >>> resolver.register("psi://demo/text/tactics/shout", as_tactic(str.upper, name="shout"))
    >>> class Twice(ComposedTactic):
    ...     input_type = output_type = str
    ...     def steps(self, text, context):
    ...         loud = yield from self.call_ref("psi://demo/text/tactics/shout", text, context)
    ...         return f"{loud} {loud}"
    >>> twice = Twice(resolver, name="twice")
    >>> twice.run("hey")
    'HEY HEY'
    >>> [(event.kind, event.data) for event in twice.events("hey")]
    [('call', 'hey'), ('return', 'HEY'), ('result', 'HEY HEY')]
"""

from __future__ import annotations

from lllm.protocol.events import TacticEvent
from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.composition.resolver import TacticResolver
from lllm.runtimes.native.core.schemas import to_jsonable

__all__ = ["ComposedTactic"]


class ComposedTactic(Tactic):
    runtime_kind = "composed"

    def __init__(self, resolver: TacticResolver, **protocol):
        if not isinstance(resolver, TacticResolver):
            raise TypeError(f"a ComposedTactic needs a TacticResolver to find its sub-tactics, "
                            f"got {type(resolver).__name__}")
        super().__init__(**protocol)
        self.resolver = resolver

    def steps(self, input_value, context):
        """The program: a generator that uses `yield from self.call_ref(...)` and returns the output."""
        raise NotImplementedError(f"tactic {self.tactic_name!r} must define steps(self, input_value, context)")

    # --8<-- [start:call_ref]
    def call_ref(self, ref, value, context=None):
        """Run the tactic `ref` names; yield a 'call' and a 'return' event around it; return its output."""
        tactic = self.resolver.resolve(ref)             # a TacticRefError names an unbound or malformed ref
        yield TacticEvent(kind="call", data=to_jsonable(value), metadata={"ref": str(ref)})
        output = tactic.run(value, context=context)
        yield TacticEvent(kind="return", data=to_jsonable(output), metadata={"ref": str(ref)})
        return output

    def stream(self, input_value, *, context=None):
        output = yield from self.steps(input_value, context)
        yield TacticEvent.result(to_jsonable(self.validate_output(output)))
    # --8<-- [end:call_ref]

    def _run(self, input_value, *, context=None):
        """The same program, events dropped: the generator's return value is the output."""
        program = self.steps(input_value, context)
        while True:
            try:
                next(program)
            except StopIteration as finished:
                return finished.value


# ---- the page's example: three packages, one composed by reference -------------------------------

if __name__ == "__main__":
    # --8<-- [start:demo]
    from lllm.runtimes.native.composition import TacticResolver
    from lllm.runtimes.native.composition.composed import ComposedTactic
    from lllm.runtimes.native.tactic import Tactic
    from lllm.runtimes.function_tactic import as_tactic

    STORY = "psi://demo/story/tactics/continue"      # package demo/story: an agent on TinyLLM
    COUNT = "psi://demo/text/tactics/count_words"    # package demo/text: plain Python

    class Continue(Tactic):
        name = "continue"
        agent_group = ["teller"]
        input_type = output_type = str

        def call(self, opening: str) -> str:
            teller = self.agents["teller"]
            teller.open("story")
            teller.receive(opening)
            return " ".join(teller.respond().content.split()[:6])

    class Anthology(ComposedTactic):                 # package demo/anthology: knows only the refs
        input_type = list[str]
        output_type = dict

        def steps(self, openings, context):
            stories = []
            for opening in openings:
                story = yield from self.call_ref(STORY, opening, context)
                stories.append(f"{opening} {story}")
            words = yield from self.call_ref(COUNT, " ".join(stories), context)
            return {"stories": stories, "words": words}

    tinyllm = {"spec": "tinyllm", "temperature": 0.7, "seed": 5, "max_new_tokens": 60}
    config = {"global": {"model_name": "tinyllm", "invoker": "predictor", "invoker_config": tinyllm},
              "agent_configs": [{"name": "teller", "system_prompt": "Continue the story."}]}
    resolver = TacticResolver()
    resolver.register(STORY, Continue(config))
    resolver.register(COUNT, as_tactic(lambda text: len(text.split()), name="count_words",
                                       input_type=str, output_type=int))
    anthology = Anthology(resolver, name="anthology")

    for event in anthology.events(["Once upon a time a fox", "The old king"]):
        print(f"{event.kind:6} {event.metadata.get('ref', '')}".rstrip())
        print("      ", event.data)
    # --8<-- [end:demo]
