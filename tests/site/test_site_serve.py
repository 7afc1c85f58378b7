"""hooks/serve.py, the stdlib server behind `make serve`: MIME types, 404 page, _headers rules."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from hooks.serve import main, serve_in_thread


@pytest.fixture
def served(tmp_path):
    (tmp_path / "index.html").write_text("<h1>home</h1>")
    (tmp_path / "404.html").write_text("<h1>Page not found</h1>")
    for name in ["a.mjs", "b.wasm", "c.onnx", "d.whl"]:
        (tmp_path / name).write_bytes(b"\0")
    (tmp_path / "_headers").write_text("# comment\n/*\n  X-Test: all\n/a.*\n  Cache-Control: immutable\n")
    (tmp_path / "_redirects").write_text("/x /y 301\n")
    server = serve_in_thread(tmp_path)
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("name, mime", [("a.mjs", "text/javascript"), ("b.wasm", "application/wasm"),
                                        ("c.onnx", "application/octet-stream"), ("d.whl", "application/zip"),
                                        ("", "text/html")])
def test_mime_types(served, name, mime):
    with urllib.request.urlopen(served + name) as response:
        assert response.headers["Content-Type"].split(";")[0] == mime


def test_headers_rules_apply_by_pattern(served):
    with urllib.request.urlopen(served + "a.mjs") as response:
        assert response.headers["X-Test"] == "all"
        assert response.headers["Cache-Control"] == "immutable"
    with urllib.request.urlopen(served) as response:
        assert response.headers["X-Test"] == "all" and response.headers["Cache-Control"] is None


@pytest.mark.parametrize("path", ["missing/", "missing.js", "_headers", "_redirects"])
def test_missing_paths_get_the_404_page(served, path):
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(served + path)
    assert err.value.code == 404
    assert err.value.read() == b"<h1>Page not found</h1>"


def test_refuses_a_folder_without_a_site(tmp_path, capsys):
    assert main(["--dir", str(tmp_path), "--port", "0"]) == 2
    assert "make site" in capsys.readouterr().err


def test_gzip_serves_text_compressed_and_binary_plain(tmp_path):
    """With compress=True, text and WebAssembly go out gzip'd (as Cloudflare sends them); models do not;
    a client that does not accept gzip gets the plain bytes; a folder without its slash still redirects."""
    import gzip

    from hooks.serve import make_server
    import threading

    text = "<p>" + "words " * 500 + "</p>"
    (tmp_path / "index.html").write_text(text)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "index.html").write_text(text)
    (tmp_path / "m.onnx").write_bytes(b"\1" * 1000)
    (tmp_path / "_headers").write_text("/*\n  X-Test: all\n")
    server = make_server(tmp_path, 0, compress=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    try:
        request = urllib.request.Request(base, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            assert response.headers["Content-Encoding"] == "gzip" and response.headers["X-Test"] == "all"
            assert gzip.decompress(response.read()).decode() == text
        with urllib.request.urlopen(base) as response:
            assert response.headers["Content-Encoding"] is None and response.read().decode() == text
        with urllib.request.urlopen(urllib.request.Request(base + "m.onnx", headers={"Accept-Encoding": "gzip"})) as response:
            assert response.headers["Content-Encoding"] is None and response.read() == b"\1" * 1000
        with urllib.request.urlopen(urllib.request.Request(base + "sub", headers={"Accept-Encoding": "gzip"})) as response:
            assert response.url.endswith("/sub/")   # redirected, then served compressed and decoded by the test
    finally:
        server.shutdown()
        server.server_close()
