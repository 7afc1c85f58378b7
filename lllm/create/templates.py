"""Layer 4 · the project templates behind `lllm create TEMPLATE NAME`: plain, native and pydantic-ai.

Read `create.py` for how they are written to disk. Every template makes the same service project,
an echo tactic that upper-cases `text`, and differs only in how the tactic is built:

    plain        a protocol Tactic subclass with `_run`             (depends on lllm)
    native       a native-style class with `call`, wrapped by NativeTacticAdapter
    pydantic-ai  an agent with `run_sync` (a stand-in for pydantic_ai.Agent), wrapped by a
                 small adapter tactic written out in the file   (depends on lllm[pydantic-ai])

The files of a project (PACKAGE is the Python package name, SLUG the folder name):

    pyproject.toml        the project, with dev (pytest, httpx) and server extras
    README.md             install, test, serve, call
    app.py                the ASGI app: `uvicorn app:app`
    client.py             RemoteTactic against http://127.0.0.1:8000/run; `python client.py`
    PACKAGE/__init__.py   re-exports the tactic's types and its factory
    PACKAGE/tactics.py    EchoInput, EchoOutput and build_tactic()
    tests/test_tactic.py  the offline test: `pytest`
    docs/tutorial.md      the same steps, as a walk-through

Usage:

    >>> files = project_files("native", "my-echo", "my_echo")
    >>> sorted(files)[:4]
    ['README.md', 'app.py', 'client.py', 'docs/tutorial.md']
    >>> "NativeTacticAdapter" in files["my_echo/tactics.py"]
    True
"""

from __future__ import annotations

__all__ = ["TEMPLATES", "DEPENDENCY", "project_files"]

DEPENDENCY = {"plain": "lllm", "native": "lllm", "pydantic-ai": "lllm[pydantic-ai]"}
TEMPLATES = tuple(DEPENDENCY)

TYPES = '''from pydantic import BaseModel


class EchoInput(BaseModel):
    text: str


class EchoOutput(BaseModel):
    text: str
'''

TACTICS = {
    "plain": '''"""The echo tactic, written as a protocol Tactic: `_run` gets a validated EchoInput."""

from lllm import Tactic

''' + TYPES + '''

class EchoTactic(Tactic[EchoInput, EchoOutput]):
    name = "echo"
    description = "Upper-cases the text it is given."
    input_type = EchoInput
    output_type = EchoOutput

    def _run(self, input_value, *, context=None):
        return EchoOutput(text=input_value.text.upper())


def build_tactic():
    return EchoTactic()
''',
    "native": '''"""The echo tactic, written native-style: a class with `call(task)`, wrapped as a protocol Tactic."""

from lllm.runtimes.native import NativeTacticAdapter

''' + TYPES + '''

class NativeEcho:
    name = "echo"
    description = "Upper-cases the text it is given."
    input_model = EchoInput
    output_type = EchoOutput

    def call(self, task):
        return EchoOutput(text=task.text.upper())


def build_tactic():
    return NativeTacticAdapter(NativeEcho())
''',
    "pydantic-ai": '''"""The echo tactic around an agent. StubAgent answers like pydantic_ai.Agent's run_sync, offline;
swap in `pydantic_ai.Agent("openai:gpt-4o-mini", output_type=str)` for a real model."""

from lllm import Tactic

''' + TYPES + '''

class StubResult:
    def __init__(self, output):
        self.output = output


class StubAgent:
    """Stands in for a pydantic-ai Agent: `run_sync(prompt)` returns an object with `.output`."""

    def run_sync(self, prompt, **kwargs):
        return StubResult(prompt.upper())


class AgentTactic(Tactic[EchoInput, EchoOutput]):
    """The agent behind the protocol: the input's text is the prompt, the agent's output the reply."""
    name = "echo"
    description = "Asks the agent to echo the text it is given."
    input_type = EchoInput
    output_type = EchoOutput

    def __init__(self, agent, **protocol):
        super().__init__(**protocol)
        self.agent = agent

    def _run(self, input_value, *, context=None):
        return EchoOutput(text=self.agent.run_sync(input_value.text).output)


def build_tactic(agent=None):
    return AgentTactic(agent or StubAgent())
''',
}

PYPROJECT = '''[build-system]
requires = ["setuptools>=69", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "{slug}"
version = "0.1.0"
description = "An LLLM tactic, served over HTTP."
readme = "README.md"
requires-python = ">=3.10"
dependencies = ["pydantic>=2.7", "{dependency}"]

[project.optional-dependencies]
dev = ["pytest>=8.0", "httpx>=0.27"]
server = ["lllm[server]"]

[tool.setuptools.packages.find]
include = ["{package}*"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
'''

STEPS = '''```bash
pip install -e ".[dev,server]"
pytest
```

Serve it, either through the LLLM command line or as the ASGI app in `app.py`:

```bash
lllm serve {package}.tactics:build_tactic --port 8000
uvicorn app:app --port 8000
```

Then, from another terminal, call it with curl or with the Python client:

```bash
curl -X POST http://127.0.0.1:8000/run -H 'content-type: application/json' -d '{{"input": {{"text": "hello"}}}}'
python client.py
```
'''

README = '''# {slug}

An LLLM `{template}` project: one tactic, `echo`, that upper-cases `text`. The tactic is
`{package}.tactics:build_tactic`; `app.py` serves it and `client.py` calls it.

''' + STEPS + '''
See `docs/tutorial.md` for a walk through the files.
'''

TUTORIAL = '''# Tutorial: the {slug} tactic

`{package}/tactics.py` declares what goes in (`EchoInput`) and what comes out (`EchoOutput`) and
builds the tactic. `lllm inspect {package}.tactics:build_tactic --json` shows what the tactic
says about itself: its name, runtime and the two JSON schemas.

Install the project with its test and server extras and run its test, then serve it:

''' + STEPS + '''
`client.py` wraps the URL in a `RemoteTactic`, a tactic that runs on the server: its input and
output are validated on your side with the same two types.
'''

APP = '''"""The tactic as an ASGI app: `uvicorn app:app --port 8000`."""

from lllm.services import create_tactic_app

from {package}.tactics import build_tactic

app = create_tactic_app(build_tactic())
'''

CLIENT = '''"""Call the served tactic: start the server (see README.md), then `python client.py [TEXT]`."""

import sys

from lllm import RemoteTactic

from {package}.tactics import EchoInput, EchoOutput

DEFAULT_URL = "http://127.0.0.1:8000/run"


def build_client(url=DEFAULT_URL, *, transport=None):
    return RemoteTactic(url, name="echo", input_type=EchoInput, output_type=EchoOutput, transport=transport)


def call(text="hello", *, url=DEFAULT_URL, transport=None):
    return build_client(url, transport=transport).run({{"text": text}})


def main():
    print(call(sys.argv[1] if len(sys.argv) > 1 else "hello").text)


if __name__ == "__main__":
    main()
'''

INIT = '''from {package}.tactics import EchoInput, EchoOutput, build_tactic

__all__ = ["EchoInput", "EchoOutput", "build_tactic"]
'''

TEST = '''"""Offline: the tactic runs in-process, and the app answers without a server."""

from {package}.tactics import build_tactic


def test_the_tactic_upper_cases_its_input():
    assert build_tactic().run({{"text": "hello"}}).text == "HELLO"


def test_the_tactic_describes_its_input():
    assert build_tactic().info().input_schema["required"] == ["text"]
'''


def project_files(template: str, slug: str, package: str) -> dict[str, str]:
    """Relative path -> text for one project; `template` must be one of TEMPLATES."""
    if template not in DEPENDENCY:
        raise ValueError(f"unknown template {template!r}; choose one of: {', '.join(TEMPLATES)}")
    fill = {"slug": slug, "package": package, "template": template, "dependency": DEPENDENCY[template]}
    return {"pyproject.toml": PYPROJECT.format(**fill), "README.md": README.format(**fill),
            "app.py": APP.format(**fill), "client.py": CLIENT.format(**fill),
            f"{package}/__init__.py": INIT.format(**fill), f"{package}/tactics.py": TACTICS[template],
            "tests/test_tactic.py": TEST.format(**fill), "docs/tutorial.md": TUTORIAL.format(**fill)}
