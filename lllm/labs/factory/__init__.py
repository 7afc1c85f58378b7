"""Layer 4 · the synthetic data factory: tasks with known answers in, verified trajectories out.

One folder, one file per role; read them in this order:

    tasks.py         the task families, their grammar and the held-out rule (`make_task`, `make_suite`)
    reshape.py       structure noise for training goals: the same task said in another shape
    episodes.py      runs the factory: act, critique, verify; keeps only verified episodes (`run_factory`)
    before_after.py  the before/after check: a model scored on held-out tasks, no forcing (`evaluate`)

The goals held out by grammar and by structure are a sibling folder, `lllm/labs/heldout/`, which
training never imports. The names below load on first use, so importing one file of the factory
(as the trainer in `export/` does) loads nothing else. `reshape` and `before_after` are names of
modules here, so their functions are imported from those modules.

    >>> from lllm.labs.factory import make_suite
    >>> len(make_suite("test", per_group=1)) > 0
    True
"""

from lllm.lazy import exported_names, lazy_exports

_EXPORTS = {
    "lllm.labs.factory.tasks": ["Task", "make_task", "make_suite"],
    "lllm.labs.factory.episodes": ["Episode", "FactoryRun", "run_episode", "run_factory", "teacher", "verify"],
    "lllm.labs.factory.before_after": ["SuiteReport", "comparison_table", "evaluate"],
}
__all__ = exported_names(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)     # lllm/lazy.py
