"""Composition (lllm/runtimes/native/composition/): refs, the resolver, RemoteTactic, SSE, ComposedTactic.

Short examples with literal values; a tactic in "another package" is reached by reference, in
this process or through the protocol service over httpx's ASGI transport (no socket).
"""

import contextlib
import io
import pathlib
import textwrap

import httpx
import pytest

from lllm.protocol.context import CallContext
from lllm.protocol.errors import TacticRefError
from lllm.protocol.events import TacticEvent
from lllm.protocol.tactic import Tactic
from lllm.runtimes.native.composition import RemoteTactic, RemoteTacticError, TacticRef, TacticResolver, format_sse
from lllm.runtimes.native.composition.composed import ComposedTactic
from lllm.runtimes.native.composition.refs import service_endpoints
from lllm.runtimes.native.composition.sse import iter_sse_events
from lllm.services.protocol_service import ProtocolService
from lllm.runtimes.function_tactic import as_tactic
from support.own_thread import run_async

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDER = ROOT / "lllm" / "runtimes" / "native" / "composition"
SHOUT = "psi://demo/text/tactics/shout"
TWICE = "psi://demo/anthology/tactics/twice"


def shout_tactic():
    return as_tactic(str.upper, name="shout", input_type=str, output_type=str)


class Twice(ComposedTactic):
    input_type = output_type = str

    def steps(self, text, context):
        loud = yield from self.call_ref(SHOUT, text, context)
        return f"{loud} {loud}"


def local_resolver():
    resolver = TacticResolver()
    resolver.register(SHOUT, shout_tactic())
    return resolver


# ---- references ----------------------------------------------------------------------------------

def test_a_ref_has_four_parts():
    ref = TacticRef("psi://demo/text/tactics/shout")
    assert (ref.org, ref.package, ref.resource_kind, ref.name, str(ref)) == ("demo", "text", "tactics", "shout", SHOUT)
    assert TacticRef.parse(ref) is ref and ref == TacticRef(SHOUT)


@pytest.mark.parametrize("value, message", [
    (None, "non-empty string, got None"),
    ("demo/text/tactics/shout", "is not a reference"),
    ("psi://demo/text/tactics", "must have four parts"),
    ("psi://demo/text/channels/events", "unknown resource kind 'channels'"),
    ("psi://demo/te xt/tactics/shout", "segment 'te xt'"),
    ("psi://demo/text/tactics/..", "segment '..'"),
])
def test_a_bad_ref_names_the_rule_it_broke(value, message):
    with pytest.raises(TacticRefError, match=message):
        TacticRef(value)


def test_a_service_url_gives_three_routes():
    assert service_endpoints("http://host:8000/tactics/echo/") == (
        "http://host:8000/tactics/echo/run", "http://host:8000/tactics/echo/stream", "http://host:8000/tactics/echo/info")
    assert service_endpoints("http://host/run")[2] == "http://host/info"


@pytest.mark.parametrize("url, message", [
    ("ftp://host/run", "absolute http"), ("http://u:p@host/run", "embedded credentials"),
    ("http://host/run?x=1", "query or fragment"), ("http://host/a%2Fb", "percent escapes"),
    ("http://host//run", "empty segments"), ("http://host/../run", "dot segments"), ("http://host/a:b", "colons"),
])
def test_a_bad_service_url_names_the_rule(url, message):
    with pytest.raises(ValueError, match=message):
        service_endpoints(url)


# ---- the resolver --------------------------------------------------------------------------------

def test_a_registered_ref_runs_here():
    resolver = local_resolver()
    assert resolver.run(SHOUT, "hi") == "HI"
    assert resolver.refs() == (SHOUT,)


def test_an_unknown_tactic_names_its_package_and_what_it_has():
    with pytest.raises(TacticRefError) as raised:
        local_resolver().resolve("psi://demo/text/tactics/whisper")
    assert str(raised.value) == ("no tactic is bound to 'psi://demo/text/tactics/whisper': "
                                 "package demo/text has no tactic 'whisper' (its tactics: ['shout'])")


def test_an_unknown_package_lists_the_bound_packages():
    with pytest.raises(TacticRefError) as raised:
        local_resolver().run("psi://acme/story/tactics/continue", "Once")
    assert str(raised.value) == ("no tactic is bound to 'psi://acme/story/tactics/continue': "
                                 "no package acme/story is bound (packages: ['demo/text'])")


def test_register_takes_only_tactics():
    with pytest.raises(TypeError, match="register needs a protocol Tactic .* got function"):
        TacticResolver().register(SHOUT, lambda text: text.upper())


def test_a_ref_as_a_tool():
    function = local_resolver().as_function(SHOUT)
    assert (function.name, function.function(task="hi")) == ("shout", "HI")


def write_config(tmp_path, text):
    (tmp_path / ".psi").mkdir()
    (tmp_path / ".psi" / "config.toml").write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def test_a_shared_config_binds_tactic_refs_and_skips_the_rest(tmp_path):
    write_config(tmp_path, f"""
        [refs."{SHOUT}"]
        url = "http://127.0.0.1:8000/tactics/shout"
        [refs."{SHOUT}".metadata]
        api_key_ref = "credentials/openai"
        [refs."psi://demo/text/channels/events"]
        store = ".sssn"
    """)
    tactic = TacticResolver.from_config(tmp_path).resolve(SHOUT)
    assert isinstance(tactic, RemoteTactic) and tactic.url == "http://127.0.0.1:8000/tactics/shout/run"
    assert tactic.info().metadata == {"api_key_ref": "credentials/openai", "ref": SHOUT,
                                      "url": "http://127.0.0.1:8000/tactics/shout/run"}


@pytest.mark.parametrize("entry, message", [
    ('url = "http://h/t"\nstore = ".sssn"', r"only one concrete target, its url; remove \['store'\]"),
    ('path = "tactic.py"', "needs a url target"),
    ('url = "http://h/t"\ntoken = "raw"', r"raw secret key\(s\) \['token'\]"),
    ("url = 3", "url must be a non-empty string, got 3"),
])
def test_a_bad_binding_names_the_ref_and_the_problem(tmp_path, entry, message):
    write_config(tmp_path, f'[refs."{SHOUT}"]\n' + entry + "\n")
    with pytest.raises(TacticRefError, match=message) as raised:
        TacticResolver.from_config(tmp_path)
    assert SHOUT in str(raised.value)


def test_a_missing_config_file_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no tactic config at .*\.psi/config\.toml"):
        TacticResolver.from_config(tmp_path)


# ---- server-sent events ----------------------------------------------------------------------------

def test_an_event_is_one_data_line_and_reads_back():
    text = format_sse(TacticEvent(id="e1", kind="return", data="HI", metadata={"api_key": "x", "ref": SHOUT},
                                  timestamp=1.0))
    assert text == ('data: {"id": "e1", "kind": "return", "data": "HI", '
                    '"metadata": {"ref": "psi://demo/text/tactics/shout"}, "timestamp": 1.0}\n\n')
    [event] = iter_sse_events(text.splitlines())
    assert (event.id, event.kind, event.data) == ("e1", "return", "HI")


def test_a_broken_envelope_is_an_error_event_not_an_exception():
    [event] = iter_sse_events(['data: {"kind": "message", "timestamp": "noon"}', ""])
    assert event.kind == "error" and event.data == {"message": "Invalid SSE event envelope."}
    assert event.metadata["errors"] == ["timestamp: Input should be a valid number"]


class Countdown(Tactic):
    name = "countdown"
    input_type = output_type = int

    def _run(self, n, *, context=None):
        return 0

    def stream(self, n, *, context=None):
        yield from range(n, 0, -1)


def test_any_streaming_tactic_gives_events_and_async_chunks():
    assert [(e.kind, e.data) for e in Countdown().events("3")] == [("message", 3), ("message", 2), ("message", 1)]

    async def chunks():
        return [chunk async for chunk in Countdown().astream(2)]
    assert run_async(chunks()) == [2, 1]


def test_the_service_sends_a_stream_as_sse_lines():
    status, stream = ProtocolService([Countdown()]).handle("POST", "/tactics/countdown/stream", b'{"input": 2}')

    async def frames():
        return [frame async for frame in stream.frames()]
    text = b"".join(run_async(frames())).decode("utf-8")
    assert status == 200 and text.startswith('data: {"id": ') and text.count("\n\n") == 2
    assert [(e.kind, e.data) for e in iter_sse_events(text.splitlines())] == [("message", 2), ("message", 1)]


# ---- composing by reference ------------------------------------------------------------------------

def test_a_composed_tactic_runs_and_streams_its_calls():
    twice = Twice(local_resolver(), name="twice")
    assert twice.run("hey") == "HEY HEY"
    assert [(e.kind, e.metadata.get("ref"), e.data) for e in twice.events("hey")] == [
        ("call", SHOUT, "hey"), ("return", SHOUT, "HEY"), ("result", None, "HEY HEY")]
    assert twice.info().runtime_kind == "composed" and "stream" in twice.info().capabilities


def test_a_composed_tactic_needs_a_resolver():
    with pytest.raises(TypeError, match="needs a TacticResolver .* got dict"):
        Twice({}, name="twice")


def test_a_missing_sub_tactic_fails_the_call_naming_the_ref():
    with pytest.raises(TacticRefError, match="no tactic is bound to 'psi://demo/text/tactics/shout': "
                                             r"no package demo/text is bound \(packages: \[\]\)"):
        Twice(TacticResolver(), name="twice").run("hey")


def served(*tactics):
    """The protocol service as an async transport (ASGI, no socket)."""
    return httpx.ASGITransport(app=ProtocolService(list(tactics)))


def served_sync(*tactics):
    """The same service for sync clients: each request goes to ProtocolService.handle."""
    service = ProtocolService(list(tactics))

    def answer(request):
        status, data = service.handle(request.method, request.url.path, request.content)
        return httpx.Response(status, json=data)
    return httpx.MockTransport(answer)


def test_the_sub_tactic_can_live_behind_a_service():
    resolver = TacticResolver()
    resolver.bind_url(SHOUT, "http://svc/tactics/shout", input_type=str, output_type=str,
                      transport=served_sync(shout_tactic()), async_transport=served(shout_tactic()))
    assert run_async(resolver.arun(SHOUT, "hi")) == "HI"
    assert Twice(resolver, name="twice").run("hi") == "HI HI"          # the program did not change


def test_a_composed_tactic_streams_over_sse_to_a_remote_caller():
    remote = RemoteTactic("http://svc/tactics/twice", input_type=str, output_type=str,
                          async_transport=served(Twice(local_resolver(), name="twice")))

    async def collect():
        return [(e.kind, e.data) async for e in remote.aevents("hey")], [c async for c in remote.astream("hey")]
    events, chunks = run_async(collect())
    assert events == [("call", "hey"), ("return", "HEY"), ("result", "HEY HEY")]
    assert chunks == ["hey", "HEY", "HEY HEY"]


def test_a_service_error_keeps_its_fields():
    broken = as_tactic(lambda text: 1 / 0, name="broken", input_type=str, output_type=str)
    remote = RemoteTactic("http://svc/run", async_transport=served(broken))
    with pytest.raises(RemoteTacticError) as raised:
        run_async(remote.arun("x", context=CallContext(request_id="r1")))
    error = raised.value
    assert (error.status_code, error.error_type, error.message, error.tactic, error.endpoint, error.request_id) == (
        500, "ZeroDivisionError", "division by zero", "broken", "run", "r1")


def test_a_tactic_that_does_not_stream_is_refused_before_the_stream_starts():
    status, data = ProtocolService([shout_tactic()]).handle("POST", "/stream", b'{"input": "hi"}')
    error = data["detail"]["error"]
    assert (status, error["type"], error["endpoint"]) == (400, "TacticUnsupportedError", "stream")


# ---- the modules and the page's example ----------------------------------------------------------

MODULES = sorted(p.stem for p in FOLDER.glob("*.py"))


def test_the_page_example_prints_each_event_on_tinyllm():
    from support.runtime import MODEL, snippet
    if not MODEL.is_file():
        pytest.skip("run `make model` first")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet("lllm/runtimes/native/composition/composed.py", "demo"), "demo", "exec"), {})
    heads = [line for line in out.getvalue().splitlines() if not line.startswith(" ")]
    assert heads == ["call   psi://demo/story/tactics/continue", "return psi://demo/story/tactics/continue"] * 2 + [
        "call   psi://demo/text/tactics/count_words", "return psi://demo/text/tactics/count_words", "result"]
