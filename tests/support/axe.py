"""axe-core's accessibility check in one place: the serious and critical WCAG 2 A and AA violations on a page.

    serious_violations(page)                 -> [] or ["color-contrast (serious): main > p | ...", ...]
    serious_violations(page, ".lllm-demo")   -> the same, within the first element the selector matches

`page` is a Playwright page; axe-core (npm, node_modules/axe-core) is added to it when it is not there yet,
so call it again after a navigation. Each violation reads "rule (impact): up to three of its elements".
"""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = """(root) => axe.run(root ? document.querySelector(root) : document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}})
  .then(r => r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v =>
    `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`))"""


def add_axe(page) -> None:
    """axe-core in the page (once per document)."""
    if not AXE.is_file():
        raise RuntimeError(f"{AXE} not found: run `make node` (npm ci installs axe-core)")
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))


def serious_violations(page, root: str | None = None) -> list[str]:
    """The serious and critical WCAG 2 A/AA violations axe-core finds in the document, or within `root`."""
    add_axe(page)
    return page.evaluate(SERIOUS, root)
