"""hooks/runtime.py: the runtime manifest lists each model the page can load — the story model, and
the agent-tuned one when `make agent-model` has built it — and says what to run when one is missing,
without failing the build (LLLM_MODEL_DIR points the hook at another model folder)."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

from conftest import build_site
from hooks import runtime        # the repo root is on sys.path (conftest.py)
from support.model_files import CARD, MODEL_DIR, build_agent_inside_model, build_inside_model, ensure_model, require_agent_model


def post_build(tmp_path: Path, model_dir: Path | str, monkeypatch) -> tuple[dict, Path]:
    """Run the hook as `mkdocs build` does, into tmp_path/public; the manifest and the runtime folder."""
    monkeypatch.setenv("LLLM_MODEL_DIR", str(model_dir))
    runtime.on_post_build({"site_dir": str(tmp_path / "public")})
    out = tmp_path / "public" / "assets" / "runtime"
    return json.loads((out / "runtime.json").read_text(encoding="utf-8")), out


def story_only(tmp_path: Path) -> Path:
    """A model folder holding only the story model, as before `make agent-model` has run."""
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(ensure_model(), folder)
    shutil.copy(CARD, folder)
    return folder


def test_the_manifest_lists_the_agent_model_when_it_is_built(tmp_path, monkeypatch):
    require_agent_model()
    manifest, out = post_build(tmp_path, MODEL_DIR, monkeypatch)
    assert manifest["story"] == "tinyllm" and list(manifest["models"]) == ["tinyllm", "tinyllm-agent", "tinygpt"]
    agent = manifest["models"]["tinyllm-agent"]
    assert agent["model"].startswith("model/tinyllm-agent.onnx?v=") and agent["card"].startswith("model/tinyllm-agent.json?v=")
    assert agent["build"] == "make agent-model" and "missing" not in agent
    for name in ("tinyllm-agent.onnx", "tinyllm-agent.json"):
        assert (out / "model" / name).read_bytes() == (Path(MODEL_DIR) / name).read_bytes()
    assert manifest["models"]["tinyllm"]["model"].startswith("model/tinyllm.onnx?v=")


def test_without_the_agent_model_the_manifest_says_what_to_run(tmp_path, monkeypatch, caplog):
    with caplog.at_level(logging.INFO, logger="mkdocs.hooks.runtime"):
        manifest, out = post_build(tmp_path, story_only(tmp_path), monkeypatch)
    assert manifest["models"]["tinyllm-agent"] == {"missing": "the agent model is not built: run `make agent-model`",
                                                   "build": "make agent-model"}
    assert not list((out / "model").glob("tinyllm-agent.*"))
    assert manifest["models"]["tinyllm"]["model"].startswith("model/tinyllm.onnx?v=")
    records = [r for r in caplog.records if r.name == "mkdocs.hooks.runtime"]
    assert [r.levelname for r in records] == ["INFO", "INFO"]   # a warning would fail `mkdocs build --strict`
    assert "make agent-model" in records[0].getMessage() and "no tinygpt" in records[1].getMessage()


def test_the_inspection_model_is_listed_apart_from_the_models_predictors_ask_for(tmp_path, monkeypatch):
    folder = story_only(tmp_path)
    manifest, out = post_build(tmp_path, folder, monkeypatch)
    assert manifest["inside"] == {"missing": "the inspection model is not built: run `make model`", "build": "make model"}
    build_inside_model(folder)
    manifest, out = post_build(tmp_path, folder, monkeypatch)
    assert manifest["inside"]["model"].startswith("model/tinyllm-inside.onnx?v=") and "tinyllm-inside" not in manifest["models"]
    assert (out / "model" / "tinyllm-inside.onnx").read_bytes() == (folder / "tinyllm-inside.onnx").read_bytes()


def test_the_agent_models_inspection_graph_is_listed_for_the_drilldown(tmp_path, monkeypatch):
    """Time travel's drilldown opens the agent-tuned model's characters with its inspection graph
    (`make models`): listed under "agentInside", not a model a predictor asks for, not in the first load."""
    folder = story_only(tmp_path)
    manifest, out = post_build(tmp_path, folder, monkeypatch)
    assert manifest["agentInside"] == {"missing": "the agent model's inspection model is not built: run `make models`",
                                       "build": "make models"}
    build_agent_inside_model(folder)
    with_it, out = post_build(tmp_path, folder, monkeypatch)
    entry = with_it["agentInside"]
    assert entry["model"].startswith("model/tinyllm-agent-inside.onnx?v=") and entry["card"].startswith("model/tinyllm-agent-inside.json?v=")
    assert entry["build"] == "make models" and "tinyllm-agent-inside" not in with_it["models"]
    for name in ("tinyllm-agent-inside.onnx", "tinyllm-agent-inside.json"):
        assert (out / "model" / name).read_bytes() == (folder / name).read_bytes()
    assert with_it["totalBytes"] == manifest["totalBytes"]            # loaded only when a character is opened


def test_no_model_counts_in_the_first_load(tmp_path, monkeypatch):
    """totalBytes drives the loading bar: Python and onnxruntime-web; each model loads later, when
    something first asks for it by name."""
    require_agent_model()
    with_agent, _ = post_build(tmp_path / "a", MODEL_DIR, monkeypatch)
    story, _ = post_build(tmp_path / "b", story_only(tmp_path), monkeypatch)
    none, _ = post_build(tmp_path / "c", tmp_path / "empty", monkeypatch)
    assert with_agent["totalBytes"] == story["totalBytes"] == none["totalBytes"] > 0


def test_without_any_model_the_manifest_names_both_commands(tmp_path, monkeypatch, caplog):
    with caplog.at_level(logging.INFO, logger="mkdocs.hooks.runtime"):
        manifest, _ = post_build(tmp_path, tmp_path / "empty", monkeypatch)
    assert manifest["models"]["tinyllm"]["missing"] == "the TinyLLM model is not built: run `make model`"
    assert "make agent-model" in manifest["models"]["tinyllm-agent"]["missing"]
    assert "make model" in manifest["models"]["tinygpt"]["missing"]
    assert [r.levelname for r in caplog.records if r.name == "mkdocs.hooks.runtime"] == ["WARNING", "INFO", "INFO"]


def test_mkdocs_build_strict_succeeds_without_the_agent_model(tmp_path, monkeypatch):
    """The real build (`mkdocs build --strict`, as `make site`), pointed at a folder without it."""
    monkeypatch.setenv("LLLM_MODEL_DIR", str(story_only(tmp_path)))
    done = build_site(tmp_path / "public", "http://127.0.0.1:8000/")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no tinyllm-agent in" in done.stderr and "(run `make agent-model`)" in done.stderr
    manifest = json.loads((tmp_path / "public" / "assets" / "runtime" / "runtime.json").read_text(encoding="utf-8"))
    assert manifest["models"]["tinyllm-agent"]["missing"] == "the agent model is not built: run `make agent-model`"
