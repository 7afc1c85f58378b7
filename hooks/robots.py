"""MkDocs hook · robots.txt beside the sitemap, both from site_url.

MkDocs writes sitemap.xml (and sitemap.xml.gz) on every build, each page's address made from
`site_url` (mkdocs.yml: https://lllm.pages.dev/, the address Cloudflare Pages gives the project
"lllm"; set SITE_URL when building for another address). This hook writes public/robots.txt,
which lets every crawler read every page and names that sitemap:

    User-agent: *
    Allow: /

    Sitemap: https://lllm.pages.dev/sitemap.xml

tests/site/test_site_files.py checks that both exist and agree.
"""

from __future__ import annotations

from pathlib import Path


def robots_txt(site_url: str) -> str:
    """The robots.txt for a site at `site_url` (which ends with "/").

    >>> print(robots_txt("https://example.org/docs/"), end="")
    User-agent: *
    Allow: /
    <BLANKLINE>
    Sitemap: https://example.org/docs/sitemap.xml
    """
    return f"User-agent: *\nAllow: /\n\nSitemap: {site_url.rstrip('/')}/sitemap.xml\n"


def on_post_build(config, **kwargs) -> None:
    (Path(config["site_dir"]) / "robots.txt").write_text(robots_txt(config["site_url"]), encoding="utf-8")
