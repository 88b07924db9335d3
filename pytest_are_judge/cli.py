"""``are-judge``: the offline command-line judge (also ``python -m pytest_are_judge``).

Exit status: 0 when every run meets its expectation, 1 when a run fails (or a known-bad run
unexpectedly passes), 2 on usage or input errors.  With ``--min-pass-hat-k R`` the pass^k of
repeated runs decides instead: 0 when it is at least R, else 1 (input errors still give 2).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._rate import format_rate as _pct

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    """The parser, from the options table (:data:`pytest_are_judge.options.OPTIONS`)."""
    from .options import cli_options

    p = argparse.ArgumentParser(
        prog="are-judge",
        description="Judge agent runs (ARE export traces or native scenarios) against their oracle.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="trace/scenario files or directories")
    for opt in cli_options():
        assert opt.cli is not None
        help_text = opt.help.replace("%", "%%")
        if opt.kind == "bool":
            p.add_argument(opt.cli, dest=opt.key, action="store_true", default=None, help=help_text)
        else:
            p.add_argument(opt.cli, dest=opt.key, metavar=opt.metavar, choices=opt.choices or None, help=help_text)
    return p


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


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import InputError, UsageError

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

    config = configured(s.config, s.config_overrides())
    _check_llm(s, config)
    runs, errors = load_runs(list(paths), oracle_path=s.oracle, explicit_files_are_runs=True)
    if s.hf:
        from .readers.hf import load_hf_scenarios, pair_runs_with_hf

        runs = pair_runs_with_hf(runs, load_hf_scenarios(s.hf, split=s.hf_split, config=s.hf_config))
    if s.limit is not None:
        runs = runs[: s.limit]
    pipeline = Pipeline(config)
    results: list[tuple[Any, Judgment]] = [(run, pipeline.judge_run(run)) for run in runs]
    results += [(None, Judgment.for_input_error(e, run_id=Path(e.file or "input").name)) for e in errors]
    if not results:
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

    color = not s.no_color and not s.json and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    statuses = [_status(j, run.expected if run is not None else None) for run, j in results]
    if s.output_dir:
        out = Path(s.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        used: set[str] = set()
        for (_run, j), st in zip(results, statuses):
            name = _safe(f"{j.scenario_id or 'input'}__{j.run_id}")
            while name in used:
                name += "_"
            used.add(name)
            (out / f"{name}.json").write_text(json.dumps({**j.to_dict(), "status": st}, indent=2, default=str))
    if s.json:
        for (run, j), st in zip(results, statuses):
            print(
                json.dumps(
                    {**j.to_dict(), "status": st, "expected": run.expected if run is not None else None}, default=str
                )
            )
    else:
        _print_human(results, statuses, color)
    repeats = _repeats(s, [j for run, j in results if run is not None])
    if repeats is not None:
        if s.output_dir:
            (Path(s.output_dir) / "_repeats.json").write_text(json.dumps(repeats, indent=2))
        if not s.json:
            from .repeats import repeat_lines

            print()
            for line in repeat_lines(repeats):
                print(line)
            if repeats["min_pass_hat_k"] is not None:
                verdict = "OK" if repeats["gate_passed"] else "FAILED"
                print(
                    f"{verdict}: pass^k {_pct(repeats['overall']['pass_hat_k'])} vs --min-pass-hat-k "
                    f"{_pct(repeats['min_pass_hat_k'])}"
                )
    if s.html or s.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"):
        _write_reports(s, results, statuses, config)
    if any(st == "ERROR" for st in statuses):
        return EXIT_ERROR  # a run that could not be judged is never tolerated, gate or not
    if s.min_pass_hat_k is not None:
        # The threshold says how much failure is tolerated: it, not each run, sets the status.
        assert repeats is not None  # always computed when a gate is given
        if repeats["gate_passed"]:
            return EXIT_OK
        if s.json:  # the table is not printed in JSON mode: say why the exit status is 1
            print(
                f"are-judge: pass^k {_pct(repeats['overall']['pass_hat_k'])} is below --min-pass-hat-k {_pct(s.min_pass_hat_k)}",
                file=sys.stderr,
            )
        return EXIT_FAIL
    if any(st in ("FAIL", "XPASS") for st in statuses):
        return EXIT_FAIL
    return EXIT_OK


def _repeats(s: Any, judgments: list[Any]) -> dict[str, Any] | None:
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
