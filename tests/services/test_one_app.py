"""The one app adapter (lllm/services/app.py): every request reaches the route, nothing else answers."""

import httpx

from lllm.services.app import METHODS, create_app, json_response
from support.own_thread import run_async


def ask(app, method: str, path: str) -> httpx.Response:
    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
            return await client.request(method, path)
    return run_async(go())          # a thread of its own: a browser fixture's loop may be running here


def echo_app():
    async def route(request):
        return json_response(200, {"method": request.method, "path": request.scope["path"]}, {"x-route": "one"})
    return create_app("echo", route)


def test_every_method_and_path_reaches_the_one_route():
    app = echo_app()
    for method in METHODS:
        reply = ask(app, method, "/any/path")
        assert reply.status_code == 200 and reply.headers["x-route"] == "one", method
        if method != "HEAD":
            assert reply.json() == {"method": method, "path": "/any/path"}


def test_fastapis_own_pages_are_off_so_the_route_answers_them_too():
    app = echo_app()
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert ask(app, "GET", path).json() == {"method": "GET", "path": path}
