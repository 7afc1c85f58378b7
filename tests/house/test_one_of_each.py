"""One of each: where one seam serves, a second copy of it fails here, naming the file.

- An onnxruntime session is started in one place, `lllm/model/files.py` (the one model loader):
  TinyLLM, TinyGPT, the inspection graphs and the export's checks all open models through it, so a
  missing or mismatched file reads the same whichever model it is.
"""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("lllm", "export", "hooks", "bench")
ONE_LOADER = "lllm/model/files.py"
SESSION = re.compile(r"\bInferenceSession\s*\(")


def sessions_started(texts: dict[str, str]) -> list[str]:
    """The files (of `texts`, path -> source) that start an onnxruntime session themselves."""
    return sorted(path for path, text in texts.items() if SESSION.search(text) and path != ONE_LOADER)


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
