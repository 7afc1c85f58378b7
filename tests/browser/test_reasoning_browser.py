"""The reasoning page in real Chromium: every cell prints in Pyodide exactly what it prints in CPython
(the same puzzles, seeds and search trees: the frameworks reproduce in the browser), and the lab
draws what `lab_json` computes in CPython."""

import json

import pytest

from support.runtime import CELL, ROOT, cpython_outputs as cpython_output

pytestmark = pytest.mark.browser


def test_cells_print_in_the_page_what_they_print_in_cpython(page, site_server):
    codes = CELL.findall((ROOT / "site" / "reasoning" / "index.md").read_text())
    expected = cpython_output(codes)
    page.page.goto(site_server.url + "reasoning/")
    page.page.evaluate("lllm.ready()")
    for code, want in zip(codes, expected):
        result = page.page.evaluate("([code, ns]) => lllm.run(code, {namespace: ns})", [code, "reasoning"])
        assert result["stdout"] == want
    assert len(codes) == 5


def lab_result(params):
    from lllm.labs.reasoning_bench.benchmark import lab_json
    return json.loads(lab_json(json.dumps(params)))


def open_lab(page, site_server):
    page.page.goto(site_server.url + "reasoning/")
    return page.page.locator(".lllm-reasoning-lab")


def press(lab, button, state="done", timeout=180_000):
    """Click one of the lab's buttons (run, bench, sweep) and wait until it is `state`."""
    from playwright.sync_api import expect
    lab.locator(f".lllm-reasoning-lab__{button}").click()
    expect(lab).to_have_attribute("data-state", state, timeout=timeout)


def test_the_lab_grows_the_tree_that_cpython_computes(page, site_server):
    lab = open_lab(page, site_server)
    lab.locator("input[name=puzzle]").fill("950")
    lab.locator("select[name=framework]").select_option("tot-dfs")
    lab.locator("input[name=error_rate]").fill("0.6")
    press(lab, "run")
    want = lab_result({"kind": "run", "puzzle": 950, "framework": "tot-dfs", "error_rate": 0.6, "value_noise": 0.5,
                       "seed": 1, "task": "game24", "model": "stand-in"})
    assert lab.locator("li.lllm-reasoning-lab__node").count() == len(want["tree"])
    assert want["verification"]["message"] in lab.locator(".lllm-reasoning-lab__verdict").text_content()
    assert lab.locator("li.lllm-reasoning-lab__node--pruned").count() == sum(n["note"] == "pruned" for n in want["tree"])
    assert "not an LLM" in lab.locator(".lllm-reasoning-lab__note").text_content()

    lab.locator("input[name=puzzle]").fill("5000")
    press(lab, "run", "error", timeout=60_000)
    assert lab.locator(".lllm-reasoning-lab__error").text_content() == "puzzle must be a row 0..1361, got 5000"

    lab.locator("input[name=limit]").fill("3")
    press(lab, "bench")
    assert lab.locator("circle.lllm-reasoning-lab__point").count() == 10
    assert lab.locator("line.lllm-reasoning-lab__interval").count() == 10
    page.assert_clean()


def test_the_lab_draws_got_as_a_graph_and_rap_as_a_tree(page, site_server):
    pg = page.page
    lab = open_lab(page, site_server)
    lab.locator("input[name=puzzle]").fill("900")
    for framework in ("got", "rap"):
        lab.locator("select[name=framework]").select_option(framework)
        press(lab, "run")
        want = lab_result({"kind": "run", "puzzle": 900, "framework": framework, "error_rate": 0.5, "value_noise": 0.5,
                           "seed": 1, "task": "game24", "model": "stand-in"})
        assert lab.locator("circle.lllm-reasoning-lab__vertex").count() == len(want["tree"])
        merges = sum(len(n["merged"]) for n in want["tree"])
        assert lab.locator("line.lllm-reasoning-lab__merge").count() == merges
        assert pg.evaluate("document.querySelector('.lllm-reasoning-lab').lllmResult") == want
    page.assert_clean()


def test_the_lab_runs_the_second_task_and_the_sweep(page, site_server):
    lab = open_lab(page, site_server)
    lab.locator("select[name=task]").select_option("brookfield")
    lab.locator("select[name=framework]").select_option("react")
    press(lab, "run")
    want = lab_result({"kind": "run", "puzzle": 1, "framework": "react", "error_rate": 0.5, "value_noise": 0.5,
                       "seed": 1, "task": "brookfield", "model": "stand-in"})
    assert want["verification"]["message"] in lab.locator(".lllm-reasoning-lab__verdict").text_content()

    lab.locator("select[name=task]").select_option("game24")
    lab.locator("input[name=limit]").fill("2")
    press(lab, "sweep", timeout=300_000)
    want = lab_result({"kind": "sweep", "frameworks": ["io", "tot-bfs", "got", "rap"], "limit": 2, "error_rate": 0.5,
                       "task": "game24", "model": "stand-in"})
    rows = lab.locator(".lllm-reasoning-lab__output table tr")
    assert rows.count() == 5
    assert rows.nth(4).locator("td").nth(1).text_content().startswith(f"{100 * want['sweep']['rap'][0]['success']:.1f}%")
    page.assert_clean()


def test_the_lab_runs_on_the_pages_own_tinyllm(page, site_server):
    pg = page.page
    lab = open_lab(page, site_server)
    lab.locator("select[name=model]").select_option("tinyllm")
    lab.locator("select[name=framework]").select_option("io")
    press(lab, "run")
    result = pg.evaluate("document.querySelector('.lllm-reasoning-lab').lllmResult")
    assert (result["usage"]["calls"], result["usage"]["unit"]) == (1, "chars")
    assert 0 < result["usage"]["tokens_out"] <= 80                  # max_new_tokens is sent to the page's model
    assert "TinyLLM in this page" in lab.locator(".lllm-reasoning-lab__note").text_content()
    page.assert_clean()


OVERLAPS = """svg => {
  const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
  const frame = svg.getBoundingClientRect(), found = [];
  for (const [i, [a, r]] of boxes.entries()) {
    if (r.left < frame.left - 0.5 || r.right > frame.right + 0.5 || r.top < frame.top - 0.5 || r.bottom > frame.bottom + 0.5) found.push(`${a} leaves the chart`);
    for (const [b, s] of boxes.slice(i + 1))
      if (r.left < s.right - 0.5 && s.left < r.right - 0.5 && r.top < s.bottom - 0.5 && s.top < r.bottom - 0.5) found.push(`${a} / ${b}`);
  }
  return {found, count: boxes.length};
}"""


def test_the_lab_reads_plainly_and_fits_a_phone(browser, site_server):
    """At 390 px: the method menu says what each method is (its value is still the CLI's name); the
    benchmark chart's labels overlap nothing and stay inside it; the table's last column is visible
    without scrolling sideways."""
    from conftest import origin, watch
    watched = watch(browser.new_context(service_workers="block", viewport={"width": 390, "height": 800}), {origin(site_server.url)})
    try:
        lab = open_lab(watched, site_server)
        options = lab.locator("select[name=framework] option")
        assert options.evaluate_all("os => os.map(o => o.value)") == ["io", "cot", "cot-sc", "react", "reflexion",
                                                                       "tot-bfs", "tot-dfs", "got", "rap", "foa"]
        labels = options.all_text_contents()
        assert labels[0] == "Input–output, one call (io)" and labels[5] == "Tree of thoughts, breadth-first (tot-bfs)"
        assert all(len(label) > len(value) + 3 for label, value in zip(labels, ["io", "cot", "cot-sc", "react", "reflexion", "tot-bfs", "tot-dfs", "got", "rap", "foa"]))
        lab.locator("input[name=limit]").fill("3")
        press(lab, "bench")
        chart = lab.locator(".lllm-reasoning-lab__output svg")
        result = chart.evaluate(OVERLAPS)
        assert result["count"] >= 8 and not result["found"], result
        table = lab.locator(".lllm-reasoning-lab__output table")
        fit = table.evaluate("""t => { const box = t.parentElement.getBoundingClientRect();
          const last = [...t.querySelectorAll('tr > :last-child')].map(c => c.getBoundingClientRect().right);
          return {right: Math.max(...last), edge: Math.min(box.right, innerWidth), hidden: t.scrollWidth - t.clientWidth,
                  page: document.documentElement.scrollWidth - innerWidth}; }""")
        assert fit["right"] <= fit["edge"] + 0.5 and fit["hidden"] <= 1 and fit["page"] <= 0, fit
        watched.assert_clean()
    finally:
        watched.page.context.close()
