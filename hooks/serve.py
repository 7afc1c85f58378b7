"""Serve the built site (public/) on loopback, the way Cloudflare Pages would, with the stdlib.

    python -m hooks.serve --dir public --port 8000

What it adds to `python -m http.server`: the right MIME types for .mjs, .wasm, .onnx and friends;
a missing path answers 404 with the site's own 404.html; the `_headers` file is applied (so the
Content-Security-Policy is in force locally too); `_headers`/`_redirects` themselves are not served.
With `--gzip` (`make serve` and the Lighthouse bench use it) text and WebAssembly go out gzip'd to a
browser that accepts it, as Cloudflare Pages compresses them; tests serve uncompressed, so byte counts
they take from the wire stay the files' own sizes. Tests import `make_server` to run it in a thread.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import gzip
import http.server
import io
import os
import sys
import threading
from pathlib import Path

MIME_TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".onnx": "application/octet-stream",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
}
HIDDEN = {"/_headers", "/_redirects"}
# What Cloudflare compresses among the site's files (images, models and wheels are sent as they are).
COMPRESSIBLE = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt", ".xml", ".py", ".map", ".wasm", ".webmanifest"}


def parse_headers_file(path: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    """Cloudflare's `_headers` format: a URL pattern line, then indented `Name: value` lines."""
    rules: list[tuple[str, list[tuple[str, str]]]] = []
    if not path.is_file():
        return rules
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            name, _, value = line.strip().partition(":")
            rules[-1][1].append((name.strip(), value.strip()))
        else:
            rules.append((line.strip(), []))
    return rules


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    header_rules: list[tuple[str, list[tuple[str, str]]]] = []
    quiet = False
    compress = False

    def send_head(self):
        if self.path.split("?")[0] in HIDDEN:
            self.send_error(404)
            return None
        if self.compress and "gzip" in self.headers.get("Accept-Encoding", ""):
            body = self.gzipped()
            if body is not None:
                return body
        return super().send_head()

    def gzipped(self):
        """The file gzip'd with its headers sent, or None to serve it plainly (a folder, missing, not text)."""
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return None   # the parent class redirects to the folder's URL with its slash
            path = path / "index.html"
        if path.suffix not in COMPRESSIBLE or not path.is_file():
            return None
        data = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Last-Modified", self.date_time_string(int(path.stat().st_mtime)))
        self.end_headers()
        return io.BytesIO(data)

    def end_headers(self):
        path = self.path.split("?")[0]
        for pattern, headers in self.header_rules:
            if fnmatch.fnmatchcase(path, pattern):
                for name, value in headers:
                    self.send_header(name, value)
        super().end_headers()

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


def make_server(directory: str | os.PathLike, port: int = 0, host: str = "127.0.0.1", quiet: bool = True,
                compress: bool = False):
    """A ThreadingHTTPServer for `directory` (port 0 picks a free port: see server.server_port)."""
    directory = Path(directory).resolve()
    handler = type("Handler", (SiteHandler,), {
        "header_rules": parse_headers_file(directory / "_headers"), "quiet": quiet, "compress": compress})
    server = http.server.ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(directory)))
    server.daemon_threads = True
    return server


def serve_in_thread(directory, port: int = 0):
    """Start a server in a daemon thread; returns it (call .shutdown() when done)."""
    server = make_server(directory, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hooks.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="public", help="folder to serve (default: public)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--gzip", action="store_true", help="compress text and WebAssembly, as Cloudflare Pages does")
    args = parser.parse_args(argv)
    if not (Path(args.dir) / "index.html").is_file():
        print(f"error: {args.dir}/index.html not found; run `make site` first", file=sys.stderr)
        return 2
    server = make_server(args.dir, args.port, args.host, quiet=False, compress=args.gzip)
    print(f"Serving {args.dir}/ at http://{args.host}:{server.server_port}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
