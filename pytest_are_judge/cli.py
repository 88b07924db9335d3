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
    p = argparse.ArgumentParser(
        prog="are-judge",
        description="Judge agent runs (ARE export traces or native scenarios) against their oracle.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="trace/scenario files or directories")
    p.add_argument("--oracle", metavar="ORACLE_TRACE", help="oracle-run trace used as the oracle side of every ARE run")
    p.add_argument("--config", metavar="FILE", help="judge config (JSON, YAML or TOML)")
    p.add_argument("--matching", choices=["greedy", "exact"], help="greedy (ARE, default) or exact assignment search")
    p.add_argument("--limit", type=int, metavar="N", help="judge at most N runs")
    p.add_argument("--output-dir", metavar="DIR", help="write one JSON judgment per run into DIR")
    p.add_argument("--json", action="store_true", help="one JSON object per run on stdout")
    p.add_argument("--llm", action="store_true", help="turn LLM (soft) checks on (needs the [llm] extra)")
    p.add_argument("--judge-model", help="LLM judge model (env ARE_JUDGE_MODEL)")
    p.add_argument("--judge-provider", help="litellm provider (env ARE_JUDGE_PROVIDER)")
    p.add_argument("--judge-endpoint", help="OpenAI-compatible base URL (env ARE_JUDGE_ENDPOINT)")
    p.add_argument("--llm-cache", metavar="PATH", help="JSONL verdict cache for LLM checks")
    p.add_argument(
        "--llm-replay-only", action="store_true", help="error on an LLM cache miss instead of calling the model"
    )
    p.add_argument(
        "--hf",
        metavar="DATASET",
        help="oracle scenarios from a Hugging Face dataset, paired with runs by scenario id (needs [hf])",
    )
    p.add_argument("--hf-split", metavar="SPLIT")
    p.add_argument("--hf-config", metavar="NAME")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--md-summary", metavar="FILE", help="write a Markdown summary")
    p.add_argument(
        "--k",
        type=int,
        metavar="K",
        help="k for pass@k / pass^k over repeated runs of a scenario "
        "(default: the smallest run count among scenarios with two runs or more)",
    )
    p.add_argument(
        "--min-pass-hat-k",
        metavar="R",
        help="exit 1 when the overall pass^k of repeated runs is below R (0..1 or a percentage like 80%%)",
    )
    p.add_argument("--schema", action="store_true", help="print the JSON Schema of the native scenario format and exit")
    p.add_argument("--no-color", action="store_true", help="plain output")
    return p


def _config(args: argparse.Namespace):
    from .judge.config import GraphPerEventJudgeConfig, config_from_mapping, load_config

    base = load_config(args.config) if args.config else GraphPerEventJudgeConfig()
    overrides: dict[str, Any] = {}
    if args.matching:
        overrides["matching"] = args.matching
    if args.llm:
        overrides["llm"] = True
    for name in ("judge_model", "judge_provider", "judge_endpoint"):
        if getattr(args, name):
            overrides[name] = getattr(args, name)
    llm_opts = dict(base.llm_options)
    if args.llm_cache:
        llm_opts["cache_path"] = args.llm_cache
    if args.llm_replay_only:
        llm_opts["replay_only"] = True
    if llm_opts != base.llm_options:
        overrides["llm_options"] = llm_opts
    return config_from_mapping(overrides, base=base, source=args.config) if overrides else base


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
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.schema:
        from .readers.native import json_schema

        print(json.dumps(json_schema(), indent=2))
        return EXIT_OK
    if not args.paths:
        parser.print_usage(sys.stderr)
        print("are-judge: error: give at least one PATH", file=sys.stderr)
        return EXIT_ERROR
    if args.limit is not None and args.limit < 1:
        print("are-judge: error: --limit must be >= 1", file=sys.stderr)
        return EXIT_ERROR
    if args.k is not None and args.k < 1:
        print("are-judge: error: --k must be >= 1", file=sys.stderr)
        return EXIT_ERROR
    if args.min_pass_hat_k is not None:
        from ._rate import parse_rate

        try:
            args.min_pass_hat_k = parse_rate(args.min_pass_hat_k)
        except ValueError as exc:
            print(f"are-judge: error: --min-pass-hat-k: {exc}", file=sys.stderr)
            return EXIT_ERROR

    from .errors import InputError

    try:
        return _run(args)
    except InputError as exc:
        print(f"are-judge: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    from .api import judge_run
    from .judge.engine import GraphPerEventJudge
    from .judgment.result import Judgment
    from .readers import load_runs

    config = _config(args)
    runs, errors = load_runs(list(args.paths), oracle_path=args.oracle, explicit_files_are_runs=True)
    if args.hf:
        from .readers.hf import load_hf_scenarios, pair_runs_with_hf

        runs = pair_runs_with_hf(runs, load_hf_scenarios(args.hf, split=args.hf_split, config=args.hf_config))
    if args.limit is not None:
        runs = runs[: args.limit]
    judge = GraphPerEventJudge(config)
    results: list[tuple[Any, Judgment]] = []
    for run in runs:
        results.append((run, judge_run(run, judge=judge)))
    error_results = [
        (None, Judgment(success=False, failure=e.to_failure(), run_id=Path(e.file or "input").name, source=e.file))
        for e in errors
    ]
    results.extend(error_results)
    if not results:
        from .readers._load import count_oracle_files

        n_oracles = count_oracle_files(list(args.paths))
        hint = (
            f" ({n_oracles} oracle-run trace(s) found: they supply the oracle side of agent runs in the same "
            "folder; name one directly to judge it against its own definition)"
            if n_oracles
            else ""
        )
        print("are-judge: error: no runs found under " + ", ".join(args.paths) + hint, file=sys.stderr)
        return EXIT_ERROR

    color = not args.no_color and not args.json and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    statuses = [_status(j, run.expected if run is not None else None) for run, j in results]
    if args.output_dir:
        out = Path(args.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        used: set[str] = set()
        for (_run, j), st in zip(results, statuses):
            name = _safe(f"{j.scenario_id or 'input'}__{j.run_id}")
            while name in used:
                name += "_"
            used.add(name)
            (out / f"{name}.json").write_text(json.dumps({**j.to_dict(), "status": st}, indent=2, default=str))
    if args.json:
        for (run, j), st in zip(results, statuses):
            print(
                json.dumps(
                    {**j.to_dict(), "status": st, "expected": run.expected if run is not None else None}, default=str
                )
            )
    else:
        _print_human(results, statuses, color)
    repeats = _repeats(args, [(run, j) for run, j in results if run is not None])
    if repeats is not None:
        if args.output_dir:
            (Path(args.output_dir) / "_repeats.json").write_text(json.dumps(repeats, indent=2))
        if not args.json:
            _print_repeats(repeats)
    if args.html or args.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"):
        _write_reports(args, results, statuses, config)
    if any(s == "ERROR" for s in statuses):
        return EXIT_ERROR  # a run that could not be judged is never tolerated, gate or not
    if args.min_pass_hat_k is not None:
        # The threshold says how much failure is tolerated: it, not each run, sets the status.
        assert repeats is not None  # always computed when a gate is given
        if repeats["gate_passed"]:
            return EXIT_OK
        if args.json:  # the table is not printed in JSON mode: say why the exit status is 1
            print(
                f"are-judge: pass^k {_pct(repeats['overall']['pass_hat_k'])} is below --min-pass-hat-k {_pct(args.min_pass_hat_k)}",
                file=sys.stderr,
            )
        return EXIT_FAIL
    if any(s in ("FAIL", "XPASS") for s in statuses):
        return EXIT_FAIL
    return EXIT_OK


def _repeats(args: argparse.Namespace, judged: list[tuple[Any, Any]]) -> dict[str, Any] | None:
    """pass@k / pass^k over the runs of each scenario (:func:`~pytest_are_judge.repeats.repeats_report`)."""
    from .repeats import repeats_report, run_number_of

    records = [
        {
            "scenario_id": j.scenario_id,
            "success": j.success,
            "failure_kind": j.failure_kind,
            "run_number": run_number_of(run),
        }
        for run, j in judged
    ]
    return repeats_report(records, k=args.k, min_pass_hat_k=args.min_pass_hat_k)


def _print_repeats(repeats: dict[str, Any]) -> None:
    k = repeats["k"]
    print()
    if k is None:
        print("repeated runs: none (no scenario has two runs or more): pass^k cannot be computed")
    else:
        rows = [
            [sid, str(r["n"]), str(r["c"]), _pct(r["pass_at_k"]), _pct(r["pass_hat_k"])]
            for sid, r in repeats["scenarios"].items()
        ]
        o = repeats["overall"]
        rows.append(
            [
                f"overall ({o['scored']} scored)",
                str(o["runs"]),
                str(o["passes"]),
                _pct(o["pass_at_k"]),
                _pct(o["pass_hat_k"]),
            ]
        )
        headers = ["scenario", "runs", "passed", f"pass@{k}", f"pass^{k}"]
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        print(f"repeated runs (k={k}):")
        print("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    threshold = repeats["min_pass_hat_k"]
    if threshold is not None:
        verdict = "OK" if repeats["gate_passed"] else "FAILED"
        print(f"{verdict}: pass^k {_pct(repeats['overall']['pass_hat_k'])} vs --min-pass-hat-k {_pct(threshold)}")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:150]


def _print_human(results: list[tuple[Any, Any]], statuses: list[str], color: bool) -> None:
    rows = []
    for (_run, j), st in zip(results, statuses):
        rows.append(
            [
                st,
                j.scenario_id or "-",
                j.run_id,
                f"{j.turns_judged}/{j.nb_turns}",
                str(len(j.agent_event_id_to_oracle_event_id)),
                j.failure_kind or "",
            ]
        )
    headers = ["status", "scenario", "run", "turns", "matched", "failure"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
    for r in rows:
        cells = [_paint(r[0], color) + " " * (widths[0] - len(r[0]))] + [c.ljust(w) for c, w in zip(r[1:], widths[1:])]
        print("  ".join(cells).rstrip())
    for (_run, j), st in zip(results, statuses):
        if st in ("FAIL", "ERROR", "XPASS"):
            print()
            print(j.render() if st != "XPASS" else f"XPASS {j.scenario_id}:{j.run_id}: declared expect=fail but passed")
    counts = {s: statuses.count(s) for s in ("PASS", "FAIL", "XFAIL", "XPASS", "ERROR") if statuses.count(s)}
    print()
    print(f"{len(statuses)} run(s): " + ", ".join(f"{n} {s.lower()}" for s, n in counts.items()))


def _write_reports(args: argparse.Namespace, results: list[tuple[Any, Any]], statuses: list[str], config: Any) -> None:
    from .report import build_report, render_html, write_markdown_summary
    from .report.view import run_view, unjudged_view

    views = []
    for (run, j), st in zip(results, statuses):
        if run is not None:
            view = run_view(run, j, config)
        else:  # an input error: no run to draw, but it is listed
            view = unjudged_view(
                failure_text=j.render(),
                scenario_id=j.scenario_id,
                run_id=j.run_id,
                name=j.run_id,
                source=j.source,
                failure_kind=j.failure_kind,
                judgment=j.to_dict(),
            )
        view["cli_status"] = st
        views.append(view)
    report = build_report(views, title="are-judge report")
    if args.html:
        Path(args.html).write_text(render_html(report), encoding="utf-8")
    if args.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"):
        write_markdown_summary(report, args.md_summary)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
