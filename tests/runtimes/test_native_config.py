"""Configuration as declaration: packages, namespaced names, base chains, and clear errors."""

import json
import textwrap

import pytest

from lllm.runtimes.native import ConfigError, Runtime, ToolError, build_tactic, resolve_config


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@pytest.fixture
def kit(tmp_path):
    write(tmp_path / "kit" / "lllm.toml", '[package]\nname = "kit"\n[dependencies]\npaths = ["../shared"]\n')
    write(tmp_path / "kit" / "prompts" / "notes.py", """\
        from lllm import Function, Prompt
        save_note = Function(name="save_note", description="Save a note.",
                             properties={"title": {"type": "string"}}, required=["title"])
        system = Prompt(path="system", prompt="Take notes.", function_list=[save_note])
    """)
    write(tmp_path / "kit" / "tools" / "save_note.py", """\
        from lllm import tool
        @tool(name="save_note", description="Save a note.")
        def save_note(title: str) -> str:
            return "saved " + title
    """)
    write(tmp_path / "kit" / "configs" / "base.toml", """\
        [global]
        invoker = "scripted"
        model_name = "tiny"
        max_interrupt_steps = 2
        [global.invoker_config]
        replies = ["base reply"]
    """)
    write(tmp_path / "kit" / "configs" / "default.json", json.dumps({
        "base": "base", "tactic_type": "shared.tactics:echo",
        "global": {"invoker_config": {"replies": [{"content": "", "function_calls": [
            {"name": "save_note", "arguments": {"title": "t"}}]}, "done"]}},
        "agent_configs": [{"name": "speaker", "system_prompt_path": "kit:notes/system",
                           "tools": ["weather", "shared.tactics:echo"]}]}))
    write(tmp_path / "shared" / "lllm.toml", '[package]\nname = "shared"\n')
    write(tmp_path / "shared" / "tactics" / "echo.py", """\
        from lllm import Tactic, tactictool
        class Echo(Tactic):
            name = "echo"
            agent_group = ["speaker"]
            @tactictool("echo", config={"global": {"invoker": "scripted", "invoker_config": {"replies": ["echoed"]}},
                                        "agent_configs": [{"name": "speaker", "system_prompt": "Echo."}]})
            def call(self, task):
                speaker = self.agents["speaker"]
                speaker.open("main")
                speaker.receive(task)
                return speaker.respond().content
    """)
    write(tmp_path / "shared" / "proxies" / "weather.py", "from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy\n")
    runtime = Runtime()
    runtime.load_package(str(tmp_path / "kit"))
    return runtime, tmp_path


def test_base_chain_deep_merges(kit):
    runtime, _ = kit
    config = resolve_config("default", runtime)
    assert config["global"]["model_name"] == "tiny"                     # from base.toml
    assert config["global"]["invoker_config"]["replies"][1] == "done"   # the child replaces the list
    assert "base" not in config


def test_a_built_tactic_binds_declarations_tactics_and_proxies(kit):
    runtime, _ = kit
    tactic = build_tactic(resolve_config("kit:default", runtime), runtime)
    session = tactic("hello", return_session=True)
    assert session.delivery == "done"
    assert session.agent_sessions[0].tool_calls[0].result == "saved t"
    names = list(tactic.runtime.build_agent("speaker", tactic.config).system_prompt.functions)
    assert names == ["save_note", "query_api_doc", "run_python", "echo"]


def test_missing_names_are_clear_errors(kit):
    runtime, _ = kit
    with pytest.raises(ConfigError, match="no config named 'nope'"):
        resolve_config("nope", runtime)
    with pytest.raises(ConfigError, match="no prompt named 'kit:missing'"):
        runtime.prompt("kit:missing")
    with pytest.raises(ConfigError, match="no tool named 'kit.tools:search'"):
        runtime.tools("kit.tools:search")
    with pytest.raises(ConfigError, match="unknown key\\(s\\) \\['sytem_prompt'\\]"):
        runtime.build_agent("a", {"agent_configs": [{"name": "a", "sytem_prompt": "x"}]})
    with pytest.raises(ValueError, match="no invoker configured"):
        runtime.build_agent("a", {"agent_configs": [{"name": "a", "system_prompt": "x"}]})
    with pytest.raises(ValueError, match="invoker 'gpt' is not registered"):
        runtime.build_agent("a", {"agent_configs": [{"name": "a", "system_prompt": "x", "invoker": "gpt"}]})


def test_an_unimplemented_declaration_fails_loudly(tmp_path):
    write(tmp_path / "lllm.toml", '[package]\nname = "p"\n')
    write(tmp_path / "prompts" / "a.py", """\
        from lllm import Function, Prompt
        s = Prompt(path="s", prompt="x", function_list=[Function(name="save", description="d")])
    """)
    runtime = Runtime()
    runtime.load_package(str(tmp_path))
    with pytest.raises(ToolError, match="prompt 's' declares tool 'save' but no tools/ folder defines"):
        runtime.prompt("a/s")


def test_a_cycle_in_base_names_the_chain(tmp_path):
    write(tmp_path / "a.toml", 'base = "b"\n')
    write(tmp_path / "b.toml", 'base = "a"\n')
    with pytest.raises(ConfigError, match="cycle in base: .*a.toml -> .*b.toml -> .*a.toml"):
        resolve_config(str(tmp_path / "a.toml"), Runtime())


def test_malformed_files_name_the_file_and_line(tmp_path):
    write(tmp_path / "bad.json", '{"global": {\n  "invoker": }\n}')
    with pytest.raises(ConfigError, match="bad.json: invalid JSON at line 2"):
        resolve_config(str(tmp_path / "bad.json"), Runtime())
    write(tmp_path / "bad.toml", "[global\n")
    with pytest.raises(ConfigError, match="bad.toml: invalid TOML"):
        resolve_config(str(tmp_path / "bad.toml"), Runtime())
    write(tmp_path / "lllm.toml", '[package]\nname = "has space"\n')
    with pytest.raises(ConfigError, match="\\[package\\] name must be an identifier, got 'has space'"):
        Runtime().load_package(str(tmp_path))


def test_register_invoker_adds_a_backend():
    from lllm.runtimes.native import PredictorInvoker
    runtime = Runtime()
    runtime.register_invoker("shout", lambda cfg: PredictorInvoker(lambda prompt, n=None: cfg["word"].upper()))
    agent = runtime.build_agent("a", {"agent_configs": [
        {"name": "a", "system_prompt": "x", "invoker": "shout", "invoker_config": {"word": "hey"}}]})
    agent.open("main")
    assert agent.respond().content == "HEY"


def test_the_tinyllm_invoker_runs_the_real_model():
    import pathlib
    model = pathlib.Path(__file__).resolve().parents[2] / "build" / "model" / "tinyllm.onnx"
    if not model.is_file():
        pytest.skip("run `make model` first")
    pytest.importorskip("onnxruntime")
    agent = Runtime().build_agent("teller", {"agent_configs": [{
        "name": "teller", "system_prompt": "Continue the story.", "invoker": "tinyllm",
        "invoker_config": {"path": str(model), "temperature": 0.0, "max_new_tokens": 40}}]})
    agent.open("main")
    agent.receive("Once upon a time")
    reply = agent.respond()
    session = agent.sessions[0]
    assert session.state == "success" and isinstance(reply.content, str)
    assert session.steps[0].shown == "System: Continue the story.\nUser: Once upon a time\nAssistant: "
    assert session.cost.prompt_tokens == len(session.steps[0].shown)   # characters are tokens
    assert 0 < session.cost.completion_tokens <= 40
