"""The site's own stylesheets reach a page as one file named by its content (hooks/styles.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hooks.styles import REFERENCE, bundle, bundle_name, on_config

ROOT = Path(__file__).resolve().parents[2]


def listed_stylesheets() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    block = text.split("\nextra_css:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  - (\S+)", block, re.M)


def test_every_page_links_one_bundle_holding_every_listed_stylesheet_in_order(site_build):
    css = listed_stylesheets()
    assert len(css) >= 5, css
    home = (site_build.dir / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', home)
    bundles = [link for link in links if "/site." in "/" + link]
    assert len(bundles) == 1, links
    assert not any(name in link for link in links for name in css), f"a listed stylesheet is linked on its own: {links}"
    text = (site_build.dir / bundles[0]).read_text(encoding="utf-8")
    positions = [text.index((ROOT / "site" / name).read_text(encoding="utf-8").strip()) for name in css]
    assert positions == sorted(positions), "the bundle keeps mkdocs.yml's order (later rules win)"
    assert bundles[0].endswith(bundle_name(text).split("/")[-1]), "the name is the hash of the bytes served"
    for name in css:
        assert not (site_build.dir / name).exists(), f"{name} is published on its own as well"


def test_the_bundle_is_cached_for_a_year_by_the_headers_file(site_build):
    from hooks.serve import parse_headers_file

    rules = parse_headers_file(site_build.dir / "_headers")
    assert ("Cache-Control", "public, max-age=31536000, immutable") in dict(rules)["/assets/stylesheets/site.*"]


def test_a_stylesheet_that_refers_to_another_file_is_refused_by_name(tmp_path):
    (tmp_path / "a.css").write_text("p { background: url(img.png) }")
    config = {"docs_dir": str(tmp_path), "extra_css": ["a.css"]}
    with pytest.raises(ValueError, match=r"a\.css refers to another file"):
        on_config(config)
    assert REFERENCE.search("@import 'x.css';")


def test_bundle_names_each_part_and_changes_name_with_content():
    text = bundle([("x.css", "p{}"), ("y.css", "h1{}")])
    assert text.index("/* x.css */") < text.index("/* y.css */")
    assert bundle_name(text) != bundle_name(text + " ")
