"""The JavaScript half under house rules: Biome's lint (biome.jsonc: the recommended rules over every file we write,
the few idioms turned off each with its reason) finds nothing, warnings included; every file is laid out as Biome's
formatter writes it (biome.jsonc's settings: the code's own style); and every file opens with a comment saying its one
job, as a Python module opens with its docstring.

`make node` installs Biome from the lockfile. Run `node_modules/.bin/biome lint` to see the findings, and
`make format` to rewrite the files the formatter would change.
"""

import re
import shutil
import subprocess

from conftest import ROOT

BIOME = ROOT / "node_modules" / ".bin" / "biome"


def biome(command: str, root=ROOT, *options: str) -> subprocess.CompletedProcess:
    assert BIOME.exists(), "Biome is not installed: run `make node`"
    return subprocess.run([str(BIOME), command, *options, "--max-diagnostics=none", "--colors=off"],
                          cwd=root, capture_output=True, text=True, timeout=300)


def lint(root=ROOT) -> subprocess.CompletedProcess:
    return biome("lint", root, "--error-on-warnings")


def unformatted(done: subprocess.CompletedProcess) -> list[str]:
    """The files `biome format` (check mode: it writes nothing) says it would change."""
    return re.findall(r"^(\S+) format ━", done.stdout + done.stderr, re.M)


def test_a_planted_finding_fails_naming_the_file_and_the_rule(tmp_path):
    shutil.copy(ROOT / "biome.jsonc", tmp_path)                    # the house config, over a file of our own
    (tmp_path / "site" / "assets").mkdir(parents=True)
    (tmp_path / "site" / "assets" / "planted.mjs").write_text("export function f() {\n  const unused = 1;\n  return 2;\n}\n")
    done = lint(tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode != 0 and "planted.mjs" in out and "noUnusedVariables" in out, out[-2000:]


def test_every_file_we_write_passes_the_linter():
    done = lint()
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert "Checked" in done.stdout + done.stderr       # it read the files: an empty selection would pass silently


def test_a_file_laid_out_by_hand_fails_the_format_check_naming_it(tmp_path):
    shutil.copy(ROOT / "biome.jsonc", tmp_path)                    # the house config, over files of our own
    (tmp_path / "site" / "assets").mkdir(parents=True)
    job = "// A planted file: the format check must name it, and only it.\n"
    (tmp_path / "site" / "assets" / "planted.mjs").write_text(job + "export const xs = [1,2,\n  3];\nexport const s = 'a';\n")
    (tmp_path / "site" / "assets" / "tidy.mjs").write_text(job + 'export const xs = [1, 2, 3];\nexport const s = "a";\n')
    done = biome("format", tmp_path)
    assert done.returncode != 0 and unformatted(done) == ["site/assets/planted.mjs"], (done.stdout + done.stderr)[-2000:]
    assert biome("format", tmp_path, "--write").returncode == 0 and biome("format", tmp_path).returncode == 0   # `make format`
    assert (tmp_path / "site" / "assets" / "planted.mjs").read_text() == job + 'export const xs = [1, 2, 3];\nexport const s = "a";\n'


def test_every_file_we_write_is_formatted():
    done = biome("format")
    assert done.returncode == 0, (f"run `make format`: the formatter would change {unformatted(done)}\n"
                                  + (done.stdout + done.stderr)[-4000:])
    assert "Checked" in done.stdout + done.stderr       # it read the files: an empty selection would pass silently


def opens_with_its_job(text: str) -> bool:
    first = text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""
    return first.startswith("//") and len(first.strip("/ ")) >= 20


def test_every_javascript_file_opens_with_a_comment_saying_its_job():
    from test_line_budget import js_files
    assert not opens_with_its_job("async () => {\n  // the job, too late\n}\n") and opens_with_its_job(
        "// The quiz page's store: answers kept in localStorage.\nexport const x = 1;\n")
    missing = [p.relative_to(ROOT).as_posix() for p in js_files() if not opens_with_its_job(p.read_text(encoding="utf-8"))]
    assert missing == [], f"open these with a comment saying the file's one job: {missing}"
