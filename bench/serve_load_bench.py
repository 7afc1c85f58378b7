"""Benchmark: `serve-model` and `lllm serve` (uvicorn and http.server) under load, measured with Locust.

Not a test: it prints numbers and ratios measured in this one run, and writes them to
bench/results/serve-load.md. Locust (headless, one process, on the same 2 cores as the server)
drives each scenario for `--seconds`; a probe in the bench's own process asks /health throughout.

    python bench/serve_load_bench.py [--seconds 10] [--servers model,uvicorn,stdlib] [--scenarios "plain 256,stream 256"]

Scenarios (clients at once): baseline (1 plain), plain 16/64/256, stream 16/64/256 (read to the
end), vanish 100 (read the first frame, then close), slow 300 (300 raw sockets sending a header
byte every 0.5 s, reconnecting when shut out, beside 4 plain clients). Per scenario: requests/s,
p50/p99 (ms), 503s, other errors, the health probe's p99 (it asks every 0.05 s on one kept-alive
connection, as a monitor would), the server's RSS after and its CPU-seconds per request (RSS
and CPU are the server's and its worker processes', summed); ratios are to the same run's
baseline row, which always runs. The machine's load average before and after each server's run
is printed with it (the machine may be shared). "abandoned CPU" is CPU per
vanished stream over CPU per stream read to the end (at 64 clients).
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.model_server import ModelServer  # noqa: E402
from support.tactic_server import TacticServer  # noqa: E402

LOCUSTFILE = ROOT / "bench" / "serve_locustfile.py"
TACTIC = '''
from lllm.protocol.tactic import Tactic


class Work(Tactic[str, str]):
    input_type = output_type = str

    def _run(self, text, *, context=None):
        sum(range(200_000))                       # a few milliseconds of CPU, as a small model call would take
        return text.upper()

    def stream(self, text, *, context=None):
        for i in range(20):
            sum(range(50_000))
            yield f"{text} {i}"


shout = Work(name="work")
'''
SCENARIOS = [("baseline", "plain", 1), ("plain", "plain", 16), ("plain", "plain", 64), ("plain", "plain", 256),
             ("stream", "stream", 16), ("stream", "stream", 64), ("stream", "stream", 256),
             ("vanish", "vanish", 100), ("slow 300", "plain", 4)]


def family(pid: int) -> list[int]:
    """The server and its child processes (`lllm serve`'s workers, where its tactics run)."""
    found = [pid]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[1] == str(pid):
                found.append(int(stat.parent.name))
        except (OSError, IndexError):
            pass
    return found


def rss_mb(pid: int) -> float:
    """Resident MB of the server and its workers, summed (pages they share are counted in each)."""
    total = 0
    for one in family(pid):
        status = Path(f"/proc/{one}/status").read_text()
        total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    return total / 1024


def cpu_seconds(pid: int) -> float:
    """CPU-seconds (user + system) of the server and its workers."""
    total = 0
    for one in family(pid):
        fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def slow_clients(port: int, count: int, stop: threading.Event) -> dict:
    """`count` sockets trickling a request head, a byte every 0.5 s; one shut out is opened again."""
    head, seen = b"POST /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"z" * 4000, {"closed": 0}

    def one():
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                    for byte in head:
                        if stop.is_set():
                            return
                        s.sendall(bytes([byte]))
                        time.sleep(0.5)
            except OSError:
                seen["closed"] += 1
                time.sleep(0.5)
    for _ in range(count):
        threading.Thread(target=one, daemon=True).start()
    return seen


def locust(base: str, server: str, load: str, users: int, seconds: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        prefix = Path(folder) / "run"
        subprocess.run([sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--only-summary",
                        "-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--host", base,
                        "--csv", str(prefix), "--loglevel", "ERROR"],
                       env=dict(os.environ, LLLM_LOAD=load, LLLM_SERVER=server), capture_output=True, timeout=seconds + 120)
        rows = {r["Name"]: r for r in csv.DictReader(open(f"{prefix}_stats.csv"))}
        failures = list(csv.DictReader(open(f"{prefix}_failures.csv")))
    main = rows.get(load, {})
    busy = sum(int(f["Occurrences"]) for f in failures if "503 busy" in f["Error"] and f["Name"] == load)
    other = sum(int(f["Occurrences"]) for f in failures if "503 busy" not in f["Error"])
    count = int(main.get("Request Count", 0))
    return {"count": count, "rps": (count - busy - other) / seconds, "busy": busy, "errors": other,
            "p50": float(main.get("50%", 0) or 0), "p99": float(main.get("99%", 0) or 0),
            "kinds": sorted({f["Error"][:60] for f in failures if "503 busy" not in f["Error"]})[:3]}


def probe(base: str, paths: list[str], stop: threading.Event, seen: list[float]) -> None:
    """GET each of `paths` in turn every 0.2 s from this process (not Locust's), recording seconds."""
    import httpx
    with httpx.Client(timeout=30) as client:
        while not stop.is_set():
            for path in paths:
                began = time.perf_counter()
                try:
                    client.get(base + path)
                except httpx.HTTPError:
                    pass
                seen.append(time.perf_counter() - began)
            time.sleep(0.05)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def start(kind: str, folder: Path):
    if kind == "model":
        return ModelServer("--models", "tinyllm").wait_until_up()
    server = TacticServer(folder, "--server", kind, "--log-level", "warning", tactic=TACTIC)
    server.wait_until_up()
    return server


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def bench(kind: str, seconds: int, chosen: set[str] | None = None) -> tuple[list[str], dict]:
    with tempfile.TemporaryDirectory() as folder:
        server = start(kind, Path(folder))
        pid, rows, results = server.process.pid, [], {}
        idle = rss_mb(pid)
        for name, load, users in SCENARIOS:
            if chosen and name != "baseline" and f"{name} {users}" not in chosen:
                continue
            stop, slow = threading.Event(), None
            if name.startswith("slow"):
                slow = slow_clients(server.port, 300, stop)
                time.sleep(3)
            before, health = cpu_seconds(pid), []
            watcher = threading.Thread(target=probe, args=(server.base, ["/health", "/v1/models"] if kind == "model"
                                                           else ["/health"], stop, health), daemon=True)
            watcher.start()
            got = locust(server.base, "model" if kind == "model" else "tactic", load, users, seconds)
            stop.set()
            got["health_p50"], got["health_p99"] = percentile(health, 0.5) * 1000, percentile(health, 0.99) * 1000
            time.sleep(1.5)
            got["cpu_per_request"] = (cpu_seconds(pid) - before) / max(got["count"], 1)
            got["rss"] = rss_mb(pid)
            got["shut_out"] = slow["closed"] if slow else None
            results[f"{name} {users}"] = got
        server.stop()
    base = results["baseline 1"]
    for label, got in results.items():
        ratio = (lambda a, b: f"{a / b:.2f}x" if b else "-")
        rows.append(f"| {label} | {got['rps']:.1f} ({ratio(got['rps'], base['rps'])}) | {got['p50']:.0f} / {got['p99']:.0f} "
                    f"({ratio(got['p99'], base['p99'])}) | {got['busy']} | {got['errors']}"
                    f"{' ' + '; '.join(got['kinds']) if got['errors'] else ''} | {got['health_p99']:.0f} "
                    f"({ratio(got['health_p99'], base['health_p99'])}) | {got['rss']:.0f} (+{got['rss'] - idle:.0f}) | "
                    f"{got['cpu_per_request'] * 1000:.1f}" + (f" · {got['shut_out']} shut out" if got["shut_out"] is not None
                                                           else "") + " |")
    vanish, stream = results.get("vanish 100"), results.get("stream 64")
    abandoned = (vanish["cpu_per_request"] / stream["cpu_per_request"] if vanish and stream and stream["cpu_per_request"]
                 else float("nan"))
    return rows, {"idle": idle, "abandoned": abandoned}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--servers", default="model,uvicorn,stdlib")
    parser.add_argument("--scenarios", default="", help='e.g. "plain 256,stream 256" (the baseline always runs)')
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "serve-load.md"))
    args = parser.parse_args()
    names = {"model": "`lllm serve-model` (tinyllm, 200 characters a request; 2 workers, queue 32)",
             "uvicorn": "`lllm serve` under uvicorn (a tactic taking a few ms of CPU; streams of 20 items)",
             "stdlib": "`lllm serve --server stdlib` (the same tactic)"}
    lines = [f"Measured {date.today().isoformat()} on {os.cpu_count()} cores, shared VM ({platform.machine()}, "
             f"CPython {platform.python_version()}), Locust 2.47 headless in one process on the same cores, "
             f"{args.seconds} s a scenario; ratios to the same run's baseline (one client).", ""]
    for kind in args.servers.split(","):
        before = load_average()
        rows, extra = bench(kind, args.seconds, {s.strip() for s in args.scenarios.split(",") if s.strip()})
        lines += [f"#### {names[kind]}", "", f"Load average {before} before, {load_average()} after. "
                  f"Idle RSS {extra['idle']:.0f} MB. Abandoned work: a vanished stream costs "
                  f"{extra['abandoned']:.2f}x the CPU of a stream read to the end.", "",
                  "| scenario (clients) | answered/s | p50 / p99 ms | 503 | other errors | health p99 ms | RSS after MB | CPU ms a request |",
                  "|---|---|---|---|---|---|---|---|", *rows, ""]
        print("\n".join(lines[-len(rows) - 6:]), flush=True)
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
