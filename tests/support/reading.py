"""Reading a course page as a reader does, fast: site/assets/course/course.mjs marks a page read only
once each of its sections (the text under each h2) was in view for a time scaled by its length.

`FAST_READING` is the documented test hook: set before the page runs, `window.lllmReadingScale`
multiplies every section's reading time (0.01: from 20 ms to 0.6 s a section instead of 2 s to
60 s), so a test reads a page honestly, section by section, in seconds.

    pg.context.add_init_script(FAST_READING)
    pg.goto(url)
    read_through(pg)                       # scrolls down the page, a part at a time
"""

from __future__ import annotations

FAST_READING = "window.lllmReadingScale = 0.01;"


def read_through(pg, pause_ms: int = 300, passes: int = 10) -> None:
    """Scroll from the top to the bottom, 40 % of the window at a time, pausing in between; again
    (up to `passes` times: on a loaded machine a pause can pass before a section's time is counted)
    until the page's sentinel says every section was read."""
    pg.locator(".lllm-course-sentinel[data-sections]").wait_for(state="attached", timeout=60_000)
    for _ in range(passes):
        pg.evaluate("() => window.scrollTo({top: 0, behavior: 'instant'})")
        while True:
            pg.wait_for_timeout(pause_ms)
            at_end = pg.evaluate("""() => {
                const before = window.scrollY;
                window.scrollBy({top: Math.round(window.innerHeight * 0.4), behavior: 'instant'});
                return window.scrollY === before;
            }""")
            if at_end:
                break
        pg.wait_for_timeout(pause_ms * 2)
        if sections_read(pg) == (total := sections(pg)) and total:
            return


def sections(pg) -> int:
    return int(pg.locator(".lllm-course-sentinel").get_attribute("data-sections") or 0)


def sections_read(pg) -> int:
    return int(pg.locator(".lllm-course-sentinel").get_attribute("data-sections-read") or 0)
