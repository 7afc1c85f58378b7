"""Seed 004's examples, as written. Those that call a model get a scripted invoker in their config."""

import os
import textwrap

import pytest

from lllm import Agent, Dialog, Prompt, Tactic, tool
from lllm.runtimes.native import ScriptedInvoker


# ---- "A prompt is a function signature" ------------------------------------------------------------

def test_prompt_example_runs_as_written(capsys):
    from lllm import Prompt, tool
    from lllm.runtimes.native import DefaultTagParser

    @tool(description="Evaluate an arithmetic expression", prop_desc={"expr": "e.g. 2*(3+4)"})
    def calc(expr: str) -> str:
        return str(eval(expr, {"__builtins__": {}}))   # demo only

    solve = Prompt(
        path="math/solve",
        prompt="Solve: {question}\nShow work in <work> and the result in <answer>.",
        parser=DefaultTagParser(xml_tags=["work", "answer"]),
        function_list=[calc],
    )

    print(solve(question="What is 17 * 23?"))
    print(solve.parse("<work>17*23</work><answer>391</answer>")["xml_tags"]["answer"])
    assert capsys.readouterr().out == ("Solve: What is 17 * 23?\nShow work in <work> and the result in <answer>.\n"
                                       "['391']\n")


def test_prompt_example_with_an_agent_calls_the_tool_then_answers():
    from lllm.runtimes.native import DefaultTagParser

    @tool(description="Evaluate an arithmetic expression", prop_desc={"expr": "e.g. 2*(3+4)"})
    def calc(expr: str) -> str:
        return str(eval(expr, {"__builtins__": {}}))

    solve = Prompt(path="math/solve", prompt="Solve: {question}\nShow work in <work> and the result in <answer>.",
                   parser=DefaultTagParser(xml_tags=["work", "answer"]), function_list=[calc])
    invoker = ScriptedInvoker([
        {"content": "", "function_calls": [{"name": "calc", "arguments": {"expr": "17*23"}}]},
        "<work>17*23 = 391</work><answer>391</answer>",
    ])
    agent = Agent("solver", "You solve arithmetic.", invoker)

    agent.open("main")
    agent.receive_prompt(solve, {"question": "What is 17 * 23?"})
    reply = agent.respond()                      # tool calls and repairs happen inside
    answer = reply.parsed["xml_tags"]["answer"][0]

    assert answer == "391"
    assert agent.sessions[0].tool_calls[0].result == "391"
    assert "Observation: 391" in invoker.seen[1]


# ---- "A dialog is the agent's mental state" -------------------------------------------------------

def test_dialog_example_runs_as_written(capsys):
    from lllm import Dialog, Prompt, Role

    system = Prompt(path="planner/system", prompt="You are a {style} planner.")

    dialog = Dialog(owner="planner")
    dialog.put_prompt(system, {"style": "careful"}, role=Role.SYSTEM, name="system")
    dialog.put_text("Plan the next release.", name="user")

    branch = dialog.fork(last_n=1, first_k=1)    # keep system prompt + last message
    branch.put_text("Assume the deadline moved up a week.", name="user")

    print(dialog.tree_overview())
    print(branch.parent is dialog, len(branch.messages))
    assert capsys.readouterr().out == ("planner-0: 2 messages\n"
                                       "`-- planner-1: 3 messages, forked at 2 (first_k=1, last_n=1)\n"
                                       "True 3\n")


# ---- "Declaring a tool is separate from implementing it" ------------------------------------------

def test_declaration_and_implementation_bind_by_exact_name():
    from lllm import Function, Prompt

    save_note = Function(
        name="save_note",
        description="Save a research note.",
        properties={"title": {"type": "string"}, "content": {"type": "string"}},
        required=["title", "content"],
    )
    system = Prompt(path="system", prompt="Take notes as you go.", function_list=[save_note])

    from lllm import tool

    @tool(name="save_note", description="Save a research note.")
    def save_note(title: str, content: str) -> str:
        ...
        return f"saved {title!r}"

    bound = system.bind_tools(save_note)
    assert bound.functions["save_note"](title="Trees", content="fork") == "saved 'Trees'"
    assert not system.functions["save_note"].is_bound             # the original prompt is unchanged


# ---- "Tactics are tools" ---------------------------------------------------------------------------

def test_tactictool_example_defines_as_written_and_becomes_a_function():
    pydantic = pytest.importorskip("pydantic")
    from pydantic import BaseModel
    from lllm import Prompt, Tactic, tactictool, tactic_as_function

    class CodeInput(BaseModel):
        code: str

    class CodeReview(Tactic):
        """Review code and list concrete issues."""
        name = "code_review"
        agent_group = ["reviewer"]

        @tactictool("code_review", config="shared_pkg:review")
        def call(self, task: CodeInput) -> str:
            reviewer = self.agents["reviewer"]
            reviewer.open("review")
            reviewer.receive(task.code)
            return reviewer.respond().content

    planner = Prompt(
        path="planner/system",
        prompt="Plan the change. Request a code review before finishing.",
        function_list=["shared_pkg.tactics:code_review"],
    )
    config = {"global": {"invoker": "scripted", "invoker_config": {"replies": ["Use a set, not a list."]}},
              "agent_configs": [{"name": "reviewer", "system_prompt": "Review the code."}]}
    function = tactic_as_function(CodeReview(config))
    assert function.name == "code_review"
    assert function.schema()["function"]["parameters"]["required"] == ["code"]   # CodeInput is the schema
    assert function(code="x = [1, 2]") == "Use a set, not a list."
    assert planner.function_list == ("shared_pkg.tactics:code_review",)


# ---- "Tool calling as programming: proxies" -------------------------------------------------------

def test_weather_proxy_example_defines_as_written():
    from lllm import BaseProxy, ProxyRegistrator

    @ProxyRegistrator(path="weather", name="Weather API", description="Current conditions.")
    class WeatherProxy(BaseProxy):
        base_url = "https://api.example.com/v1"   # requests go to <base_url>/<endpoint>
        api_key_name = "appid"                    # the key is sent as ?appid=<api_key>
        api_key = os.getenv("WEATHER_API_KEY")

        @BaseProxy.endpoint(
            category="current",
            endpoint="current",
            description="Current temperature for a city.",
            params={"city*": (str, "Paris")},
            response={"city": "Paris", "temp": 21.5},
        )
        def current(self, params: dict) -> dict:
            return params          # shape or validate the request parameters here

    assert WeatherProxy.path == "weather"
    assert 'CALL_API("weather/current", {city (required): str e.g. \'Paris\'})' in WeatherProxy.api_doc()


# ---- "Composing with Pydantic" ---------------------------------------------------------------------

def test_typed_tactic_example_runs_as_written(capsys):
    pytest.importorskip("pydantic")
    from pydantic import BaseModel
    from lllm import Tactic

    class BriefIn(BaseModel):
        topic: str
        audience: str = "engineers"

    class BriefOut(BaseModel):
        title: str

    class Brief(Tactic):
        name = "brief"
        input_type = BriefIn
        output_type = BriefOut

        def call(self, task: BriefIn) -> BriefOut:
            return BriefOut(title=f"{task.topic} for {task.audience}")

    print(Brief()({"topic": "Dialogs"}))                      # dict -> BriefIn
    print(Brief().info().input_schema["required"])            # ['topic']
    assert capsys.readouterr().out == "title='Dialogs for engineers'\n['topic']\n"


def test_model_parser_example_runs_as_written(capsys):
    pytest.importorskip("pydantic")
    from pydantic import BaseModel, Field, ValidationError
    from lllm import Prompt
    from lllm.runtimes.native import BaseParser, ParseError, find_md_blocks

    class Verdict(BaseModel):
        label: str = Field(pattern="^(approve|reject)$")
        confidence: float = Field(ge=0, le=1)

    class ModelParser(BaseParser):
        """Validate a ```json block against a Pydantic model."""

        def __init__(self, model: type[BaseModel]):
            self.model = model

        def parse(self, content: str, **runtime_args) -> dict:
            blocks = find_md_blocks(content, "json")
            if not blocks:
                raise ParseError("Reply with one ```json block.")
            try:
                return {"value": self.model.model_validate_json(blocks[0])}
            except ValidationError as exc:
                raise ParseError(f"The JSON does not match the schema:\n{exc}")

    review = Prompt(
        path="review/verdict",
        prompt="Review this diff:\n{diff}\nReply with a ```json block matching {schema}.",
        parser=ModelParser(Verdict),
    )
    print(review.parse('```json\n{"label": "approve", "confidence": 0.9}\n```')["value"])
    assert capsys.readouterr().out == "label='approve' confidence=0.9\n"
    with pytest.raises(ParseError, match="does not match"):
        review.parse('```json\n{"label": "maybe", "confidence": 0.9}\n```')


def test_structured_output_example_on_a_scripted_model():
    pydantic = pytest.importorskip("pydantic")

    class Report(pydantic.BaseModel):
        title: str
        sources: list[str]

    report_prompt = Prompt(path="report", prompt="Report on {topic}.", format=Report)
    agent = Agent("analyst", "You write reports.", ScriptedInvoker([
        '{"title": "Trees"}',                                         # missing "sources": a repair turn
        '```json\n{"title": "Dialog trees", "sources": ["seed 004"]}\n```',
    ]))
    agent.open("main")
    agent.receive_prompt(report_prompt, {"topic": "dialog trees"})
    report = Report.model_validate(agent.respond().parsed)
    assert report == Report(title="Dialog trees", sources=["seed 004"])
    assert agent.sessions[0].repairs == 1


# ---- "An agentic system is a program" --------------------------------------------------------------

class DraftAndReview(Tactic):
    name = "draft_and_review"
    agent_group = ["writer", "reviewer"]

    def call(self, task: str) -> str:
        writer, reviewer = self.agents["writer"], self.agents["reviewer"]

        writer.open("draft", prompt_args={"topic": task})
        draft = writer.respond().content

        reviewer.open("review")
        reviewer.receive(draft, name="writer")
        return reviewer.respond().content


def draft_and_review_config():
    return {
        "global": {"model_name": "gpt-4o-mini", "invoker": "scripted"},
        "agent_configs": [
            {"name": "writer", "system_prompt": "Write a one-paragraph brief about {topic}.",
             "invoker_config": {"replies": ["Dialogs fork into trees, and every branch keeps its history."]}},
            {"name": "reviewer", "system_prompt": "Tighten the draft you receive.",
             "invoker_config": {"replies": ["Dialogs fork into trees; branches keep history."]}},
        ],
    }


def test_draft_and_review_runs_on_scripted_replies():
    tactic = DraftAndReview(draft_and_review_config())
    session = tactic("dialog trees", return_session=True)
    assert session.delivery == "Dialogs fork into trees; branches keep history."
    summary = session.summary()                      # a dict, as lllm-core's
    assert (summary["tactic"], summary["state"], summary["agent_calls"], summary["sub_tactic_calls"]) == (
        "draft_and_review", "success", 2, 0)
    assert session.report().splitlines()[0].startswith("draft_and_review: success, 2 agent call(s), 0 sub-tactic call(s), 2 model call(s)")
    assert [s.agent for s in session.agent_sessions] == ["writer", "reviewer"]


def test_draft_and_review_bcall_keeps_task_order_and_fresh_agents():
    tactic = DraftAndReview(draft_and_review_config())
    sessions = tactic.bcall(["a", "b", "c"], return_session=True)
    assert [s.task for s in sessions] == ["a", "b", "c"]
    assert all(s.delivery == "Dialogs fork into trees; branches keep history." for s in sessions)


# ---- "Configuration is declaration" ----------------------------------------------------------------

def test_configuration_example_with_a_package_on_disk(tmp_path, monkeypatch):
    pytest.importorskip("yaml")
    (tmp_path / "lllm.toml").write_text(textwrap.dedent("""\
        [package]
        name = "research_kit"

        [prompts]
        paths = ["prompts"]

        [tactics]
        paths = ["tactics"]
    """))
    (tmp_path / "prompts" / "briefs").mkdir(parents=True)
    (tmp_path / "prompts" / "briefs" / "writer.md").write_text("Write a one-paragraph brief about {topic}.")
    (tmp_path / "prompts" / "briefs" / "reviewer.md").write_text("Tighten the draft you receive.")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "search.py").write_text(textwrap.dedent("""\
        from lllm import tool

        @tool(description="Search the notes.")
        def search(query: str) -> str:
            return "no results for " + query
    """))
    (tmp_path / "tactics").mkdir()
    (tmp_path / "tactics" / "draft.py").write_text(textwrap.dedent("""\
        from lllm import Tactic

        class DraftAndReview(Tactic):
            name = "draft_and_review"
            agent_group = ["writer", "reviewer"]

            def call(self, task):
                writer, reviewer = self.agents["writer"], self.agents["reviewer"]
                writer.open("draft", prompt_args={"topic": task})
                draft = writer.respond().content
                reviewer.open("review")
                reviewer.receive(draft, name="writer")
                return reviewer.respond().content
    """))
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "default.yaml").write_text(textwrap.dedent("""\
        tactic_type: draft_and_review
        global:
          model_name: gpt-4o-mini
          tools: [research_kit.tools:search]
          invoker: scripted
          invoker_config: {replies: ["A brief.", "A tighter brief."]}
        agent_configs:
          - name: writer
            system_prompt_path: research_kit:briefs/writer
          - name: reviewer
            system_prompt_path: research_kit:briefs/reviewer
    """))
    monkeypatch.chdir(tmp_path)
    from lllm import build_tactic, load_runtime, resolve_config

    load_runtime()                                   # discover ./lllm.toml
    tactic = build_tactic(resolve_config("default"))
    assert tactic("dialog trees") == "A brief."      # each agent replays the global script from the start
    session = tactic("dialog trees", return_session=True)
    writer_shown = session.agent_sessions[0].steps[0].shown
    assert writer_shown.startswith("System: Write a one-paragraph brief about dialog trees.\nTools")
    assert "- search(query: string): Search the notes." in writer_shown
