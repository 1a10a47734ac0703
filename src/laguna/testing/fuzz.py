"""Fuzzing the sandbox: MuranoPL bodies and YAQL expressions from a grammar.

:func:`bodies` is a hypothesis strategy of method bodies (assignments,
`For`, `While`, `If`, `Repeat`, `Try`, `Return`) whose expressions come from
:func:`expressions`: literals near the limits, variables, yaql operators and
the functions an attacker would reach for (``pow``, ``shiftBitsLeft``,
``format``, ``join``, ``replace``, regular expressions, ``range``,
``sequence``...), plus issue 11's attacks written out. :class:`Fuzzer` runs
each body as a method of a fresh class under small :class:`Limits` and sorts
the outcome: a result, a MuranoPL error (the limits' included), a load error,
or a *finding* (any other exception, or a call that outlived its time limit).

Used by tests/unit/lang/test_fuzz.py (few examples, derandomized) and
benchmarks/fuzz.py (many). Needs hypothesis (the ``test`` extra).
"""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import resource
import tempfile
import time
import typing as t

import yaml
from hypothesis import strategies as st

from laguna import process
from laguna.errors import LagunaError
from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.lang.tracebacks import MEMORY_ERROR_DETAIL
from laguna.testing.packages import core_registry, read_package_dir
from laguna.yaql.engine import Limits

#: small limits, so that every input ends quickly
FUZZ_LIMITS = Limits(iterators=10_000, memory_quota=64 * 1024, integer_bits=4096,
                     execution_seconds=0.2, call_depth=50)
#: how much CPU time past its time limit a call may take (loading the class,
#: the regex library's timeout granularity, a slow machine). CPU time, not
#: wall time: on a loaded machine a call waits for a core, which is no fault
#: of the engine; a call that goes on working after its deadline burns CPU.
TIME_SLACK = 5.0
#: wall time past its time limit after which a call is a finding whatever
#: its CPU time (a call blocked rather than working)
HANG_SECONDS = 60.0


class Expr(str):
    """A YAQL expression (written with the `!yaql` tag)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(Expr, lambda dumper, expr: dumper.represent_scalar(
    "!yaql", str(expr), style="'"))

VARIABLES = ("$x", "$s", "$l", "$d", "$i")
INTEGERS = (0, 1, -1, 2, 3, 7, 64, 1000, 65536, 10**6, 10**9, 2**62, 2**100)
STRINGS = ("''", "'a'", "'abc'", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'", "'{0}'", "'{0:>9999999}'",
           "'x y z'")
PATTERNS = ("'^(a+)+$'", "'(a|aa)+$'", "'a.c'", "'(x+x+)+y'", "'.*'", "'['",
            # issue 21: counted repetitions the regex library would unroll
            "'a{1000000000}'", "'((a{1000}){1000}){1000}'", "'(a{100}){100}'", "'[{]{3,}'")
# issue 21: endless and long sequences, fed to every built-in that loops
SEQUENCES = ("sequence()", "range(1000000000)", "range(60000)", "range(100000).select($)",
             "concat(range(1000000000), [1])", "sequence().select(str($))")
CONSUMERS = ("len({})", "{}.len()", "{}.count()", "{}.sum()", "{}.min()", "{}.max()",
             "{}.distinct().len()", "{}.orderBy($).first()", "{}.orderBy(-$).last()",
             "{}.aggregate($1 + $2, 0)", "{}.aggregate($1.set($2, $2), {{}})",
             "{}.select(str($)).join('')", "concat({}, [1]).len()",
             "dict({}.select([$, $]))", "{}.last()", "{}.any($ = -1)", "{}.all($ != -1)",
             "{}.indexOf(-1)", "{}.groupBy($ mod 3)", "{}.toList()", "list({})",
             "{}.where($ = -1).first(0)", "{}.selectMany([$, $]).len()", "set({})",
             "{}.skip(5).take(3).toList()", "{}.toSet()", "{}.distinct($ mod 7).len()")

# issue 11's attacks, as expressions (the grammar recombines them)
ATTACKS = (
    "pow(10, 100000000)", "shiftBitsLeft(1, 4000000000)", "format('{0:>2000000000}', 1)",
    "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' =~ '(a|aa)+$'",
    "range(1000000000)", "list(range(1000000000))", "sequence().toList()",
    "range(100000).select(str(x) * 60000).join('')", "(str(a) * 60000).replace(a, aaaa)",
    "str(range(1000).select(str(x) * 60000).toList())",
    # issue 21
    "len(sequence())", "sequence().len()", "sequence().count()", "len(range(1000000000))",
    "range(60000).aggregate($1.set($2, $2), {})", "range(1000000000).sum()",
    "range(1000000000).min()", "range(1000000000).max()",
    "range(1000000000).select(1).distinct().len()", "range(1000000000).orderBy($).first()",
    "range(1000000000).select('').join('')", "concat(range(1000000000), range(5)).len()",
    "dict(range(1000000000).select([1, $]))", "regex('a{1000000000}')",
    "regex('((a{1000}){1000}){1000}')", "range(1000).select(str($) * 60000).toList()",
)


def _leaf() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(INTEGERS).map(str),
        st.sampled_from(STRINGS),
        st.sampled_from(VARIABLES),
        st.sampled_from(("true", "false", "null", "[]", "{}", "[1, 2, 3]", "{a => 1}")),
    )


def _compose(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(inner, inner)
    return st.one_of(
        st.tuples(inner, st.sampled_from(("+", "-", "*", "/", "mod", "=", "<", "and", "or")),
                  inner).map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
        st.tuples(inner, st.sampled_from(PATTERNS)).map(lambda p: f"({p[0]} =~ {p[1]})"),
        st.tuples(inner, st.sampled_from(PATTERNS)).map(lambda p: f"{p[0]}.matches({p[1]})"),
        two.map(lambda p: f"pow({p[0]}, {p[1]})"),
        two.map(lambda p: f"shiftBitsLeft({p[0]}, {p[1]})"),
        two.map(lambda p: f"format('{{0:>{{1}}}}', {p[0]}, {p[1]})"),
        two.map(lambda p: f"{p[0]}.join({p[1]})"),
        two.map(lambda p: f"concat({p[0]}, {p[1]})"),
        st.tuples(inner, inner, inner).map(lambda p: f"{p[0]}.replace({p[1]}, {p[2]})"),
        two.map(lambda p: f"({p[0]} * {p[1]})"),
        two.map(lambda p: f"[{p[0]}, {p[1]}]"),
        two.map(lambda p: f"{{{p[0]} => {p[1]}}}"),
        two.map(lambda p: f"{p[0]}[{p[1]}]"),
        inner.map(lambda e: f"range({e})"),
        inner.map(lambda e: f"len({e})"),
        inner.map(lambda e: f"str({e})"),
        inner.map(lambda e: f"list({e})"),
        inner.map(lambda e: f"{e}.select([$, $])"),
        inner.map(lambda e: f"{e}.where($ != null)"),
        inner.map(lambda e: f"{e}.toList()"),
        inner.map(lambda e: f"{e}.flatten()"),
        inner.map(lambda e: f"{e}.sum()"),
        inner.map(lambda e: f"{e}.len()"),
        inner.map(lambda e: f"sequence().take({e})"),
        st.tuples(st.sampled_from(CONSUMERS),
                  st.one_of(st.sampled_from(SEQUENCES), inner)).map(
            lambda p: p[0].format(p[1])),
        inner.map(lambda e: f"regex({e})"),
        inner.map(lambda e: f"-{e}"),
    )


@functools.cache
def expressions() -> st.SearchStrategy[str]:
    """YAQL expressions from the grammar (and the attacks as they are); leaves
    are drawn more often than operators, so expressions stay small."""
    expr: st.SearchStrategy[str] = st.deferred(
        lambda: st.one_of(_leaf(), _leaf(), _leaf(), _compose(expr)))
    return st.one_of(st.sampled_from(ATTACKS), expr)


@functools.cache
def _instructions(depth: int) -> st.SearchStrategy[t.Any]:
    expr = expressions().map(Expr)
    simple = st.one_of(
        st.tuples(st.sampled_from(VARIABLES[:4]), expr).map(lambda p: {Expr(p[0]): p[1]}),
        expr.map(lambda e: {"Return": e}),
        expr,
    )
    # values that add up: each under the quota, many held at once
    holding = st.tuples(st.sampled_from(VARIABLES[2:4]), expr).map(
        lambda p: {Expr(p[0]): Expr(f"{p[0]} + [{p[1]}]" if p[0] == "$l"
                                    else f"{p[0]}.set(len({p[0]}), {p[1]})")})
    simple = st.one_of(simple, holding)
    if depth <= 0:
        return simple
    body = st.lists(_instructions(depth - 1), min_size=1, max_size=3)
    return st.one_of(
        simple,
        st.tuples(expr, body).map(lambda p: {"For": "i", "In": p[0], "Do": p[1]}),
        st.tuples(expr, body).map(lambda p: {"While": p[0], "Do": p[1]}),
        st.tuples(expr, body, body).map(lambda p: {"If": p[0], "Then": p[1], "Else": p[2]}),
        st.tuples(st.sampled_from(INTEGERS[:9]), body).map(
            lambda p: {"Repeat": p[0], "Do": p[1]}),
        st.tuples(body, body).map(lambda p: {"Try": p[0], "Catch": [{"As": "e", "Do": p[1]}]}),
    )


@functools.cache
def bodies(depth: int = 2) -> st.SearchStrategy[list[t.Any]]:
    """Method bodies from the grammar, starting from known variables."""
    start = [{Expr("$x"): 3}, {Expr("$s"): "abcd"}, {Expr("$l"): [1, 2, 3]},
             {Expr("$d"): {"a": 1}}]
    return st.lists(_instructions(depth), min_size=1, max_size=4).map(lambda b: start + b)


def class_text(name: str, body: list[t.Any]) -> str:
    """A class file declaring ``name`` with one method, `run`, of ``body``."""
    document = {"Namespaces": {"=": "t.fuzz"}, "Name": name,
                "Methods": {"run": {"Body": body}}}
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, width=10_000)


@dataclasses.dataclass
class Outcome:
    kind: str            # "result", "error" (MuranoPL), "load" (a class error), "finding"
    detail: str
    seconds: float


@dataclasses.dataclass
class Fuzzer:
    """Runs bodies, each as the method of a class in a package of its own."""

    limits: Limits = FUZZ_LIMITS
    tried: int = 0
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    findings: list[tuple[str, Outcome]] = dataclasses.field(default_factory=list)
    slowest: float = 0.0
    _serial: int = 0

    def __post_init__(self) -> None:
        self.registry = core_registry()
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="laguna-fuzz-"))
        # the first run loads the core library: not a time to hold against an input
        self.run([{Expr("$x"): 1}])
        self.tried = 0
        self.counts.clear()
        self.findings.clear()
        self.slowest = 0.0

    def run(self, body: list[t.Any]) -> Outcome:
        self.tried += 1
        self._serial += 1
        name = f"F{self._serial}"
        text = class_text(name, body)
        package = self.folder / name
        (package / "Classes").mkdir(parents=True)
        (package / "manifest.yaml").write_text(
            f"Format: 1.4\nType: Library\nFullName: t.fuzz.{name}\n"
            f"Classes:\n  t.fuzz.{name}: {name}.yaml\n")
        (package / "Classes" / f"{name}.yaml").write_text(text)
        started, started_cpu = time.monotonic(), time.thread_time()
        try:
            self.registry.add(read_package_dir(package))
            cls = self.registry.find(f"t.fuzz.{name}")
            executor = Executor(self.registry, self.limits)
            obj = executor.new_object(cls, None, {})
            outcome = Outcome("result", repr(executor.call(obj, "run"))[:200], 0.0)
        except MuranoPlError as error:
            outcome = Outcome("error", f"{error.names}: {error.message}"[:300], 0.0)
        except LagunaError as error:
            outcome = Outcome("load", str(error)[:300], 0.0)
        except Exception as error:  # noqa: BLE001 - what the fuzzer looks for
            outcome = Outcome("finding", f"{type(error).__name__}: {error}"[:300], 0.0)
        outcome.seconds = time.monotonic() - started
        cpu = time.thread_time() - started_cpu
        if MEMORY_ERROR_DETAIL in outcome.detail:
            outcome.kind = "finding"      # clean, but only because the process ran out
        limit = self.limits.execution_seconds
        if outcome.kind != "finding" and (cpu > limit + TIME_SLACK
                                          or outcome.seconds > limit + HANG_SECONDS):
            outcome = Outcome("finding", f"ran {outcome.seconds:.1f} s ({cpu:.1f} s of CPU): "
                              f"{outcome.detail}", outcome.seconds)
        self.counts[outcome.kind] = self.counts.get(outcome.kind, 0) + 1
        self.slowest = max(self.slowest, outcome.seconds)
        if outcome.kind == "finding":
            self.findings.append((text, outcome))
        return outcome


def fuzz(examples: int, derandomize: bool, memory_bound: int | None = None) -> dict[str, t.Any]:
    """Run ``examples`` bodies from the grammar (after the attacks, one body
    each) in this process, bounded to ``memory_bound`` bytes of address space
    if given; a summary: inputs tried, outcomes, findings, slowest call, peak
    memory (:func:`laguna.process.peak_memory_kib`)."""
    from hypothesis import HealthCheck, given, settings

    if memory_bound is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bound, memory_bound))
    process.prepare()
    fuzzer = Fuzzer()
    for attack in ATTACKS:
        fuzzer.run([{Expr("$x"): Expr(attack)}])

    @settings(max_examples=examples, derandomize=derandomize, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(bodies())
    def one(body: list[t.Any]) -> None:
        fuzzer.run(body)

    one()
    return {"tried": fuzzer.tried, "outcomes": fuzzer.counts,
            "findings": [{"class": text, "detail": o.detail, "seconds": round(o.seconds, 3)}
                         for text, o in fuzzer.findings],
            "slowest_seconds": round(fuzzer.slowest, 3),
            "maxrss_kib": process.peak_memory_kib()}


def main(argv: t.Sequence[str] | None = None) -> None:
    """`python -m laguna.testing.fuzz [--examples N] [--random] [--memory-mb M]`:
    prints the summary of :func:`fuzz` as JSON."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m laguna.testing.fuzz")
    parser.add_argument("--examples", type=int, default=30)
    parser.add_argument("--random", action="store_true",
                        help="a new random sequence of inputs (default: derandomized)")
    parser.add_argument("--memory-mb", type=int, default=1536)
    options = parser.parse_args(argv)
    summary = fuzz(options.examples, not options.random, options.memory_mb * 2**20)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()


__all__ = ["ATTACKS", "FUZZ_LIMITS", "Fuzzer", "Outcome", "bodies", "class_text",
           "expressions", "fuzz", "main"]
