"""lllm/web/yourmodel.py: "your model" in the page checks its endpoint and says what is wrong in one
sentence; the page's demos accept it as a brain (the calls themselves run in the browser tests,
tests/browser/test_yourmodel_engines.py)."""

import doctest
import json

import pytest

from lllm.web import yourmodel
from lllm.web.demos import BRAINS, run_json
from lllm.web.yourmodel import PageChatPredictor, YourModelError, endpoint


def test_the_docstring_example_runs():
    assert doctest.testmod(yourmodel).failed == 0


@pytest.mark.parametrize("url, base", [("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
                                       ("http://localhost:8080/v1", "http://localhost:8080"),
                                       (" http://localhost:8080/v1/chat/completions ", "http://localhost:8080")])
def test_an_address_on_this_computer_is_kept_without_its_v1(url, base):
    assert endpoint({"url": url, "model": " qwen2.5:0.5b "}) == {"url": base, "model": "qwen2.5:0.5b"}


@pytest.mark.parametrize("url", ["https://127.0.0.1:11434", "http://example.com", "http://127.0.0.2:80", "127.0.0.1:11434", None])
def test_any_other_address_is_refused_naming_what_is_allowed(url):
    with pytest.raises(ValueError, match=r"^your model's address must be a server on this computer, http://127\.0\.0\.1:PORT"):
        endpoint({"url": url, "model": ""})


def test_a_model_name_must_be_one_line():
    with pytest.raises(ValueError, match="one line of text"):
        endpoint({"url": "http://127.0.0.1:1", "model": "a\nb"})


def test_the_question_the_page_sends_is_the_http_predictors_request():
    predictor = PageChatPredictor({"url": "http://127.0.0.1:8080", "model": "m"})
    assert predictor.question("Question: hi\n", None) == {
        "url": "http://127.0.0.1:8080", "model": "m", "prompt": "Question: hi\n", "stop": ["Observation:"],
        "temperature": 0, "max_tokens": 256, "call": 0}


def test_outside_the_page_it_says_which_predictor_to_use_instead():
    with pytest.raises(YourModelError, match=r"in a terminal use --predictor http:URL"):
        PageChatPredictor({"url": "http://127.0.0.1:8080", "model": "m"})("Question: hi\n")


def test_the_demos_take_it_as_a_brain_and_refuse_a_bad_endpoint_in_a_sentence():
    assert "yourmodel" in BRAINS
    out = json.loads(run_json(json.dumps({"demo": "react", "goal": "What is 17 * 23?", "brain": "yourmodel"})))
    assert out == {"ok": False, "error": 'your model needs an endpoint: {"url": "http://127.0.0.1:11434", "model": "NAME"}'}


def test_a_server_failure_is_a_visible_predictor_error_step_that_ends_the_run():
    params = {"demo": "react", "goal": "What is 17 * 23?", "brain": "yourmodel",
              "endpoint": {"url": "http://127.0.0.1:9", "model": "m"}}
    trajectory = json.loads(run_json(json.dumps(params)))["trajectory"]
    assert trajectory["stop_reason"] == "predictor error"
    assert trajectory["steps"][-1]["observation"] == (
        "predictor error: YourModelError: your model is called by the page; in a terminal use --predictor http:URL")


def test_the_csp_lets_pages_connect_to_loopback_and_no_other_origin():
    from pathlib import Path
    headers = (Path(__file__).resolve().parents[2] / "site" / "_headers").read_text(encoding="utf-8")
    csp = next(line for line in headers.splitlines() if line.strip().startswith("Content-Security-Policy:"))
    directives = dict(d.strip().split(" ", 1) for d in csp.split(":", 1)[1].split(";") if d.strip())
    assert directives["connect-src"] == "'self' http://localhost:* http://127.0.0.1:*"
