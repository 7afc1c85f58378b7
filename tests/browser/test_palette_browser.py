"""The header's light/dark toggle (site/assets/runtime/palette.mjs, with Material's palette component
turned off by hooks/markup.py) in real Chromium: a light system gets the first palette and no tag of
Material's; a dark system gets the dark palette; a click switches, is saved as Material saves it and
is restored on the next page; Enter on the focused radio switches back."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_toggle_follows_the_system_switches_saves_and_restores(browser, site_server):
    light = browser.new_context(service_workers="block", color_scheme="light")
    page = light.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_server.url + "design/")
    toggle = page.locator("label[title='Switch to dark mode']")
    expect(toggle).to_be_visible()
    expect(page.locator("label[title='Switch to light mode']")).to_be_hidden()
    assert page.evaluate("() => document.body.dataset.mdColorScheme") == "default"
    # Material's component never ran: it would have added these tags to <head>
    assert page.evaluate("() => document.head.querySelectorAll('meta[name=theme-color], meta[name=color-scheme]').length") == 0
    assert page.locator("form[data-md-component=palette]").count() == 0

    toggle.click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    expect(page.locator("label[title='Switch to light mode']")).to_be_visible()
    expect(toggle).to_be_hidden()
    assert page.evaluate("() => document.head.querySelector('meta[name=color-scheme]').content") == "dark"
    saved = json.loads(page.evaluate("() => localStorage.getItem('/.__palette')"))
    assert saved["index"] == 1 and saved["color"]["scheme"] == "slate"

    page.goto(site_server.url + "course/")                     # a new page: the saved choice holds
    assert page.evaluate("() => document.body.dataset.mdColorScheme") == "slate"
    expect(page.locator("label[title='Switch to light mode']")).to_be_visible()
    page.locator("#__palette_1").focus()                      # Enter on the focused radio: the other palette
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
    assert json.loads(page.evaluate("() => localStorage.getItem('/.__palette')"))["index"] == 0
    assert errors == []
    light.close()

    dark = browser.new_context(service_workers="block", color_scheme="dark")
    page = dark.new_page()
    page.goto(site_server.url + "design/")
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    expect(page.locator("label[title='Switch to light mode']")).to_be_visible()
    assert page.evaluate("() => localStorage.getItem('/.__palette')") is None   # followed, not chosen
    dark.close()
