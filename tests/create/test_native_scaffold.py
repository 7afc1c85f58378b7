"""`python -m lllm create NAME` writes an app whose own smoke test passes out of the box."""

import os
import pathlib
import subprocess
import sys

import pytest

from lllm.create.scaffold import app_files, create_app

REPO = pathlib.Path(__file__).resolve().parents[2]


def run(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_create_then_the_apps_own_tests_pass(tmp_path):
    created = run(["-m", "lllm", "create", "my-app"], tmp_path)
    assert created.returncode == 0, created.stderr
    app = tmp_path / "my-app"
    assert sorted(str(p.relative_to(app)) for p in app.rglob("*") if p.is_file()) == sorted(app_files("my-app"))
    tests = run(["-m", "pytest", "-q", "-p", "no:cacheprovider"], app)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "2 passed" in tests.stdout
    main = run(["main.py", "trees"], app)
    assert main.stdout.splitlines()[0] == "Dialogs are trees; forks never change their parent."


def test_bad_names_and_existing_folders_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="app name '1app' must be letters"):
        create_app("1app", str(tmp_path))
    create_app("ok", str(tmp_path))
    with pytest.raises(FileExistsError, match="already exists"):
        create_app("ok", str(tmp_path))
    failed = run(["-m", "lllm", "create", "ok"], tmp_path)
    assert failed.returncode == 2 and "lllm create: error:" in failed.stderr
