"""The session part of the plugin: collection of ``--are-scenarios``, gates, summary, reports.

Registered only when an ``--are-*`` option or ini key is set.  Everything that is aggregated
(verdicts, LLM usage) is aggregated on the controller from test reports (and ``workeroutput``),
so ``pytest -n N`` gives the same summary, gates and baseline results as ``-n 0``.

What decides the exit status (docs/ci.md has the table):
- a failing scenario run fails the session, as any failing test does, except
  - a run declared known-bad that fails as declared (xfail),
  - a repeat of a scenario when ``--are-min-pass-hat-k`` is given (xfail: the gate decides),
  - a run that failed in the ``--are-baseline`` too (xfail: still failing, not a regression);
- ``--are-min-pass-rate`` / ``--are-min-pass-hat-k`` fail it when below, if any run was judged;
- ``--are-save-baseline`` records: the session exits 0 once the baseline is written (unless a
  test that is not a scenario run failed);
- ``--co`` evaluates no gate and writes no report.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .._rate import format_rate as _pct
from ..options import Settings
from .settings import hf_label, settings

if TYPE_CHECKING:
    from ..repeats import Counts, RepeatsReport


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


_FAILED = (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)


class AreJudgeSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.settings: Settings = settings(config)
        self.index: Any = None
        self.records: dict[str, dict[str, Any]] = {}
        self.outcomes: dict[str, str] = {}
        self.other_failures = 0
        """Failed tests of this session that are not scenario runs (test modules...)."""
        self.worker_usage: list[dict[str, Any]] = []
        self.baseline_verdicts: dict[str, str] | None = None
        self.baseline_repeats: dict[str, Counts] | None = None
        self.repeats: RepeatsReport | None = None
        self.messages: list[str] = []
        self.written: list[str] = []
        self.summary: Any = None
        self.baseline_result: dict[str, Any] | None = None
        self.llm_usage: dict[str, Any] | None = None
        self.walk_errors: list[tuple[Path, Any]] = []
        self.unreadable: set[str | None] = set()
        self.session: pytest.Session | None = None
        self.exit_override: pytest.ExitCode | None = None
        """Set by --are-save-baseline; applied in unconfigure, after every plugin's sessionfinish
        (some, like syrupy, OR their status into the one they were given)."""

    # ------------------------------------------------------------ configure / collect
    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        s = self.settings
        from .collection import XFAIL_STRICT_KEY
        from .settings import check_session_config

        config.stash[XFAIL_STRICT_KEY] = s.xfail_strict
        check_session_config(config)  # a bad --are-config or LLM setup: one usage error, now
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
        self.index = ScenarioIndex(
            s.scenarios,
            hf=hf_scenarios(config),
            hf_label=hf_label(s) if s.hf else None,
            allow_outside=bool(s.allow_outside_files),
            log_format=s.log_format,
        )
        config.args[:] = collection_args(config, s)
        # what pytest's own walk would skip silently (broken symlinks) or stop on (an unreadable
        # folder): each becomes an ERROR item of its own, and the session goes on
        from ..readers._load import walk

        self.walk_errors = [(root, e) for root in s.scenarios if root.is_dir() for e in walk(root)[1]]
        self.unreadable = {e.file for _, e in self.walk_errors if e.message.startswith("cannot read folder")}

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        return True if str(collection_path) in self.unreadable else None

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.exit_override is not None and self.session is not None:
            self.session.exitstatus = self.exit_override

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session
        # LLM usage is counted per process; a session reports only its own calls (several
        # sessions can share a process: pytester's in-process runs, pytest.main() in a loop)
        from .reporting import reset_local_usage

        reset_local_usage()

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return [self.settings.header()]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> Any:
        path = file_path if file_path.is_absolute() else Path(os.path.abspath(file_path))
        if self.index is None or not self.index.wants(path):
            return None
        from .collection import ScenarioFile

        node = ScenarioFile.from_parent(parent, path=file_path)
        node.index = self.index
        return node

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        from .collection import LoadErrorItem, ScenarioItem, _rel_to, mark_gated_repeats

        s = self.settings
        for root, error in self.walk_errors:
            rel = _rel_to(str(config.rootpath), error.file or "")
            # the item lives at its scenario root: pytest looks up conftests along an item's path,
            # and the problem path itself may not even be stat-able
            items.append(
                LoadErrorItem.from_parent(
                    session, name="load_error", path=root, nodeid=f"{rel}::load_error", error=error
                )
            )
        ours = [i for i in items if isinstance(i, (ScenarioItem, LoadErrorItem))]
        if s.limit is not None and len(ours) > s.limit:
            drop = {id(i) for i in ours[s.limit :]}
            config.hook.pytest_deselected(items=[i for i in items if id(i) in drop])
            items[:] = [i for i in items if id(i) not in drop]
        scenario_items = [i for i in items if isinstance(i, ScenarioItem)]
        if s.min_pass_hat_k is not None:
            gate = f"{s.name('min_pass_hat_k')} {_pct(s.min_pass_hat_k)}"
            mark_gated_repeats(scenario_items, f"a repeat of its scenario: the pass^k gate ({gate}) decides")
        if self.baseline_verdicts:
            from ..errors import JudgmentError

            for item in scenario_items:
                if (
                    self.baseline_verdicts.get(item.nodeid) in ("fail", "error")
                    and item.get_closest_marker("xfail") is None
                ):
                    item.add_marker(
                        pytest.mark.xfail(reason="failed in the baseline too", strict=False, raises=JudgmentError)
                    )
                    item.baseline_xfail = True

    # ------------------------------------------------------------ per-item reports
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
        report = yield
        if call.when == "call" and report.passed and getattr(item, "baseline_xfail", False):
            report.wasxfail = "improved over baseline (it failed there)"
        rec = getattr(item, "are_record", None)
        if rec is not None and (call.when == "call" or report.failed or report.skipped):
            report.are_judge = rec  # serialised with the report to the xdist controller
        elif call.when == "setup" and report.failed and rec is None and hasattr(item, "are_record"):
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
            if report.failed:
                self.other_failures += 1
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
        from .reporting import local_usage, merge_usage, summarize

        if _is_worker(self.config):
            usage = local_usage()
            if usage:
                self.config.workeroutput["are_judge_llm_usage"] = usage  # type: ignore[attr-defined]
            return
        if self.config.getoption("collectonly", False):
            return  # --co: nothing was judged; no gate, no report
        s = self.settings
        self.llm_usage = merge_usage([*self.worker_usage, local_usage() or {}])
        if not self.records and not s.scenarios and not self._gates_or_reports():
            return  # only fixture-level options were used: nothing to summarise
        self.summary = summarize(self.records, self.outcomes, s.min_pass_rate)
        if self.baseline_verdicts is not None:
            from .baseline import compare

            self.baseline_result = {"path": s.baseline, **compare(self.baseline_verdicts, self.records)}
        failed = self._pass_rate_gate()
        failed = self._repeats() or failed
        if failed and session.exitstatus in _FAILED:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if s.save_baseline:
            self._save_baseline(session)
        if s.report:
            self._json_report()
        if s.html or s.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"):
            self._visual_reports()
        self._junit_properties()

    def _gates_or_reports(self) -> bool:
        s = self.settings
        return any(
            v is not None for v in (s.min_pass_rate, s.min_pass_hat_k, s.report, s.save_baseline, s.html, s.md_summary)
        )

    def _pass_rate_gate(self) -> bool:
        """The --are-min-pass-rate gate; True when it fails the session."""
        s, sm = self.settings, self.summary
        if s.min_pass_rate is None:
            return False
        name = s.name("min_pass_rate")
        if not sm["gate_applied"]:
            self.messages.append(f"gate not applied: no runs judged ({name})")
            return False
        rate = sm["pass_rate"]
        shown = "n/a (no run expected to pass)" if rate is None else _pct(rate)
        if sm["gate_passed"]:
            self.messages.append(f"pass rate gate OK: {shown} >= {name} {_pct(s.min_pass_rate)}")
            return False
        self.messages.append(f"FAILED: pass rate {shown} is below {name} {_pct(s.min_pass_rate)}")
        return True

    def _repeats(self) -> bool:
        """pass@k / pass^k of repeated runs, the pass^k gate and the per-scenario baseline
        comparison; True when they fail the session."""
        from .reporting import compare_repeat_baseline, repeats_summary

        s = self.settings
        if s.min_pass_hat_k is not None and not self.records:
            self.messages.append(f"gate not applied: no runs judged ({s.name('min_pass_hat_k')})")
            return False
        self.repeats = repeats_summary(self.records, s.k, s.min_pass_hat_k)
        if self.repeats is None:
            return False
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
                self.messages.append(
                    f"FAILED: pass^{k} regressed vs baseline for {len(regressed)} scenario(s): {', '.join(regressed)}"
                )
        if s.min_pass_hat_k is not None:
            name = s.name("min_pass_hat_k")
            value = self.repeats["overall"]["pass_hat_k"]
            shown = "n/a (no scenario has k repeats)" if value is None else _pct(value)
            label = "pass^k" if k is None else f"pass^{k}"
            if self.repeats["gate_passed"]:
                self.messages.append(f"pass^k gate OK: {label} {shown} >= {name} {_pct(s.min_pass_hat_k)}")
            else:
                failed = True
                self.messages.append(f"FAILED: {label} {shown} is below {name} {_pct(s.min_pass_hat_k)}")
        return failed

    def _save_baseline(self, session: pytest.Session) -> None:
        """--are-save-baseline records (like a snapshot update): it does not gate."""
        from .baseline import save_baseline

        s = self.settings
        save_baseline(s.save_baseline, self.records)
        verdicts = [r["verdict"] for r in self.records.values()]
        self.messages.append(
            f"baseline written: {s.save_baseline} ({len(verdicts)} run(s): {verdicts.count('pass')} pass, "
            f"{verdicts.count('fail')} fail, {verdicts.count('error')} error)"
        )
        if session.exitstatus == pytest.ExitCode.TESTS_FAILED and self.other_failures == 0:
            self.exit_override = pytest.ExitCode.OK

    def _json_report(self) -> None:
        from .reporting import write_report

        s = self.settings
        write_report(
            s.report,
            records=self.records,
            outcomes=self.outcomes,
            summary=self.summary,
            baseline=self.baseline_result,
            llm_usage=self.llm_usage,
            settings_header=s.header(),
            repeats=self.repeats,
        )
        self.written.append(f"JSON report: {s.report}")

    def _visual_reports(self) -> None:
        """--are-html / --are-md-summary / $GITHUB_STEP_SUMMARY from the records the items sent."""
        from .reporting import visual_report

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
        from .reporting import junit_properties

        for name, value in junit_properties(self.summary, self.baseline_result, self.repeats, self.llm_usage):
            xml.add_global_property(name, value)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if self.summary is None:
            return
        from .reporting import summary_lines

        terminalreporter.write_sep("=", "are-judge summary")
        for line in summary_lines(self.summary, self.baseline_result, self.llm_usage, self.messages, self.repeats):
            red = line.startswith("FAILED") or line.startswith("  regressed")
            terminalreporter.write_line(line, red=red, bold=red)
        for line in self.written:
            terminalreporter.write_line(line)


def collection_args(config: pytest.Config, s: Settings) -> list[str]:
    """What pytest collects: the scenario roots join the given paths.  Without explicit test
    paths (testpaths or the current directory) ``--are-scenarios`` replaces them; a path given
    inside a scenario root (a file, or a copied node id ``dir/x.yaml::sid[run]``) narrows that
    root to what was named."""
    args = list(config.args)
    from_args = config.args_source == pytest.Config.ArgsSource.ARGS
    if "scenarios" in s.from_cli and not from_args:
        args = []
    given = [Path(os.path.abspath(Path(config.invocation_params.dir, a.split("::")[0]))) for a in args]
    for root in s.scenarios:
        r = Path(os.path.abspath(root))
        if any(r == g or g in r.parents or r in g.parents for g in given):
            continue  # the root, a folder holding it, or something inside it was named
        args.append(str(r))
        given.append(r)
    return args
