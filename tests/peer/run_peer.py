"""The peer suite: lllm-core 0.2.1's own offline tests, run unchanged against our `lllm` package.

lllm-core is the real LLLM; its native runtime and protocol layer are the reference for ours.
This script fetches its sdist with pip (once, into build/peer/, checked against a pinned
SHA-256), copies its `tests/`, `examples/`, `docs/`, `README.md`, `mkdocs.yml` and `assets/`
into a scratch folder (its tests find the fixtures through `tests/..`) but never its `lllm/`
source, and runs its pytest there in a subprocess, so `import lllm` finds our installed package. It prints passed/total per
file and compares each file with the floor committed in `floors.json`; `deselected.txt` lists
every test left out, each with its reason (live providers, Jupyter, PsiHub's network or the
pydantic-ai package).

Usage:

    python tests/peer/run_peer.py            # run, print the table, exit 1 below a floor
    python tests/peer/run_peer.py --write    # the same, then raise floors.json to today's numbers
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = ROOT / "build" / "peer"
VERSION = "0.2.1"
SDIST = f"lllm_core-{VERSION}.tar.gz"
SDIST_SHA256 = "12ee0a0fa27f77619b3e20e252cc19023047ddebdeadf7b4b91f71fa6120f5a3"
# Its docs tests also build its site (mkdocs.yml) and check README's images (assets/).
FIXTURES = ("tests/", "examples/", "docs/", "README.md", "mkdocs.yml", "assets/")
# Upstream's pytest settings (its pyproject's [tool.pytest.ini_options]); the file also stops
# pytest from walking up into our own pyproject.toml.
PYTEST_INI = "[pytest]\ntestpaths = tests\naddopts = -q\nmarkers =\n    live: opt-in tests that contact external provider APIs\n"
TIMEOUT_SECONDS = 900


# ---- fetch and unpack ----------------------------------------------------------------------------

def sdist_path() -> pathlib.Path:
    """The sdist in the cache, downloaded with pip when absent; its hash is checked every time."""
    path = CACHE / SDIST
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                        f"lllm-core=={VERSION}", "-d", str(CACHE)], check=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {SDIST_SHA256} (delete it to download again)")
    return path


def unpack(sdist: pathlib.Path, scratch: pathlib.Path) -> None:
    """Upstream's tests and fixtures into a fresh scratch folder; its `lllm/` stays in the archive."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    prefix = f"lllm_core-{VERSION}/"
    with tarfile.open(sdist) as archive:
        members = []
        for member in archive.getmembers():
            inner = member.name.removeprefix(prefix)
            if member.isfile() and inner.startswith(FIXTURES):
                member.name = inner
                members.append(member)
        archive.extractall(scratch, members=members, filter="data")
    (scratch / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")


# ---- deselections and floors ---------------------------------------------------------------------

def read_deselected(path: pathlib.Path = HERE / "deselected.txt") -> dict[str, str]:
    """`node-id-or-file  # reason` per line; a test without a reason is an error."""
    entries = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        node, sep, reason = line.partition("#")
        if not sep or not reason.strip():
            raise SystemExit(f"{path.name}:{number}: every deselected test needs '# reason'")
        entries[node.strip()] = reason.strip()
    return entries


def pytest_args(deselected: dict[str, str]) -> list[str]:
    """A whole file is ignored (it may not even import); a single test is deselected."""
    args = []
    for node in deselected:
        args.append(f"--ignore={node}" if "::" not in node else f"--deselect={node}")
    return args


# ---- run and count -------------------------------------------------------------------------------

def check_our_package(scratch: pathlib.Path, env: dict) -> str:
    """The `lllm` the scratch folder imports: it must be ours, never upstream's."""
    out = subprocess.run([sys.executable, "-c", "import lllm; print(lllm.__file__)"], cwd=scratch, env=env,
                         capture_output=True, text=True, check=True).stdout.strip()
    if not pathlib.Path(out).resolve().is_relative_to(ROOT / "lllm"):
        raise SystemExit(f"the peer suite would import {out}, not our package under {ROOT / 'lllm'}")
    return out


def run(scratch: pathlib.Path, deselected: dict[str, str]) -> dict[str, dict[str, int]]:
    """Run upstream's pytest in `scratch`; per test file: passed, failed, skipped and errors."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    check_our_package(scratch, env)
    report = scratch / "report.xml"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", "--continue-on-collection-errors",
               f"--junitxml={report}", *pytest_args(deselected)]
    subprocess.run(command, cwd=scratch, env=env, timeout=TIMEOUT_SECONDS,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return count(report)


def count(report: pathlib.Path) -> dict[str, dict[str, int]]:
    per_file: dict[str, dict[str, int]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
        row = per_file.setdefault(name, {"passed": 0, "failed": 0, "skipped": 0, "errors": 0})
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        row[{"failure": "failed", "error": "errors"}.get(outcome, outcome)] += 1
    return per_file


# ---- compare with the floors ---------------------------------------------------------------------

def table(results: dict, floors: dict) -> tuple[list[str], list[str]]:
    """The printed rows, and the files that fell below their floor."""
    rows, below = [f"{'file':34s} {'passed':>6s} / {'total':<5s} {'floor':>5s}"], []
    for name, spec in sorted(floors.items()):
        passed = results.get(name, {}).get("passed", 0)
        mark = "" if passed >= spec["floor"] else "  BELOW FLOOR"
        rows.append(f"{name:34s} {passed:6d} / {spec['total']:<5d} {spec['floor']:5d}{mark}")
        if mark:
            below.append(f"{name}: {passed} passed, floor {spec['floor']}")
    passed = sum(results.get(n, {}).get("passed", 0) for n in floors)
    rows.append(f"{'all':34s} {passed:6d} / {sum(s['total'] for s in floors.values()):<5d}")
    return rows, below


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="raise floors.json to today's numbers")
    args = parser.parse_args(argv)
    floors_path = HERE / "floors.json"
    floors = json.loads(floors_path.read_text(encoding="utf-8"))
    scratch = CACHE / "scratch"
    unpack(sdist_path(), scratch)
    results = run(scratch, read_deselected())
    rows, below = table(results, floors)
    print("\n".join(rows))
    if args.write:
        for name, spec in floors.items():
            spec["floor"] = max(spec["floor"], results.get(name, {}).get("passed", 0))
        floors_path.write_text(json.dumps(floors, indent=2) + "\n", encoding="utf-8")
    if below:
        print("below the committed floor:\n  " + "\n  ".join(below))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
