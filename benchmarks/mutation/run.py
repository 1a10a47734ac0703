"""Mutation testing of the language core and the test runner (issue 9).

    python3 benchmarks/mutation/run.py [MODULE ...] [--report] [--rerun] [-j N]

MODULE is a name from modules.toml (compiler, macros, classes, contracts,
testing; all by default). For each module the script runs mutmut (install it
with `pip install -e '.[mutation]'`) in its own folder under
build/mutation/MODULE, mutating only that module and running only the tests
modules.toml lists for it, niced. Then it prints the report: per module the
mutants, killed, survived and timeouts, the surviving mutants explained in
equivalent.toml and the unexplained ones with their diff, and the unexplained
ratio.

--report   print the report from the last runs, run nothing
--rerun    run the surviving mutants again (after new tests were written)
-j N       mutmut workers (default 2)

Not part of CI: a full run takes hours on two cores. Results are kept in
build/mutation/, so a second run only tests mutants of changed functions and
new tests.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import pathlib
import subprocess
import sys
import tomllib
from collections import Counter

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = ROOT / "build" / "mutation"
MODULES = tomllib.loads((HERE / "modules.toml").read_text())
EQUIVALENT = HERE / "equivalent.toml"

# Put in the root of mutmut's copy of the tree: deterministic hypothesis runs
# with fewer examples, and no compiled expression carried from one test (or
# from mutmut's stats run, before the fork) into another, since a cached
# closure would hide a mutant of the compiler.
CONFTEST = '''\
import hypothesis
import pytest

hypothesis.settings.register_profile(
    "mutation", max_examples=150, derandomize=True, deadline=None, database=None)
hypothesis.settings.load_profile("mutation")


@pytest.fixture(autouse=True)
def _fresh_compiled_expressions():
    from laguna.lang import compiler
    compiler.compile_statement.cache_clear()
    yield
'''

STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
          None: "not checked", 36: "timeout", -24: "timeout", 24: "timeout",
          152: "timeout", 255: "timeout", -11: "segfault", -9: "segfault"}


def _toml_string(text: str) -> str:
    return json.dumps(text)


def prepare(name: str) -> pathlib.Path:
    """The work folder of a module: links to the tree and mutmut's config."""
    spec = MODULES[name]
    work = BUILD / name
    work.mkdir(parents=True, exist_ok=True)
    for entry in ("src", "tests", "examples"):
        link = work / entry
        if not link.is_symlink():
            link.symlink_to(ROOT / entry)
    (work / "conftest.py").write_text(CONFTEST)
    # test files named in modules.toml that do not exist (yet) are left out
    tests = [a for a in spec["tests"]
             if not a.startswith("tests/") or (ROOT / a.split("::")[0]).exists()]
    lines = [
        "[tool.mutmut]",
        'source_paths = ["src"]',
        f"only_mutate = [{_toml_string(spec['path'])}]",
        'also_copy = ["examples", "conftest.py"]',
        f"pytest_add_cli_args_test_selection = [{', '.join(map(_toml_string, tests))}]",
        'pytest_add_cli_args = ["-p", "no:xdist", "-p", "no:cacheprovider", '
        '"-p", "no:benchmark"]',
        "timeout_multiplier = 5.0",
        "use_git_change_detection = false",
    ]
    (work / "pyproject.toml").write_text("\n".join(lines) + "\n")
    return work


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PYTHONPATH"] = str(ROOT / "src")  # mutmut puts its mutated copy first
    return env


def run(name: str, jobs: int, rerun: bool) -> None:
    work = prepare(name)
    names: list[str] = []
    if rerun:
        names = [key for key, code in results(name).items() if STATUS.get(code) in ("survived", "no tests")]
        if not names:
            return
    print(f"== mutmut: {name} ({MODULES[name]['path']})", flush=True)
    command = ["nice", "-n", "10", sys.executable, "-m", "mutmut", "run",
               "--max-children", str(jobs), *names]
    subprocess.run(command, cwd=work, env=_env(), check=False)


def _meta_files(name: str) -> list[pathlib.Path]:
    pattern = MODULES[name]["path"]
    root = BUILD / name / "mutants"
    return sorted(p for p in root.glob("src/**/*.py.meta")
                  if fnmatch.fnmatch(str(p.relative_to(root))[:-len(".meta")], pattern))


def results(name: str) -> dict[str, int | None]:
    return {key: code for key, (code, _) in _results_with_paths(name).items()}


def _results_with_paths(name: str) -> dict[str, tuple[int | None, str]]:
    """Mutant name -> (mutmut's exit code, source path)."""
    root = BUILD / name / "mutants"
    found: dict[str, tuple[int | None, str]] = {}
    for meta in _meta_files(name):
        path = str(meta.relative_to(root))[:-len(".meta")]
        for key, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            found[key] = (code, path)
    return found


def _diffs(name: str, keys: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Mutant name -> (its description, its diff), read with mutmut's code;
    ``keys`` maps each mutant to its source path."""
    if not keys:
        return {}
    work = BUILD / name
    script = (
        "import json, sys\n"
        "from mutmut.mutation.diff_apply import get_diff_for_mutant\n"
        "out = {}\n"
        "for key, path in json.load(sys.stdin).items():\n"
        "    out[key] = get_diff_for_mutant(key, path=path)\n"
        "print(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=work, env=_env(),
                          input=json.dumps(keys), capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"reading the diffs of {name}'s mutants failed:\n{done.stderr}")
    return {key: (describe(key, diff), diff)
            for key, diff in json.loads(done.stdout.splitlines()[-1]).items()}


def function_name(key: str) -> str:
    """laguna.lang.compiler.xǁCompilerǁcall__mutmut_3 -> Compiler.call"""
    mangled = key.rpartition(".")[2].partition("__mutmut_")[0]
    if mangled.startswith("xǁ"):
        return ".".join(part for part in mangled[2:].split("ǁ") if part)
    return mangled.removeprefix("x_")


def describe(key: str, diff: str) -> str:
    """'function: original lines -> mutated lines', the key of equivalent.toml."""
    body = diff.splitlines()[2:]
    old = " / ".join(line[1:].strip() for line in body if line.startswith("-"))
    new = " / ".join(line[1:].strip() for line in body if line.startswith("+"))
    return f"{function_name(key)}: {old} -> {new}"


def report(names: list[str]) -> float:
    explained_all = tomllib.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}
    worst = 0.0
    summary = []
    for name in names:
        found = _results_with_paths(name)
        codes = {key: code for key, (code, _) in found.items()}
        statuses = Counter(STATUS.get(code, "suspicious") for code in codes.values())
        survivors = sorted(k for k, c in codes.items() if STATUS.get(c) == "survived")
        diffs = _diffs(name, {key: found[key][1] for key in survivors})
        explained = explained_all.get(name, {})
        used = set()
        unexplained = []
        print(f"\n## {name} ({MODULES[name]['path']})")
        for key in survivors:
            description, diff = diffs[key]
            if description in explained:
                used.add(description)
            else:
                unexplained.append((key, description, diff))
        for description in sorted(used):
            print(f"  explained: {description}\n      because {explained[description]}")
        for key, description, diff in unexplained:
            print(f"  UNEXPLAINED {key}\n    {description}")
            print("    " + "\n    ".join(diff.splitlines()[2:]))
        stale = sorted(set(explained) - used)
        for description in stale:
            print(f"  (explained entry no longer surviving: {description})")
        total = len(codes)
        unchecked = statuses["not checked"]
        checked = total - unchecked
        ratio = len(unexplained) / checked if checked else 0.0
        worst = max(worst, ratio if checked else 1.0)
        summary.append((name, total, unchecked, statuses["killed"], len(used),
                        len(unexplained), statuses["timeout"],
                        checked - statuses["killed"] - statuses["survived"] - statuses["timeout"],
                        ratio))
    print(f"\n{'module':<10} {'mutants':>7} {'unrun':>6} {'killed':>7} {'expl.':>6} "
          f"{'unexpl.':>7} {'timeout':>7} {'other':>6} {'unexpl. %':>9}")
    for name, total, unchecked, killed, expl, unexpl, timeout, other, ratio in summary:
        print(f"{name:<10} {total:>7} {unchecked:>6} {killed:>7} {expl:>6} {unexpl:>7} "
              f"{timeout:>7} {other:>6} {ratio:>9.1%}")
    print("(survivors: explained in equivalent.toml or not; unexpl. % of the mutants run; "
          "unrun: not checked yet; other: no tests cover the function, suspicious)")
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", choices=[[], *MODULES], default=[])
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--rerun", action="store_true")
    parser.add_argument("-j", type=int, default=2)
    args = parser.parse_args()
    names = args.modules or list(MODULES)
    if not args.report:
        for name in names:
            run(name, args.j, args.rerun)
    worst = report(names)
    sys.exit(0 if worst < 0.10 else 1)


if __name__ == "__main__":
    main()
