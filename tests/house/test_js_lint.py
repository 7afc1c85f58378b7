"""The JavaScript half under house rules: Biome's lint (biome.jsonc: the recommended rules over every file we write,
the few idioms turned off each with its reason) finds nothing, warnings included.

`make node` installs Biome from the lockfile. Run `node_modules/.bin/biome lint` to see the findings.
"""

import shutil
import subprocess

from conftest import ROOT

BIOME = ROOT / "node_modules" / ".bin" / "biome"


def lint(root=ROOT) -> subprocess.CompletedProcess:
    assert BIOME.exists(), "Biome is not installed: run `make node`"
    return subprocess.run([str(BIOME), "lint", "--error-on-warnings", "--max-diagnostics=none", "--colors=off"],
                          cwd=root, capture_output=True, text=True, timeout=300)


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
