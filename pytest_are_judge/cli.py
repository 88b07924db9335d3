"""``are-judge``: the offline command-line judge (also ``python -m pytest_are_judge``).

Exit status: 0 when every run meets its expectation, 1 when a run fails (or a known-bad run
unexpectedly passes), 2 on usage or input errors.  With ``--min-pass-hat-k R`` the pass^k of
repeated runs decides instead: 0 when it is at least R, else 1 (input errors still give 2).

``are-judge lint PATH...`` checks scenario files without judging: 0 when clean, 2 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._rate import format_rate as _pct

if TYPE_CHECKING:
    from .repeats import RepeatsReport

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    """The parser, from the options table (:data:`pytest_are_judge.options.OPTIONS`)."""
    from .options import cli_options

    p = argparse.ArgumentParser(
        prog="are-judge",
        description="Judge agent runs (ARE export traces or native scenarios) against their oracle.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="trace/scenario files or directories")
    _add_options(p, cli_options())
    return p


LINT_OPTIONS = ("config", "oracle", "allow_outside_files", "log_format")
"""The options of ``are-judge lint`` (what reading and checking scenarios depends on)."""


def _add_options(p: argparse.ArgumentParser, options: Sequence[Any]) -> None:
    for opt in options:
        assert opt.cli is not None
        help_text = opt.help.replace("%", "%%")
        if opt.kind == "bool":
            p.add_argument(opt.cli, dest=opt.key, action="store_true", default=None, help=help_text)
        else:
            p.add_argument(opt.cli, dest=opt.key, metavar=opt.metavar, choices=opt.choices or None, help=help_text)


def _settings(args: argparse.Namespace) -> Any:
    from .options import check_combinations, cli_options, resolve

    s = resolve(cli_options(), context="cli", cli=lambda opt: getattr(args, opt.key, None))
    check_combinations(s, plugin=False)
    return s


def _check_llm(s: Any, config: Any) -> None:
    """LLM options without LLM judging, or LLM judging without litellm: a usage error."""
    import importlib.util

    from .errors import UsageError
    from .options import BY_KEY

    llm_given = [s.given[k] for k in s.given if BY_KEY[k].llm]
    if llm_given and not config.llm:
        raise UsageError(
            f"{', '.join(llm_given)} given while LLM judging is off: add --llm (or llm: true in the config)"
        )
    if config.llm and importlib.util.find_spec("litellm") is None:
        raise UsageError("LLM judging is on but litellm is not installed: pip install 'pytest-are-judge[llm]'")


def _status(j: Any, expected: str | None) -> str:
    if j.is_error:
        return "ERROR"
    if expected == "fail":
        return "XPASS" if j.success else "XFAIL"
    return "PASS" if j.success else "FAIL"


def _paint(status: str, color: bool) -> str:
    if not color:
        return status
    code = {"PASS": "32", "XFAIL": "33", "FAIL": "31", "XPASS": "31", "ERROR": "35"}.get(status, "0")
    return f"\033[{code}m{status}\033[0m"


def lint_main(argv: Sequence[str]) -> int:
    """``are-judge lint PATH...``: every problem found, one per file, with where and how to fix it."""
    from ._text import visible
    from .errors import InputError, UsageError
    from .lint import lint_paths
    from .options import cli_options
    from .pipeline import configured

    p = argparse.ArgumentParser(
        prog="are-judge lint",
        description="Check scenario files (events, oracle graph, tools of known ARE apps, judge configs, "
        "known-bad labels) without judging any run. Exit 0 when clean, 2 when a file has a problem.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="trace/scenario files or directories")
    _add_options(p, [o for o in cli_options() if o.key in LINT_OPTIONS])
    args = p.parse_args(argv)
    try:
        config = configured(args.config, {}) if args.config else None
        result = lint_paths(
            args.paths,
            config,
            oracle_path=args.oracle,
            allow_outside=bool(args.allow_outside_files),
            log_format=args.log_format,
        )
    except (InputError, UsageError) as exc:
        print(f"are-judge lint: error: {visible(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    for problem in result.problems:
        print(visible(str(problem)))
    if not result.files and not result.problems:
        print("are-judge lint: error: no scenario files found under " + ", ".join(args.paths), file=sys.stderr)
        return EXIT_ERROR
    n = len(result.problems)
    print(f"{result.files} file(s) checked: " + (f"{n} problem(s)" if n else "no problems"))
    return EXIT_ERROR if n else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import InputError, UsageError

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["lint"]:  # a folder named lint: are-judge ./lint
        return lint_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        s = _settings(args)
    except UsageError as exc:
        print(f"are-judge: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if s.schema:
        from .readers.native import json_schema

        print(json.dumps(json_schema(), indent=2))
        return EXIT_OK
    if not args.paths:
        parser.print_usage(sys.stderr)
        print("are-judge: error: give at least one PATH", file=sys.stderr)
        return EXIT_ERROR
    try:
        return _run(args.paths, s)
    except (InputError, UsageError) as exc:
        print(f"are-judge: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return EXIT_OK


def _run(paths: list[str], s: Any) -> int:
    from .judgment.result import Judgment
    from .pipeline import Pipeline, configured
    from .readers import load_runs
    from .repeats import is_repeat

    config = configured(s.config, s.config_overrides())
    _check_llm(s, config)
    runs, errors = load_runs(
        list(paths),
        oracle_path=s.oracle,
        explicit_files_are_runs=True,
        allow_outside=bool(s.allow_outside_files),
        log_format=s.log_format,
    )
    if s.limit is not None:
        runs = runs[: s.limit]
    if not runs and not errors:
        from .readers._load import count_oracle_files

        n_oracles = count_oracle_files(list(paths))
        hint = (
            f" ({n_oracles} oracle-run trace(s) found: they supply the oracle side of agent runs in the same "
            "folder; name one directly to judge it against its own definition)"
            if n_oracles
            else ""
        )
        print("are-judge: error: no runs found under " + ", ".join(paths) + hint, file=sys.stderr)
        return EXIT_ERROR
    hf = None
    if s.hf:
        from .readers.hf import load_hf_scenarios, pair_run_with_hf

        hf = load_hf_scenarios(s.hf, split=s.hf_split, config=s.hf_config)
    pipeline = Pipeline(config)
    progress = _Progress(len(runs) + len(errors), enabled=not s.json and sys.stderr.isatty())
    out = _Outputs(s)
    results: list[tuple[Any, Judgment, str]] = []
    for run in runs:
        if hf is not None:
            run, missing = pair_run_with_hf(run, hf, f"--hf dataset {s.hf}")
            if missing is not None:
                j = Judgment.for_input_error(missing, scenario_id=run.scenario.scenario_id, run_id=run.run_id)
                results.append((run, j, out.emit(run, j)))
                progress.step()
                continue
        j = pipeline.judge_run(run)
        results.append((run, j, out.emit(run, j)))  # streamed as judged (--json: one line per run)
        progress.step()
    for e in errors:
        j = Judgment.for_input_error(e, run_id=Path(e.file or "input").name)
        results.append((None, j, out.emit(None, j)))
        progress.step()
    progress.done()
    statuses = [st for _, _, st in results]
    if not s.json:
        color = not s.no_color and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        _print_human([(run, j) for run, j, _ in results], statuses, color)
    repeats = _repeats(s, [j for run, j, _ in results if run is not None])
    if repeats is not None:
        if s.output_dir:
            (Path(s.output_dir) / "_repeats.json").write_text(json.dumps(repeats, indent=2))
        if not s.json:
            from .repeats import repeat_lines

            print()
            for line in repeat_lines(repeats):
                print(line)
    if s.html or s.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"):
        _write_reports(s, [(run, j) for run, j, _ in results], statuses, config)
    if any(st == "ERROR" for st in statuses):
        return EXIT_ERROR  # a run that could not be judged is never tolerated, gate or not
    failing = [j for _, j, st in results if st in ("FAIL", "XPASS")]
    if s.min_pass_hat_k is not None:
        # the pass^k gate, not each repeat, decides for repeated runs; other runs still count
        assert repeats is not None  # always computed when a gate is given
        value, limit = _pct(repeats["overall"]["pass_hat_k"]), _pct(s.min_pass_hat_k)
        print(
            f"pass^k gate OK: pass^k {value} >= --min-pass-hat-k {limit}"
            if repeats["gate_passed"]
            else f"FAILED: pass^k {value} is below --min-pass-hat-k {limit}",
            file=sys.stderr if s.json else sys.stdout,
        )
        failing = [j for j in failing if not is_repeat(j)]
        if not repeats["gate_passed"]:
            return EXIT_FAIL
    return EXIT_FAIL if failing else EXIT_OK


class _Progress:
    """``judged 12/500`` on stderr, rewritten in place, only on a terminal; with LLM judging,
    the model calls made, answers from the cache and retries so far."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self.total, self.n, self.enabled = total, 0, enabled and total >= 20

    def step(self) -> None:
        self.n += 1
        if self.enabled:
            line = f"are-judge: judged {self.n}/{self.total}"
            usage = sys.modules.get("pytest_are_judge.soft.usage")
            if usage is not None:
                u = usage.usage_totals()
                line += (
                    f"  LLM calls {u.get('calls', 0)}, cached {u.get('cache_hits', 0)}, retries {u.get('retries', 0)}"
                )
            sys.stderr.write("\r" + line)
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


class _Outputs:
    """Per-run outputs written as each run is judged: a JSON line (``--json``) and a file in
    ``--output-dir``."""

    def __init__(self, s: Any) -> None:
        self.s = s
        self.used: set[str] = set()
        if s.output_dir:
            Path(s.output_dir).mkdir(parents=True, exist_ok=True)

    def emit(self, run: Any, j: Any) -> str:
        from .report.record import run_record

        st = _status(j, run.expected if run is not None else None)
        if not (self.s.json or self.s.output_dir):
            return st
        rec = {**run_record(j), "status": st, "success": j.success}
        if self.s.output_dir:
            name = _safe(f"{j.scenario_id or 'input'}__{j.run_id}")
            while name in self.used:
                name += "_"
            self.used.add(name)
            (Path(self.s.output_dir) / f"{name}.json").write_text(json.dumps(rec, indent=2, default=str))
        if self.s.json:
            print(json.dumps(rec, default=str), flush=True)
        return st


def _repeats(s: Any, judgments: list[Any]) -> RepeatsReport | None:
    """pass@k / pass^k over the repeats of each scenario (:func:`~pytest_are_judge.repeats.repeats_report`)."""
    from .repeats import repeats_report

    return repeats_report(judgments, k=s.k, min_pass_hat_k=s.min_pass_hat_k)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:150]


def _print_human(results: list[tuple[Any, Any]], statuses: list[str], color: bool) -> None:
    from ._text import table, visible

    rows = [
        [
            st,
            visible(j.scenario_id or "-"),
            visible(j.run_id),
            f"{j.turns_judged}/{j.nb_turns}",
            str(len(j.agent_event_id_to_oracle_event_id)),
            j.failure_kind or "",
        ]
        for (_run, j), st in zip(results, statuses)
    ]
    head, rule, *lines = table(["status", "scenario", "run", "turns", "matched", "failure"], rows)
    print(head)
    print(rule)
    for line, st in zip(lines, statuses):
        print(_paint(st, color) + line[len(st) :])
    for (_run, j), st in zip(results, statuses):
        if st in ("FAIL", "ERROR", "XPASS"):
            print()
            print(
                j.render()
                if st != "XPASS"
                else f"XPASS {visible(j.scenario_id)}:{visible(j.run_id)}: declared expect=fail but passed"
            )
    noted = [(j, n) for (_run, j), st in zip(results, statuses) if st in ("PASS", "XFAIL") for n in j.notes]
    if noted:
        print()
        for j, n in noted:
            print(f"note {visible(j.scenario_id)}:{visible(j.run_id)}: {visible(n)}")
    counts = {s: statuses.count(s) for s in ("PASS", "FAIL", "XFAIL", "XPASS", "ERROR") if statuses.count(s)}
    print()
    print(f"{len(statuses)} run(s): " + ", ".join(f"{n} {s.lower()}" for s, n in counts.items()))


def _write_reports(s: Any, results: list[tuple[Any, Any]], statuses: list[str], config: Any) -> None:
    from .report import build_report, render_html, run_record, write_markdown_summary

    report = build_report([run_record(j) for _run, j in results], title="are-judge report")
    if s.html:
        Path(s.html).write_text(render_html(report), encoding="utf-8")
    if s.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"):
        write_markdown_summary(report, s.md_summary)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
