"""The reasoning page in real Chromium: every cell prints in Pyodide exactly what it prints in CPython
(the same puzzles, seeds and search trees: the frameworks reproduce in the browser)."""

import json

import pytest

from runtime_support import CELL, ROOT, cpython_outputs as cpython_output

pytestmark = pytest.mark.browser


def test_cells_print_in_the_page_what_they_print_in_cpython(page, site_server):
    codes = CELL.findall((ROOT / "site" / "reasoning" / "index.md").read_text())
    expected = cpython_output(codes)
    page.page.goto(site_server.url + "reasoning/")
    page.page.evaluate("lllm.ready()")
    for code, want in zip(codes, expected):
        result = page.page.evaluate("([code, ns]) => lllm.run(code, {namespace: ns})", [code, "reasoning"])
        assert result["stdout"] == want
    assert len(codes) == 4


def test_the_lab_grows_the_tree_that_cpython_computes(page, site_server):
    from playwright.sync_api import expect
    from lllm.labs.reasoning_lab import lab_json
    pg = page.page
    pg.goto(site_server.url + "reasoning/")
    lab = pg.locator(".lllm-reasoning-lab")
    lab.locator("input[name=puzzle]").fill("950")
    lab.locator("select[name=framework]").select_option("tot-dfs")
    lab.locator("input[name=error_rate]").fill("0.6")
    lab.locator(".lllm-reasoning-lab__run").click()
    expect(lab).to_have_attribute("data-state", "done", timeout=180_000)
    want = json.loads(lab_json(json.dumps({"kind": "run", "puzzle": 950, "framework": "tot-dfs", "error_rate": 0.6, "seed": 1})))
    assert lab.locator("li.lllm-reasoning-lab__node").count() == len(want["tree"])
    assert want["verification"]["message"] in lab.locator(".lllm-reasoning-lab__verdict").text_content()
    assert lab.locator("li.lllm-reasoning-lab__node--pruned").count() == sum(n["note"] == "pruned" for n in want["tree"])

    lab.locator("input[name=puzzle]").fill("5000")
    lab.locator(".lllm-reasoning-lab__run").click()
    expect(lab).to_have_attribute("data-state", "error", timeout=60_000)
    assert lab.locator(".lllm-reasoning-lab__error").text_content() == "puzzle must be a row 0..1361, got 5000"

    lab.locator("input[name=limit]").fill("3")
    lab.locator(".lllm-reasoning-lab__bench").click()
    expect(lab).to_have_attribute("data-state", "done", timeout=180_000)
    assert lab.locator("circle.lllm-reasoning-lab__point").count() == 8
    page.assert_clean()
