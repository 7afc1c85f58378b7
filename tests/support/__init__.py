"""Shared helpers for the tests (and the benchmarks that drive browsers the same way):

    runtime.py       the browser, the ports (`free_port`, once), building and serving the site
    engines.py       Chromium, Firefox and WebKitGTK driven the same way (scenario scripts beside it)
    first_visit.py   counting what a first visit downloads
    model_files.py   the trained models a test needs, built or skipped with a reason
    own_thread.py    running a blocking call on its own thread
    quiz_page.py     answering quiz choices by what they say (the page shuffles them)
"""
