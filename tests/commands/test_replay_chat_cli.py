"""`python -m lllm replay chat.json`: an OpenAI-style chat log's trace and timeline, re-run from a step with a brain."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOG = [{"role": "user", "content": "What is 17 * 23? And the weather in Oslo?"},
       {"role": "assistant", "content": "Multiply first.", "tool_calls": [
           {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"expression\": \"17 * 23\"}"}}]},
       {"role": "tool", "tool_call_id": "c1", "content": "391"},
       {"role": "assistant", "content": None, "tool_calls": [
           {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
       {"role": "tool", "tool_call_id": "c2", "content": "4 C, rain"},
       {"role": "assistant", "content": "391, and 4 C with rain in Oslo."}]


def replay(*args):
    return subprocess.run([sys.executable, "-m", "lllm", "replay", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_a_chat_log_prints_its_trace_and_timeline(tmp_path):
    (tmp_path / "chat.json").write_text(json.dumps(LOG))
    done = replay(tmp_path / "chat.json")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "chat log: 3 model calls, 2 tool calls; get_weather cannot run here: its results are the log's"
    assert lines[1:8] == ["Question: What is 17 * 23? And the weather in Oslo?", "Thought: Multiply first.",
                          "Action: calc[17 * 23]", "Observation: 391", "Action: get_weather[Oslo]",
                          "Observation: 4 C, rain", "Final Answer: 391, and 4 C with rain in Oslo."]
    assert lines[8] == "timeline:"
    assert [line.split()[1:4] + [line.split()[-5]] for line in lines[9:14]] == [
        ["model", "call", "1", "recorded"], ["tool", "call", "1", "calc"], ["model", "call", "2", "recorded"],
        ["tool", "call", "2", "recorded"], ["model", "call", "3", "recorded"]]


def test_re_run_from_step_2_with_the_agent_model_parts_at_its_first_call(tmp_path):
    (tmp_path / "chat.json").write_text(json.dumps({"messages": LOG}))
    done = replay(tmp_path / "chat.json", "--from", 2, "--brain", "tinyllm-agent")
    assert (done.returncode, done.stderr) == (0, "")
    branch = done.stdout.split("== from model call 2, tinyllm-agent writes\n", 1)[1].splitlines()
    assert branch[:5] == ["Question: What is 17 * 23? And the weather in Oslo?", "Thought: Multiply first.",
                          "Action: calc[17 * 23]", "Observation: 391", "Final Answer: 391"]
    assert " tinyllm-agent " in branch[-2] and branch[-1] == "the runs part at call 3"


def test_bad_options_and_logs_are_one_line(tmp_path):
    (tmp_path / "chat.json").write_text(json.dumps(LOG))
    (tmp_path / "bad.json").write_text(json.dumps(LOG[:4] + [{"role": "assistant", "content": "done", "tool_calls": "calc"}]))
    (tmp_path / "stray.json").write_text(json.dumps(LOG[:3] + [{"role": "tool", "tool_call_id": "c9", "content": "x"}]))
    (tmp_path / "run.json").write_text(json.dumps({"schema": "lllm-run", "inputs": {"goal": "What is 2 + 2?"}}))
    for args, message in [
            (("chat.json", "--from", 9), "chat.json: --from must be a step between 1 and 4 (the log has 3), got 9"),
            (("chat.json", "--brain", "rule"), "--brain needs --from K: the model call from which that brain writes"),
            (("bad.json",), "bad.json: messages[4].tool_calls must be a list, got 'calc'"),
            (("stray.json",), "stray.json: messages[3] is a tool result, but no assistant message before it called a tool "
                              "with tool_call_id 'c9'"),
            (("run.json", "--from", 1), "--from and --brain re-run a chat log; a run file's branches come from its edits")]:
        done = replay(*(tmp_path / args[0], *args[1:]))
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == f"lllm replay: error: {message.replace(args[0] + ':', str(tmp_path / args[0]) + ':')}\n"
