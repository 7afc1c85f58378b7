"""The sampling flags (--temperature, --top-k, --top-p) of every command that has them: one checker
(lllm/commands/args.py check_sampling_args, by lllm/model/sampling.py's rule), one message per mistake."""

import argparse
import re

import pytest

from lllm.commands import main
from lllm.commands.args import UsageError, check_sampling_args

TEMPERATURE = "error: --temperature must be a finite number >= 0, got -1.0"
TOP_P_ZERO = "error: --top-p must be in (0, 1], got 0.0"
TOP_P_HIGH = "error: --top-p must be in (0, 1], got 1.5"
NOT_FINITE = "error: argument --temperature: expected a finite number, got 'nan'"

COMMANDS = {                       # each command's arguments, short of the sampling flags
    "generate": ["generate"],
    "inside": ["inside"],
    "react": ["react", "What is 2 + 3?", "--predictor", "rule"],
    "lab": ["lab", "--predictor", "rule"],
    "evaluate": ["evaluate", "--predictor", "rule"],
    "playground": ["playground", "--predictors", "rule"],
    "explain-memory": ["explain-memory"],
    "workflow": ["workflow", "What is 2 + 3?"],
    "oversee": ["oversee", "What is 2 + 3?"],
    "replay": ["replay", "no-such-run.json"],
}


def usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("flags, message", [(["--temperature", "-1"], TEMPERATURE),
                                            (["--temperature", "nan"], NOT_FINITE)])
def test_every_command_names_a_bad_temperature(command, flags, message, capsys):
    assert usage_error(COMMANDS[command] + flags, capsys) == f"lllm {command}: {message}"


@pytest.mark.parametrize("command", ["generate", "inside"])
@pytest.mark.parametrize("value, message", [("0", TOP_P_ZERO), ("1.5", TOP_P_HIGH)])
def test_a_bad_top_p_is_named(command, value, message, capsys):
    assert usage_error(COMMANDS[command] + ["--top-p", value], capsys) == f"lllm {command}: {message}"


@pytest.mark.parametrize("command", ["generate", "inside"])
def test_a_negative_top_k_is_named(command, capsys):
    line = usage_error(COMMANDS[command] + ["--top-k", "-2"], capsys)
    assert line == f"lllm {command}: error: argument --top-k: must be >= 0, got -2"


def test_the_checker_passes_good_and_unset_flags_and_names_each_mistake():
    check_sampling_args(argparse.Namespace(temperature=None))                    # unset: nothing to check
    check_sampling_args(argparse.Namespace(temperature=0.8, top_k=5, top_p=0.9))
    check_sampling_args(argparse.Namespace())                                    # a command without them
    for namespace, message in [(argparse.Namespace(temperature=-0.5), "--temperature must be a finite number >= 0"),
                               (argparse.Namespace(top_k=-1), "--top-k must be an integer >= 0 (0 = off), got -1"),
                               (argparse.Namespace(top_p=2), "--top-p must be in (0, 1], got 2")]:
        with pytest.raises(UsageError, match=re.escape(message)):
            check_sampling_args(namespace)
