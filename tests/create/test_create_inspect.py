"""`lllm create TEMPLATE NAME` (lllm/create/project.py), `lllm inspect` and `lllm serve`, run as a user runs them:
subprocesses in tmp dirs."""

import json
import os
import pathlib
import subprocess
import sys
import time

import httpx
import pytest

from lllm.protocol.errors import TacticServiceError
from lllm.create import project as create_module
from lllm.create.project import create_project
from lllm.runtimes.native.entrypoints import load_tactic_entrypoint
from lllm.services.protocol_service import ProtocolService
from lllm.runtimes.native.composition.remote import RemoteTactic
from lllm.runtimes.function_tactic import as_tactic
from support.runtime import free_port

REPO = pathlib.Path(__file__).resolve().parents[2]


def lllm(args, cwd, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "lllm", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def tree(folder: pathlib.Path) -> dict:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- create --------------------------------------------------------------------------------------------

def test_a_plain_project_passes_its_own_tests(tmp_path):
    created = lllm(["create", "plain", "Hello World"], tmp_path)
    assert created.returncode == 0, created.stderr
    assert "created plain project at hello-world" in created.stdout
    project = tmp_path / "hello-world"
    assert {"app.py", "client.py", "pyproject.toml", "hello_world/tactics.py", "tests/test_tactic.py"} <= set(tree(project))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, env=env,
                           capture_output=True, text=True, timeout=120)
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout + tests.stderr


@pytest.mark.parametrize("template, marker", [("native", "NativeTacticAdapter"), ("pydantic-ai", "run_sync")])
def test_every_template_builds_an_echo_tactic(tmp_path, template, marker):
    assert lllm(["create", template, "demo", "--directory", "out"], tmp_path).returncode == 0
    project = tmp_path / "out" / "demo"
    assert marker in (project / "demo" / "tactics.py").read_text()
    ran = subprocess.run([sys.executable, "-c", "from demo.tactics import build_tactic; "
                          "print(build_tactic().run({'text': 'hi'}).text)"], cwd=project,
                         env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == "HI", ran.stderr


@pytest.mark.parametrize("args, message", [
    (["create", "plain", "demo/name"], "path separators"),
    (["create", "plain", "demo%2F"], "percent escapes"),
    (["create", "plain", "___"], "letter or number"),
    (["create", "plain", "demo", "--directory", " out "], "surrounding spaces"),
    (["create", "plian", "demo"], "unknown template 'plian'"),
    (["create", "native"], "the native template needs a project name"),
])
def test_bad_create_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    failed = lllm(args, tmp_path)
    assert failed.returncode == 2 and message in failed.stderr, failed.stderr
    assert "Traceback" not in failed.stderr and failed.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_an_existing_project_is_kept_unless_forced(tmp_path):
    assert lllm(["create", "plain", "demo"], tmp_path).returncode == 0
    readme = tmp_path / "demo" / "README.md"
    readme.write_text("my notes\n")
    failed = lllm(["create", "native", "demo"], tmp_path)
    assert failed.returncode == 2 and "not empty" in failed.stderr and "--force" in failed.stderr
    assert readme.read_text() == "my notes\n"
    assert lllm(["create", "native", "demo", "--force"], tmp_path).returncode == 0
    assert "`native` project" in readme.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["demo"]          # no staging folder left behind


def test_force_must_be_a_real_boolean(tmp_path):
    with pytest.raises(TypeError, match="force must be True or False"):
        create_project("plain", "demo", directory=tmp_path, force="yes")
    assert not (tmp_path / "demo").exists()


def test_a_failure_halfway_leaves_no_project(tmp_path, monkeypatch):
    written = []
    real = pathlib.Path.write_text

    def fail_on_the_third(self, *args, **kwargs):
        written.append(self)
        if len(written) == 3:
            raise OSError("disk full")
        return real(self, *args, **kwargs)
    monkeypatch.setattr(pathlib.Path, "write_text", fail_on_the_third)
    with pytest.raises(OSError, match="disk full"):
        create_module.create_project("plain", "demo", directory=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_one_word_form_still_writes_the_config_app(tmp_path):
    created = lllm(["create", "my-app"], tmp_path)
    assert created.returncode == 0, created.stderr
    assert (tmp_path / "my-app" / "lllm.toml").exists() and not (tmp_path / "my-app" / "app.py").exists()


# ---- inspect ---------------------------------------------------------------------------------------------

SECRET_MODULE = '''
from lllm.runtimes.function_tactic import as_tactic


def shout(text: str) -> str:
    return text.upper()


def build():
    return as_tactic(shout, examples=[{"input": "hi", "output": "HI", "headers": {"Authorization": "Bearer sk-raw"}}],
                     metadata={"apiKey": "sk-raw-2", "api_key_ref": "vault/openai", "nested": {"session_cookie": "c-raw", "region": "eu"}})
'''


def test_inspect_json_leaves_secrets_out(tmp_path):
    (tmp_path / "secret_mod.py").write_text(SECRET_MODULE)
    shown = lllm(["inspect", "secret_mod:build", "--json"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    resource = json.loads(shown.stdout)
    assert "raw" not in shown.stdout
    assert resource["metadata"] == {"api_key_ref": "vault/openai", "nested": {"region": "eu"}}
    assert resource["name"] == "shout" and resource["input_schema"] == {"type": "string"}
    text = lllm(["inspect", "secret_mod:build"], tmp_path)
    assert text.stdout.splitlines()[0] == "shout (python)"


@pytest.mark.parametrize("entrypoint, message", [
    ("secret_mod", "Entrypoint must have the form"),
    ("secret/mod:build", "Entrypoint must have the form"),
    ("no_such_module:build", "No module named 'no_such_module'"),
    ("secret_mod:missing", "has no attribute 'missing'"),
    ("broken_mod:build", "cannot load broken_mod:build"),
])
def test_inspect_errors_are_one_line(tmp_path, entrypoint, message):
    (tmp_path / "secret_mod.py").write_text(SECRET_MODULE)
    (tmp_path / "broken_mod.py").write_text("def build(:\n")
    failed = lllm(["inspect", entrypoint], tmp_path)
    assert failed.returncode == 2 and message in failed.stderr, failed.stderr
    assert "Traceback" not in failed.stderr and failed.stdout == ""


def test_entrypoints_accept_tactics_classes_factories_and_functions(tmp_path, monkeypatch):
    (tmp_path / "kinds_mod.py").write_text(
        "from lllm.runtimes.function_tactic import as_tactic\n"
        "def double(x: int) -> int:\n    return 2 * x\n"
        "def factory():\n    return as_tactic(double)\n"
        "ready = as_tactic(double, name='ready')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_tactic_entrypoint("kinds_mod:factory").run(4) == 8
    assert load_tactic_entrypoint("kinds_mod:ready").tactic_name == "ready"
    assert load_tactic_entrypoint("kinds_mod:double").run("5") == 10           # validated by its annotation


# ---- serve, and the generated client against it -------------------------------------------------------------

@pytest.mark.parametrize("option, value", [("--host", "http://127.0.0.1"), ("--host", "localhost:8000"),
                                           ("--port", "0"), ("--port", "65536"), ("--log-level", "verbose")])
def test_serve_checks_its_options_before_importing(tmp_path, option, value):
    failed = lllm(["serve", "not_imported:build", option, value], tmp_path)
    assert failed.returncode == 2 and f"argument {option}" in failed.stderr, failed.stderr
    assert "not_imported" not in failed.stderr


def test_the_generated_client_calls_lllm_serve(tmp_path):
    assert lllm(["create", "native", "echo-app"], tmp_path).returncode == 0
    project, port = tmp_path / "echo-app", free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    server = subprocess.Popen([sys.executable, "-m", "lllm", "serve", "echo_app.tactics:build_tactic", "--port",
                               str(port), "--log-level", "warning"], cwd=project, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        called = subprocess.run([sys.executable, "-c", f"import client; print(client.call('over http', "
                                 f"url='http://127.0.0.1:{port}/run').text)"], cwd=project, env=env,
                                capture_output=True, text=True, timeout=60)
        assert called.stdout.strip() == "OVER HTTP", called.stderr
    finally:
        server.terminate()
        server.wait(timeout=10)


# ---- the protocol service and RemoteTactic, in-process -------------------------------------------------------

def shout(text: str) -> str:
    if text == "boom":
        raise RuntimeError("the tactic broke")
    return text.upper()


@pytest.mark.parametrize("method, path, body, status, kind", [
    ("GET", "/nowhere", b"", 404, "not_found"),
    ("GET", "/run", b"", 405, "method_not_allowed"),
    ("POST", "/run", b"{not json", 400, "SchemaError"),
    ("POST", "/run", b'{"input": 7}', 400, "SchemaError"),
    ("POST", "/run", b'{"input": "hi", "context": {"colour": "red"}}', 400, "SchemaError"),
    ("POST", "/tactics/other/run", b'{"input": "hi"}', 404, "not_found"),
    ("POST", "/run", b'{"input": "boom"}', 500, "RuntimeError"),
])
def test_the_protocol_service_names_each_error(method, path, body, status, kind):
    got_status, data = ProtocolService(as_tactic(shout)).handle(method, path, body)
    assert (got_status, data["detail"]["error"]["type"]) == (status, kind), data


def test_the_service_is_an_asgi_app_and_remote_tactic_its_client():
    transport = httpx.ASGITransport(app=ProtocolService(as_tactic(shout)))

    async def call():
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return (await client.post("/tactics/shout/run", json={"input": "hi", "context": {"request_id": "r7"}})).json()
    import asyncio
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as pool:     # a thread of its own: Playwright's loop may be running in this one
        assert pool.submit(asyncio.run, call()).result() == {"output": "HI", "request_id": "r7", "tactic": "shout"}

    def handler(request):
        status, data = ProtocolService(as_tactic(shout)).handle(request.method, request.url.path, request.content)
        return httpx.Response(status, json=data)
    remote = RemoteTactic("http://test/run", input_type=str, output_type=str, transport=httpx.MockTransport(handler))
    assert remote.run("hey") == "HEY"
    with pytest.raises(TacticServiceError, match="500: RuntimeError: the tactic broke"):
        remote.run("boom")
