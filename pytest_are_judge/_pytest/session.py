"""The session part of the plugin: collection of ``--are-scenarios``, gating, summary, reports.

Registered only when an ``--are-*`` option or ini key is set.  Everything that is aggregated
(verdicts, LLM usage) is aggregated on the controller from test reports (and ``workeroutput``),
so ``pytest -n N`` gives the same summary, gating and baseline results as ``-n 0``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .._rate import format_rate as _pct
from ..options import Settings
from .settings import hf_label, settings


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


class AreJudgeSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.settings: Settings = settings(config)
        self.index: Any = None
        self.records: dict[str, dict[str, Any]] = {}
        self.outcomes: dict[str, str] = {}
        self.worker_usage: list[dict[str, Any]] = []
        self.baseline_verdicts: dict[str, str] | None = None
        self.baseline_repeats: dict[str, dict[str, int]] | None = None
        self.repeats: dict[str, Any] | None = None
        self.repeats_messages: list[str] = []
        self.written: list[str] = []
        self.summary: dict[str, Any] | None = None
        self.baseline_result: dict[str, Any] | None = None
        self.gate_message: str | None = None
        self.llm_usage: dict[str, Any] | None = None

    # ------------------------------------------------------------ configure / collect
    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        s = self.settings
        from .collection import XFAIL_STRICT_KEY

        config.stash[XFAIL_STRICT_KEY] = s.xfail_strict
        if s.baseline:
            from .baseline import load_baseline_data

            self.baseline_verdicts, self.baseline_repeats = load_baseline_data(s.baseline)
        if not s.scenarios:
            return
        for p in s.scenarios:
            if not p.exists():
                raise pytest.UsageError(f"{s.name('scenarios')}: no such file or directory: {p}")
        from .collection import ScenarioIndex
        from .hf import hf_scenarios

        # --are-hf: loaded here in every process (controller and xdist workers alike), so a bad
        # dataset is a usage error before anything runs
        self.index = ScenarioIndex(s.scenarios, hf=hf_scenarios(config), hf_label=hf_label(s) if s.hf else None)
        # Make the scenario roots part of what pytest collects.  Without explicit test paths
        # (args from testpaths or the current directory), --are-scenarios replaces them.
        args = list(config.args)
        from_args = config.args_source == pytest.Config.ArgsSource.ARGS
        if "scenarios" in s.from_cli and not from_args:
            args = []
        existing = [Path(os.path.abspath(Path(config.invocation_params.dir, a.split("::")[0]))) for a in args]
        for root in s.scenarios:
            r = Path(os.path.abspath(root))
            if any(r == e or e in r.parents for e in existing):
                continue
            args.append(str(r))
            existing.append(r)
        config.args[:] = args

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # LLM usage is counted per process; a session reports only its own calls (several
        # sessions can share a process: pytester's in-process runs, pytest.main() in a loop)
        from .reporting import reset_local_usage

        reset_local_usage()

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return [self.settings.header()]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> Any:
        if self.index is None or not self.index.wants(
            file_path if file_path.is_absolute() else Path(os.path.abspath(file_path))
        ):
            return None
        from .collection import ScenarioFile

        node = ScenarioFile.from_parent(parent, path=file_path)
        node.index = self.index
        return node

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        from .collection import LoadErrorItem, ScenarioItem

        ours = [i for i in items if isinstance(i, (ScenarioItem, LoadErrorItem))]
        if self.settings.limit is not None and len(ours) > self.settings.limit:
            drop = {id(i) for i in ours[self.settings.limit :]}
            deselected = [i for i in items if id(i) in drop]
            items[:] = [i for i in items if id(i) not in drop]
            config.hook.pytest_deselected(items=deselected)
        if self.baseline_verdicts:
            from ..judgment.result import JudgmentError

            for item in items:
                if (
                    isinstance(item, ScenarioItem)
                    and self.baseline_verdicts.get(item.nodeid) in ("fail", "error")
                    and item.get_closest_marker("xfail") is None
                ):
                    item.add_marker(
                        pytest.mark.xfail(reason="failed in baseline too", strict=False, raises=JudgmentError)
                    )

    # ------------------------------------------------------------ per-item reports
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
        report = yield
        if call.when == "setup" and report.failed and call.excinfo is not None and hasattr(item, "are_record"):
            # pytest renders setup errors as tracebacks; ours are input errors: show the message
            report.longrepr = item.repr_failure(call.excinfo)
        rec = getattr(item, "are_record", None)
        if rec is not None and (call.when == "call" or report.failed or report.skipped):
            report.are_judge = rec  # serialised with the report to the xdist controller
        elif (
            call.when == "setup"
            and report.failed
            and rec is None
            and type(item).__name__ in ("ScenarioItem", "LoadErrorItem")
        ):
            from ..judgment.failures import FailureKind, GenericFailure
            from ..judgment.result import Judgment
            from .collection import record_for

            run = getattr(item, "run", None)
            failed = Judgment(
                success=False,
                failure=GenericFailure(FailureKind.JUDGE_UNAVAILABLE, f"could not judge: {report.longrepr}"),
                scenario_id=run.scenario.scenario_id if run is not None else "",
                run_id=run.run_id if run is not None else item.name,
                source=run.source if run is not None else str(item.path),
            )
            report.are_judge = record_for(item, failed)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if _is_worker(self.config):
            return
        rec = getattr(report, "are_judge", None)
        if rec is None:
            return
        from .reporting import outcome_of

        outcome = outcome_of(report)
        if outcome is None:
            return
        self.records[report.nodeid] = rec
        if report.when == "teardown" and report.nodeid in self.outcomes:
            return
        self.outcomes[report.nodeid] = outcome

    # ------------------------------------------------------------ session end
    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        usage = getattr(node, "workeroutput", {}).get("are_judge_llm_usage")
        if usage:
            self.worker_usage.append(usage)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from .reporting import local_usage, merge_usage, summarize, write_report

        if _is_worker(self.config):
            usage = local_usage()
            if usage:
                self.config.workeroutput["are_judge_llm_usage"] = usage  # type: ignore[attr-defined]
            return
        s = self.settings
        self.llm_usage = merge_usage([*self.worker_usage, local_usage() or {}])
        if (
            not self.records
            and not s.scenarios
            and s.min_pass_rate is None
            and s.min_pass_hat_k is None
            and not (s.report or s.save_baseline or s.html or s.md_summary)
        ):
            return  # only fixture-level options were used: nothing to summarise
        self.summary = summarize(self.records, self.outcomes, s.min_pass_rate)
        if self.baseline_verdicts is not None:
            from .baseline import compare

            self.baseline_result = {"path": s.baseline, **compare(self.baseline_verdicts, self.records)}
        if s.min_pass_rate is not None and not self.summary["gate_passed"]:
            rate = self.summary["pass_rate"]
            shown = "n/a (no runs judged)" if rate is None else _pct(rate)
            self.gate_message = f"FAILED: pass rate {shown} is below --are-min-pass-rate {_pct(s.min_pass_rate)}"
            if session.exitstatus == pytest.ExitCode.OK or session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif s.min_pass_rate is not None:
            self.gate_message = f"pass rate gate OK: {_pct(self.summary['pass_rate'])} >= {_pct(s.min_pass_rate)}"
        self._repeats(session)
        if s.save_baseline:
            from .baseline import save_baseline

            save_baseline(s.save_baseline, self.records)
        if s.report:
            write_report(
                s.report,
                records=self.records,
                outcomes=self.outcomes,
                summary=self.summary,
                baseline=self.baseline_result,
                baseline_verdicts=self.baseline_verdicts,
                llm_usage=self.llm_usage,
                settings_header=s.header(),
                repeats=self.repeats,
            )
        if s.html or s.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"):
            self._visual_reports()
        self._junit_properties()

    def _repeats(self, session: pytest.Session) -> None:
        """pass@k / pass^k of repeated runs, the pass^k gate and the per-scenario baseline comparison."""
        from .reporting import compare_repeat_baseline, repeats_summary

        s = self.settings
        self.repeats = repeats_summary(self.records, s.k, s.min_pass_hat_k)
        if self.repeats is None:
            return
        k = self.repeats["k"]
        failed = False
        if self.baseline_repeats is not None and k is not None:
            self.repeats["baseline"] = {
                "path": s.baseline,
                **compare_repeat_baseline(self.baseline_repeats, self.records, k),
            }
            regressed = self.repeats["baseline"]["regressed"]
            if regressed:
                failed = True
                self.repeats_messages.append(
                    f"FAILED: pass^{k} regressed vs baseline for {len(regressed)} scenario(s): {', '.join(regressed)}"
                )
        if s.min_pass_hat_k is not None:
            value = self.repeats["overall"]["pass_hat_k"]
            shown = "n/a (no scenario has k runs)" if value is None else _pct(value)
            label = "pass^k" if k is None else f"pass^{k}"
            if self.repeats["gate_passed"]:
                self.repeats_messages.insert(0, f"pass^k gate OK: {label} {shown} >= {_pct(s.min_pass_hat_k)}")
            else:
                failed = True
                self.repeats_messages.insert(
                    0, f"FAILED: {label} {shown} is below --are-min-pass-hat-k {_pct(s.min_pass_hat_k)}"
                )
        if failed and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _visual_reports(self) -> None:
        """--are-html / --are-md-summary / $GITHUB_STEP_SUMMARY from the records the items sent."""
        from .reporting import visual_report

        assert self.summary is not None
        report = visual_report(
            self.records, self.outcomes, self.baseline_result, self.summary, self.repeats, self.settings.header()
        )
        if self.settings.html:
            from ..report.html import write_html

            write_html(report, self.settings.html)
            self.written.append(f"HTML report: {self.settings.html}")
        from ..report.markdown import write_markdown_summary

        for path in write_markdown_summary(report, self.settings.md_summary):
            self.written.append(f"Markdown summary: {path}")

    def _junit_properties(self) -> None:
        from _pytest.junitxml import xml_key

        xml = self.config.stash.get(xml_key, None)
        if xml is None or self.summary is None:
            return
        sm = self.summary
        props: list[tuple[str, Any]] = [
            ("are_runs", sm["runs"]),
            ("are_passed", sm["passed"]),
            ("are_failed", sm["failed"]),
            ("are_errors", sm["errors"]),
            ("are_pass_rate", "n/a" if sm["pass_rate"] is None else f"{sm['pass_rate']:.4f}"),
        ]
        for cat, count in sm["failure_categories"].items():
            props.append((f"are_failures_{cat}", count))
        if sm["min_pass_rate"] is not None:
            props.append(("are_min_pass_rate", sm["min_pass_rate"]))
            props.append(("are_gate_passed", sm["gate_passed"]))
        if self.baseline_result is not None:
            props.append(("are_regressions", len(self.baseline_result["regressions"])))
            props.append(("are_improvements", len(self.baseline_result["improvements"])))
        if self.repeats is not None:
            from .reporting import repeat_properties

            props += repeat_properties(self.repeats)
        for k, v in (self.llm_usage or {}).items():
            props.append((f"are_llm_{k}", v))
        for name, value in props:
            xml.add_global_property(name, value)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if self.summary is None:
            return
        from .reporting import summary_lines

        terminalreporter.write_sep("=", "are-judge summary")
        lines = summary_lines(
            self.summary, self.baseline_result, self.llm_usage, self.gate_message, self.repeats, self.repeats_messages
        )
        for line in lines:
            red = line.startswith("FAILED") or line.startswith("  regression") or line.startswith("  regressed")
            terminalreporter.write_line(line, red=red, bold=red)
        for line in self.written:
            terminalreporter.write_line(line)
