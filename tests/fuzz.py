"""A seeded corpus of malformed inputs derived from the bundled examples and the real ARE traces,
and a runner that judges them through the offline CLI (in-process) and checks the rules of
docs/bad-input.md: no traceback, no crash, no hang, no runaway memory, no false pass, and every
rejection an input error naming the file.

    python tests/fuzz.py --count 2000 --seed 1     # the release run (docs/bad-input.md)

The test suite runs a smaller corpus (tests/test_bad_input.py).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "example_scenarios"
CASES = ROOT / "tests" / "data" / "are" / "cases"
NATIVE = ["email_reply.yaml", "team_dinner.yaml", "office_move.yaml", "new_client_ride.yaml"]
ARE_CASES = ["cab__replay__exact_ids", "calendar__replay__exact_ids", "files__replay__exact_ids"]

# values put where others were: wrong types, non-finite and huge numbers, numeric strings...
NASTY: list[Any] = [
    None,
    "",
    "nan",
    "2",
    "4",
    True,
    -1,
    -1e9,
    1e300,
    float("nan"),
    float("inf"),
    {"nested": {"dict": [1, 2]}},
    [1, [2, [3]]],
    "x" * 5000,
    "\x1b[2J\x1b[31m<img src=x onerror=alert(1)>",
    "{{missing_event}}",
    "{{user_msg}}",
    "eq_checker",
    "no_such_checker",
    {"targets": None},
]


@dataclass
class Mutant:
    family: str
    name: str
    files: dict[str, bytes]
    """Relative path -> content (a folder of its own)."""
    must_reject: bool = False
    """The input is invalid for sure: every run in it must be an error (never a pass or fail)."""
    must_not_pass: bool = False
    """The run must not pass (a known-bad run made worse, or a weakened oracle)."""


def _paths(tree: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from _paths(v, (*prefix, i))


def _set(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = tree
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return tree


def _delete(tree: Any, path: tuple[Any, ...]) -> Any:
    parent = tree
    for p in path[:-1]:
        parent = parent[p]
    del parent[path[-1]]
    return tree


def _yaml(data: Any) -> bytes:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode()


def _json(data: Any) -> bytes:
    return json.dumps(data).encode()


def structural(rng: random.Random, data: Any, dump: Callable[[Any], bytes]) -> tuple[str, bytes]:
    """A random value replaced by a nasty one, or a random key deleted."""
    tree = copy.deepcopy(data)
    paths = [p for p in _paths(tree) if p]
    path = rng.choice(paths)
    if rng.random() < 0.25 and isinstance(path[-1], str):
        return f"delete {'.'.join(map(str, path))}", dump(_delete(tree, path))
    value = rng.choice(NASTY)
    return f"set {'.'.join(map(str, path))} = {str(value)[:30]!r}", dump(_set(tree, path, copy.deepcopy(value)))


def text_level(rng: random.Random, text: bytes) -> tuple[str, bytes]:
    """Byte/text faults: truncation, garbage, a duplicated line, a BOM, an empty file."""
    kind = rng.choice(["truncate", "garbage", "duplicate_line", "bom", "empty", "huge_int", "deep"])
    if kind == "truncate":
        return kind, text[: rng.randrange(1, max(2, len(text)))]
    if kind == "garbage":
        i = rng.randrange(len(text))
        return kind, text[:i] + bytes(rng.randrange(256) for _ in range(8)) + text[i:]
    if kind == "duplicate_line":
        lines = text.splitlines(keepends=True)
        i = rng.randrange(len(lines))
        return kind, b"".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
    if kind == "bom":
        return kind, "\ufeff".encode("utf-16") + text
    if kind == "empty":
        return kind, b""
    if kind == "huge_int":
        return kind, text.replace(b"0", b"1" + b"9" * 5000, 1)
    return kind, b"[" * 1000 + b"]" * 1000


def special(rng: random.Random) -> list[Mutant]:
    """Inputs made by hand: each one of the issue's findings, and each rule of docs/bad-input.md."""
    email = (EXAMPLES / "email_reply.yaml").read_text()
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi")
    )
    out = [
        Mutant(
            "yaml",
            "alias bomb in args",
            {"s.yaml": email.replace("subject: Q3 numbers", "subject: x").encode() + b"\n" + bomb.encode()},
            must_reject=True,
        ),
        Mutant(
            "yaml",
            "100,000 nested flow lists",
            {"s.yaml": b"scenario_id: " + b"[" * 100_000 + b"]" * 100_000},
            must_reject=True,
        ),
        Mutant(
            "yaml",
            "args twice, the second empty",
            {
                "s.yaml": email.replace(
                    "      subject: Q3 numbers\n", "      subject: Q3 numbers\n    args: {}\n", 1
                ).encode()
            },
            must_reject=True,
        ),
        Mutant(
            "yaml",
            "!!str-tagged time",
            {"s.yaml": email.replace("time: 4,", "time: !!str 4,").encode()},
            must_reject=True,
        ),
        Mutant("yaml", "a scalar document", {"s.yaml": b"just a string\n"}, must_reject=True),
        Mutant("json", "duplicate recipients key", {"s.json": _dup_key_json()}, must_reject=True),
        Mutant("json", "1000-deep nesting", {"s.json": b"[" * 1000 + b"]" * 1000}, must_reject=True),
        Mutant(
            "json",
            "a 5000-digit integer",
            {"s.json": b'{"scenario_id": "x", "events": [], "start_time": 1' + b"0" * 5000 + b"}"},
            must_reject=True,
        ),
        Mutant(
            "config",
            "threshold 'nan'",
            {"s.yaml": _with_config(email, "check_time_threshold_seconds: 'nan'")},
            must_reject=True,
        ),
        Mutant(
            "config",
            "negative tolerance",
            {"s.yaml": _with_config(email, "post_event_tolerance_seconds: -5")},
            must_reject=True,
        ),
        Mutant(
            "config",
            "infinite tolerance",
            {"s.yaml": _with_config(email, "pre_event_tolerance_seconds: .inf")},
            must_reject=True,
        ),
        Mutant(
            "config",
            "numeric string tolerance",
            {"s.yaml": _with_config(email, "post_event_tolerance_seconds: '2'")},
            must_reject=True,
        ),
        Mutant(
            "config",
            "per-tool checker map is a string",
            {"s.yaml": _with_config(email, "per_tool_arg_to_checker_type: {EmailClientV2__send_email: eq_checker}")},
            must_reject=True,
        ),
        Mutant(
            "config",
            "per-tool checker map is null",
            {"s.yaml": _with_config(email, "per_tool_arg_to_checker_type: {EmailClientV2__send_email: null}")},
            must_reject=True,
        ),
        Mutant(
            "config",
            "unknown checker",
            {
                "s.yaml": _with_config(
                    email, "per_tool_arg_to_checker_type: {EmailClientV2__send_email: {subject: nope}}"
                )
            },
            must_reject=True,
        ),
        Mutant(
            "config",
            "scripted params under a misspelt event id",
            {
                "s.yaml": _with_config(
                    email, "event_id_to_checker_params: {sned: [{arg_name: subject, checker_type: eq_checker}]}"
                )
            },
            must_reject=True,
        ),
        Mutant(
            "graph",
            "placeholder to a missing event",
            {"s.yaml": email.replace("subject: Q3 numbers", "subject: '{{nope}}'", 1).encode()},
            must_reject=True,
        ),
        Mutant(
            "graph",
            "placeholder to itself",
            {"s.yaml": email.replace("subject: Q3 numbers", "subject: '{{send}}'", 1).encode()},
            must_reject=True,
        ),
        Mutant(
            "graph",
            "unknown checker in checks",
            {
                "s.yaml": email.replace(
                    "    after: [user_msg]\n", "    after: [user_msg]\n    checks: [{arg: subject, checker: nope}]\n", 1
                ).encode()
            },
            must_reject=True,
        ),
        Mutant(
            "file",
            "a run file outside the folder",
            {
                "s.yaml": email.replace(
                    "  - id: good\n    events:",
                    "  - id: far\n    file: ../../../../etc/hostname\n  - id: good\n    events:",
                    1,
                ).encode()
            },
            must_reject=True,
        ),
        Mutant(
            "code_judge",
            "timeout Infinity",
            {"s.yaml": _with_config(email, "evaluators: [{script: judges/x.py, timeout: .inf}]")},
            must_reject=True,
        ),
        Mutant(
            "code_judge",
            "script null",
            {"s.yaml": _with_config(email, "evaluators: [{script: null}]")},
            must_reject=True,
        ),
        Mutant(
            "code_judge",
            "checks threshold 1.5",
            {
                "s.yaml": email.replace(
                    "    after: [user_msg]\n",
                    "    after: [user_msg]\n    checks: [{arg: subject, checker: code_judge, args: {script: j.py, threshold: 1.5}}]\n",
                    1,
                ).encode()
            },
            must_reject=True,
        ),
    ]
    for case in ARE_CASES[:1]:
        agent = json.loads((CASES / case / "agent.json").read_text())
        oracle = (CASES / case / "oracle.json").read_bytes()
        bad = copy.deepcopy(agent)
        bad["completed_events"][1]["metadata"] = {"exception": {"a": "dict"}}
        out.append(
            Mutant(
                "are",
                "metadata.exception is a dict",
                {"agent.json": _json(bad), "oracle.json": oracle},
                must_reject=True,
            )
        )
        bad = copy.deepcopy(agent)
        bad["completed_events"][1]["event_time"] = int("1" * 401)
        out.append(
            Mutant("are", "a 401-digit event time", {"agent.json": _json(bad), "oracle.json": oracle}, must_reject=True)
        )
        bad = copy.deepcopy(agent)
        bad["completed_events"][1]["action"]["args"][0]["name"] = {"a": 1}
        out.append(
            Mutant(
                "are",
                "an argument name that is a dict",
                {"agent.json": _json(bad), "oracle.json": oracle},
                must_reject=True,
            )
        )
        bad = copy.deepcopy(agent)
        bad["completed_events"][1]["event_time"] = "4"
        out.append(
            Mutant(
                "are", "a numeric string as a time", {"agent.json": _json(bad), "oracle.json": oracle}, must_reject=True
            )
        )
        bad = copy.deepcopy(agent)
        bad["completed_events"][2]["event_id"] = bad["completed_events"][1]["event_id"]
        out.append(
            Mutant(
                "are", "duplicate agent event ids", {"agent.json": _json(bad), "oracle.json": oracle}, must_reject=True
            )
        )
    return out


def _dup_key_json() -> bytes:
    data = json.loads((CASES / ARE_CASES[0] / "agent.json").read_text())
    text = json.dumps(data)
    return text.replace('"version":', '"version": "x", "version":', 1).encode()


def _with_config(yaml_text: str, line: str) -> bytes:
    return yaml_text.replace("runs:\n", f"judge_config: {{{line}}}\nruns:\n", 1).encode()


def corpus(count: int, seed: int) -> list[Mutant]:
    """``count`` generated mutants (structural and text-level, native and ARE) plus the
    hand-made specials."""
    rng = random.Random(seed)
    natives = {n: yaml.safe_load((EXAMPLES / n).read_text()) for n in NATIVE}
    exports = {
        c: (json.loads((CASES / c / "agent.json").read_text()), (CASES / c / "oracle.json").read_bytes())
        for c in ARE_CASES
    }
    out = special(rng)
    for i in range(count):
        if rng.random() < 0.5:
            name = rng.choice(NATIVE)
            if rng.random() < 0.8:
                how, body = structural(rng, natives[name], _yaml)
                family = "native structural"
            else:
                how, body = text_level(rng, (EXAMPLES / name).read_bytes())
                family = "native text"
            out.append(Mutant(family, f"{i}: {name}: {how}", {"s.yaml": body}))
        else:
            case = rng.choice(ARE_CASES)
            agent, oracle = exports[case]
            if rng.random() < 0.8:
                how, body = structural(rng, agent, _json)
                family = "ARE structural"
            else:
                how, body = text_level(rng, _json(agent))
                family = "ARE text"
            out.append(Mutant(family, f"{i}: {case}: {how}", {"agent.json": body, "oracle.json": oracle}))
    out += adapter_mutants(count // 10, random.Random(seed + 1000))
    return out


ADAPTERS = EXAMPLES / "adapters"


def adapter_mutants(count: int, rng: random.Random) -> list[Mutant]:
    """Agent logs of the other formats (example_scenarios/adapters/logs), mutated, judged through
    the scenario that names them."""
    scenario = yaml.safe_load((ADAPTERS / "ride_to_airport.yaml").read_text())
    scenario["runs"] = [{"id": "log", "file": "agent.log.json"}]
    head = _yaml(scenario)
    logs = sorted((ADAPTERS / "logs").glob("*.log.json"))
    out = []
    for i in range(count):
        log = rng.choice(logs)
        data = json.loads(log.read_text())
        if rng.random() < 0.8:
            how, body = structural(rng, data, _json)
            family = "adapter structural"
        else:
            how, body = text_level(rng, log.read_bytes())
            family = "adapter text"
        out.append(Mutant(family, f"a{i}: {log.name}: {how}", {"s.yaml": head, "agent.log.json": body}))
    return out


@dataclass
class Outcome:
    mutant: Mutant
    exit: int | None
    records: list[dict[str, Any]]
    problem: str | None
    seconds: float


def run_one(m: Mutant, folder: Path) -> Outcome:
    """The CLI on one mutant's folder, in-process; any exception escaping ``main`` is a problem."""
    from pytest_are_judge.cli import main

    folder.mkdir(parents=True)
    for rel, body in m.files.items():
        (folder / rel).write_bytes(body)
    if "s.yaml" in m.files:
        shutil.copytree(EXAMPLES / "runs", folder.parent / "runs", dirs_exist_ok=True)
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(folder), "--json"])
    except BaseException as exc:
        return Outcome(m, None, [], f"{type(exc).__name__}: {exc}"[:300], time.perf_counter() - t0)
    seconds = time.perf_counter() - t0
    records = []
    for line in out.getvalue().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            return Outcome(m, code, [], f"not a JSON line on stdout: {line[:200]!r}", seconds)
    return Outcome(m, code, records, check(m, code, records, err.getvalue(), folder), seconds)


def check(m: Mutant, code: int, records: list[dict[str, Any]], stderr: str, folder: Path) -> str | None:
    """The rules every outcome must keep; a message for the first one broken."""
    if "Traceback" in stderr:
        return "a traceback on stderr"
    if code not in (0, 1, 2):
        return f"exit status {code}"
    if code == 2 and not records and "error:" not in stderr:
        return "exit 2 without an error record or message"
    for rec in records:
        if rec.get("verdict") == "error":
            named = rec.get("failure_detail") or {}
            if not named.get("file") and str(folder) not in (rec.get("failure") or ""):
                return f"an error that does not name the file: {rec.get('failure')!r}"
    if m.must_reject and (code != 2 or any(r.get("verdict") != "error" for r in records)):
        verdicts = [r.get("verdict") for r in records]
        return f"invalid input was judged: exit {code}, verdicts {verdicts}"
    if m.must_not_pass and any(r.get("verdict") == "pass" for r in records):
        return "a false pass"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    import tempfile

    mutants = corpus(a.count, a.seed)
    problems = []
    exits: Counter[str] = Counter()
    slowest = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for i, m in enumerate(mutants):
            o = run_one(m, Path(tmp, f"m{i:05d}", "case"))
            exits[str(o.exit)] += 1
            slowest = max(slowest, o.seconds)
            if o.problem:
                problems.append((m.family, m.name, o.problem))
    families = Counter(m.family for m in mutants)
    print(f"{len(mutants)} inputs (seed {a.seed}): " + ", ".join(f"{f} {n}" for f, n in sorted(families.items())))
    print("exit statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(exits.items())))
    print(f"slowest input: {slowest:.2f} s")
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"peak memory of the whole run (max RSS): {peak:.0f} MiB")
    print(f"problems: {len(problems)}")
    for p in problems:
        print("  " + " | ".join(p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
