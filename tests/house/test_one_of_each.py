"""One of each: where one seam serves, a second copy of it fails here, naming the file.

- An onnxruntime session is started in one place, `lllm/model/files.py` (the one model loader):
  TinyLLM, TinyGPT, the inspection graphs and the export's checks all open models through it, so a
  missing or mismatched file reads the same whichever model it is.
- A FastAPI app is made in one place, `lllm/services/app.py` (`create_app`, the one app factory), and
  uvicorn is run in one place, the same file's `run_app` (the one runner): `lllm serve`, `lllm
  serve-model` and `lllm mcp --http` hand it their route or app, so the checks of where to listen, the
  door's protocol and a clean Ctrl-C are written once.
"""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("lllm", "export", "hooks", "bench")
ONE_LOADER = "lllm/model/files.py"
SESSION = re.compile(r"\bInferenceSession\s*\(")
ONE_APP = "lllm/services/app.py"
FASTAPI_APP = re.compile(r"\bFastAPI\s*\(\s*[\w)*\"']")     # a call: an argument or `)` next, not prose's "FastAPI (/health"
UVICORN_RUNNER = re.compile(r"\buvicorn\.(run|Server)\s*\(")


def sessions_started(texts: dict[str, str]) -> list[str]:
    """The files (of `texts`, path -> source) that start an onnxruntime session themselves."""
    return writing(texts, SESSION, ONE_LOADER)


def writing(texts: dict[str, str], pattern: re.Pattern, the_one: str) -> list[str]:
    """The files (of `texts`, path -> source) other than `the_one` whose source matches `pattern`."""
    return sorted(path for path, text in texts.items() if pattern.search(text) and path != the_one)


def sources() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
            for folder in FOLDERS for p in (ROOT / folder).rglob("*.py") if "node_modules" not in p.parts}


def test_a_second_session_is_found_wherever_it_is_written():
    texts = {ONE_LOADER: "ort.InferenceSession(data)", "lllm/model/new.py": "s = ort.InferenceSession (path, o)",
             "export/x.py": "# InferenceSession is named here, not started"}
    assert sessions_started(texts) == ["lllm/model/new.py"]


def test_every_model_is_opened_by_the_one_loader():
    texts = sources()
    assert SESSION.search(texts[ONE_LOADER]), f"{ONE_LOADER} no longer starts the session"
    assert sessions_started(texts) == [], (
        f"these start an onnxruntime session of their own; open the model with lllm.model.files instead: "
        f"{sessions_started(texts)}")


def test_a_second_fastapi_app_or_uvicorn_runner_is_found_wherever_it_is_written():
    texts = {ONE_APP: "app = FastAPI(title=title)\nuvicorn.Server(config).run(sockets=[sock])",
             "lllm/services/new_app.py": "app = fastapi.FastAPI (title='x')",
             "lllm/commands/new.py": "uvicorn.run(app, port=9000)",
             "lllm/commands/other.py": "uvicorn.Server(uvicorn.Config(app)).run()",
             "lllm/services/fine.py": "# FastAPI and uvicorn are named here; run_app(app, sock) runs them",
             "lllm/services/prose.py": 'print("serving with uvicorn and FastAPI (/health, /run)")'}
    assert writing(texts, FASTAPI_APP, ONE_APP) == ["lllm/services/new_app.py"]
    assert writing(texts, UVICORN_RUNNER, ONE_APP) == ["lllm/commands/new.py", "lllm/commands/other.py"]


def test_every_http_service_uses_the_one_app_and_the_one_runner():
    texts = sources()
    assert FASTAPI_APP.search(texts[ONE_APP]), f"{ONE_APP} no longer makes the FastAPI app"
    assert UVICORN_RUNNER.search(texts[ONE_APP]), f"{ONE_APP} no longer runs uvicorn"
    assert writing(texts, FASTAPI_APP, ONE_APP) == [], (
        f"these make a FastAPI app of their own; pass a route to lllm.services.app.create_app instead: "
        f"{writing(texts, FASTAPI_APP, ONE_APP)}")
    assert writing(texts, UVICORN_RUNNER, ONE_APP) == [], (
        f"these run uvicorn themselves; use lllm.services.app.run_app instead: {writing(texts, UVICORN_RUNNER, ONE_APP)}")
