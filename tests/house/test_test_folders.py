"""Every test file lives under the folder of the code it tests: tests/<folder>/test_x.py tests lllm/<folder>/.

The rule, read from each file with `ast`. A code folder is a sub-package of lllm/ (lllm/cli.py counts as
`commands`, lllm/integrations.py as `services`, whose tactic_card.py it re-exports), `export`, or `site`
(site/ and hooks/, which builds it).

- What a file says it tests comes first: the project paths its module docstring names (lllm/labs/final/exam.py,
  site/assets/train/early.mjs, ...), one vote per distinct path for the path's folder.
- A docstring that names no such path: what the file imports decides, one vote per project name imported
  (each name once, imports inside functions too); a name imported from `lllm` itself votes for the folder of
  the module that defines it (lllm/__init__.py's table). Running `python -m lllm` in a subprocess and naming a
  path into site/ or export/ (a string "site", "site/...") give one vote each per file, however often they
  appear; a sibling test module it imports votes for the folder that module is filed under.
- The file must be filed under the folder with the most votes (on a tie, any of the tied), and must have at
  least one vote: a test that names no code of the project does not say what it tests.
- Exempt folders, which test the project across folders rather than one folder's code: tests/browser/ (the
  built site in real browsers), tests/site/ (the site's build: site/, hooks/, docs/), tests/house/ (the
  repository's rules), tests/peer/ (another project's suite run against ours) and tests/support/ (helpers).

Test basenames stay unique (pytest imports them by basename): checked here too.
"""

from __future__ import annotations

import ast
import collections
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
EXEMPT = {"browser", "site", "house", "peer", "support"}
ROOT_MODULES = {"cli": "commands", "__main__": "commands", "integrations": "services"}


def lllm_exports() -> dict[str, str]:
    """name -> the module lllm/__init__.py's table says defines it (`from lllm import Prompt`)."""
    tree = ast.parse((ROOT / "lllm" / "__init__.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets):
            table = ast.literal_eval(node.value)
            return {name: module for module, names in table.items() for name in names}
    raise AssertionError("lllm/__init__.py has no _EXPORTS table")


def folder_of(module: str) -> str | None:
    """The code folder a dotted module path belongs to, or None if it is not the project's."""
    parts = module.split(".")
    if parts[0] == "export":
        return "export"
    if parts[0] == "hooks":
        return "site"
    if parts[0] != "lllm" or len(parts) == 1:
        return None
    if parts[1] in ROOT_MODULES:
        return ROOT_MODULES[parts[1]]
    return parts[1] if (ROOT / "lllm" / parts[1]).is_dir() else None


def all_test_files() -> dict[str, pathlib.Path]:
    """basename (without .py) -> path, for every test_*.py under tests/."""
    return {p.stem: p for p in sorted(TESTS.rglob("test_*.py"))}


def is_lllm_cli(node: ast.AST) -> bool:
    """`[..., "-m", "lllm", ...]`: the command line run in a subprocess."""
    if isinstance(node, (ast.List, ast.Tuple)):
        words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return any(a == "-m" and b == "lllm" for a, b in zip(words, words[1:]))
    return False


def votes(source: str, exports: dict[str, str] | None = None, siblings: dict[str, str] | None = None) -> collections.Counter:
    """The folders a test file's source points at, one vote per project name it imports, each name once
    (see the module's docstring). `siblings`: test module basename -> the folder it is filed under."""
    exports = lllm_exports() if exports is None else exports
    siblings = siblings or {}
    names: set[tuple[str, str]] = set()    # (module, name): a name imported twice is one vote
    once: set[str] = set()                 # the command line and paths: one vote each per file, however often named
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in siblings:
                once.add(siblings[node.module])
            for alias in node.names:
                module = exports.get(alias.name, f"lllm.{alias.name}") if node.module == "lllm" else node.module
                names.add((module, alias.name))
        elif isinstance(node, ast.Import):
            names.update((a.name, "") for a in node.names)
        elif is_lllm_cli(node):
            once.add("commands")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            head = node.value.split("/", 1)[0]
            if head in ("site", "export") and (node.value == head or "/" in node.value):
                once.add(head)
    count = collections.Counter(f for f in (folder_of(module) for module, _ in names) if f)
    count.update(once)
    return count


NAMED_PATH = re.compile(r"\b((?:lllm|export|hooks|site)/[\w/.-]*)")


def named_paths(source: str) -> collections.Counter:
    """The folders of the project paths the module docstring names, one vote per distinct path."""
    doc = ast.get_docstring(ast.parse(source)) or ""
    paths = {p.rstrip("/.") for p in NAMED_PATH.findall(doc)}
    found = collections.Counter()
    for path in paths:
        top, _, rest = path.partition("/")
        if top in ("site", "hooks", "export"):
            found["site" if top == "hooks" else top] += 1
        elif rest and (folder := folder_of(f"{top}.{rest.split('/')[0].removesuffix('.py')}")):
            found[folder] += 1
    return found


def subject(source: str, exports: dict[str, str] | None = None, siblings: dict[str, str] | None = None) -> collections.Counter:
    """The votes that decide a file's folder: the paths its docstring names, else what it imports."""
    return named_paths(source) or votes(source, exports, siblings)


def misfiled(folder: str, count: collections.Counter) -> str | None:
    """Why a file under tests/<folder>/ with these votes is misfiled, or None when it is where it belongs."""
    if not count:
        return "imports no code of the project: say what it tests by importing it"
    most = max(count.values())
    best = sorted(f for f, n in count.items() if n == most)
    return None if folder in best else f"tests {' or '.join(best)} most ({dict(count.most_common(4))}): move it to tests/{best[0]}/"


def test_votes_follow_imports_the_command_line_and_paths():
    exports = {"Prompt": "lllm.runtimes.native", "ScriptedPredictor": "lllm.predictors.contract"}
    source = ("from lllm.labs.final import exam, record\nfrom lllm.labs.final import exam\nfrom lllm import Prompt, ScriptedPredictor\n"
              "import export.data\nfrom hooks import quiz\n"
              "def f():\n    from lllm.labs import lab\n    run([sys.executable, '-m', 'lllm', 'grade'])\n    run(['python', '-m', 'lllm', 'lab'])\n"
              "PAGE = ROOT / 'site' / 'assets'\nJS = 'site/assets/x.mjs'\nfrom test_helper import run_js\n")
    assert votes(source, exports, {"test_helper": "model"}) == {"labs": 3, "runtimes": 1, "predictors": 1, "export": 1,
                                                                "site": 2, "commands": 1, "model": 1}     # hooks 1, site/ paths 1


def test_the_docstring_names_the_subject_before_the_imports():
    stated = ('"""site/assets/train/early.mjs in Node; lllm/labs/final/exam.py and lllm/labs/final/record.py, and\n'
              'hooks/final_pool.py; lllm/cli.py; lllm/ and export/ in general."""\nfrom lllm.model import generate\n')
    assert subject(stated, {}) == {"site": 2, "labs": 2, "commands": 1, "export": 1}
    assert subject('"""Nothing named."""\nfrom lllm.model.generate import generate\n', {}) == {"model": 1}


def test_a_file_is_misfiled_where_it_does_not_test_most():
    assert misfiled("labs", collections.Counter({"labs": 3, "agents": 1})) is None
    assert misfiled("agents", collections.Counter({"labs": 2, "agents": 2})) is None        # a tie: either will do
    assert "move it to tests/labs/" in misfiled("commands", collections.Counter({"labs": 3, "commands": 1}))
    assert "imports no code" in misfiled("export", collections.Counter())


def test_every_test_file_is_under_the_folder_of_the_code_it_tests():
    modules = all_test_files()
    siblings = {name: path.parent.name for name, path in modules.items()}
    exports = lllm_exports()
    wrong = []
    for name, path in modules.items():
        folder = path.relative_to(TESTS).parts[0]
        if folder in EXEMPT:
            continue
        why = misfiled(folder, subject(path.read_text(encoding="utf-8"), exports, siblings))
        if why:
            wrong.append(f"{path.relative_to(ROOT)}: {why}")
    assert len(modules) > 200, "the test files were not found"
    assert not wrong, "\n".join(wrong)


def test_test_basenames_are_unique():
    seen = collections.defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        seen[path.name].append(path.relative_to(ROOT).as_posix())
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}
