"""Proxies: endpoint docs, CALL_API inside run_python, the budget, and an agent that programs."""

from lllm.runtimes.native import Agent, Prompt, ProxyManager, ScriptedInvoker
from lllm.runtimes.native.proxies.builtin.weather import WeatherProxy


def test_query_api_doc_lists_the_endpoints():
    doc = ProxyManager([WeatherProxy]).query_api_doc("weather")
    assert doc.splitlines()[0] == "weather: Weather API. Current conditions."
    assert '- CALL_API("weather/current", {city (required): str e.g. \'Paris\'})' in doc
    assert ProxyManager([WeatherProxy]).query_api_doc("moon") == "Error: no proxy 'moon' (proxies: ['weather'])"


def test_run_python_keeps_variables_and_reports_errors_as_text():
    manager = ProxyManager([WeatherProxy])
    assert manager.run_python('temps = [CALL_API("weather/current", {"city": c})["temp"] for c in ["oslo", "lima"]]\n'
                              "print(max(temps))") == "18.0"
    assert manager.run_python("print(len(temps))") == "2"
    assert manager.run_python('CALL_API("weather/current", {})') == \
        "Error: ValueError: weather/current needs parameter 'city'"
    assert manager.run_python('CALL_API("weather/forecast", {})').startswith("Error: KeyError")


def test_run_python_has_a_budget():
    assert ProxyManager([WeatherProxy], budget={"max_steps": 1000}).run_python("while True:\n    pass") == \
        "Error: BudgetExceeded: stopped after 1000 steps"
    manager = ProxyManager([WeatherProxy], budget={"max_output_chars": 20, "max_code_chars": 50})
    assert manager.run_python("print('x' * 100)").endswith("(output cut at 20 characters)")
    assert manager.run_python("#" * 51) == "Error: code is 51 characters; the budget is 50"


def test_an_agent_programs_against_the_proxy():
    manager = ProxyManager([WeatherProxy])
    code = 'print(CALL_API("weather/current", {"city": "Cairo"})["temp"])'
    agent = Agent("analyst", Prompt(path="s", prompt="Answer with data.", function_list=manager.tools()),
                  ScriptedInvoker([{"content": "", "function_calls": [{"name": "run_python", "arguments": {"code": code}}]},
                                   "It is 33.0 degrees in Cairo."]))
    agent.open("main")
    agent.receive("How warm is Cairo?")
    assert agent.respond().content == "It is 33.0 degrees in Cairo."
    assert agent.sessions[0].tool_calls[0].result == "33.0"
