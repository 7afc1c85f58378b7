"""One house rule in one place: at most 400 code lines in any Python file under lllm/, export/, hooks/ and bench/,
and in any JavaScript file we write (site/, hooks/, tests/support/, bench/).

A code line is a line that is neither blank nor a comment (`#` in Python, `//` in JavaScript; docstrings count:
they are read). Run with `-s` to see the table, folder by folder, and the total, largest files first.
"""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("lllm", "export", "hooks", "bench")
CEILING = 400                       # house style: aim for <= 300, 400 is the ceiling


JS_FOLDERS = ("site", "hooks", "tests/support", "bench")


def code_lines(text: str, comment: str = "#") -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith(comment))


def js_files() -> list[pathlib.Path]:
    return sorted(p for folder in JS_FOLDERS for pattern in ("*.mjs", "*.js") for p in (ROOT / folder).rglob(pattern)
                  if "node_modules" not in p.parts)


def files() -> list[pathlib.Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py") if "node_modules" not in p.parts)


def test_code_lines_counts_neither_blanks_nor_comments():
    assert code_lines('"""Doc."""\n\n# note\nx = 1  # set\n    # indented note\n') == 2
    assert code_lines("// job\n\nconst x = 1;  // set\n  // note\n", "//") == 1


def test_every_javascript_file_is_within_the_ceiling():
    counts = {p.relative_to(ROOT).as_posix(): code_lines(p.read_text(encoding="utf-8"), "//") for p in js_files()}
    print(f"\nJavaScript code lines per file (ceiling {CEILING}); total {sum(counts.values())} in {len(counts)} files")
    for path, n in sorted(counts.items(), key=lambda kv: -kv[1])[:10]:
        print(f"    {n:4d}  {path}")
    assert len(counts) > 50, "the JavaScript files were not found"
    over = sorted(f"{path} ({n})" for path, n in counts.items() if n > CEILING)
    assert not over, f"over the {CEILING}-line ceiling: {over}"


def test_every_file_is_within_the_ceiling():
    counts = {p.relative_to(ROOT).as_posix(): code_lines(p.read_text(encoding="utf-8")) for p in files()}
    print(f"\ncode lines per file (ceiling {CEILING}); total {sum(counts.values())} in {len(counts)} files")
    for folder in FOLDERS:
        mine = {path: n for path, n in counts.items() if path.startswith(folder + "/")}
        print(f"  {folder}/: {sum(mine.values())} lines in {len(mine)} files")
        for path, n in sorted(mine.items(), key=lambda kv: -kv[1])[:10]:
            print(f"    {n:4d}  {path}")
    over = sorted(f"{path} ({n})" for path, n in counts.items() if n > CEILING)
    assert not over, f"over the {CEILING}-line ceiling: {over}"


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_folder_has_python_files(folder):
    assert any(p.is_relative_to(ROOT / folder) for p in files())
