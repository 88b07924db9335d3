"""Collecting scenario files (``--are-scenarios``) as test items: one item per judged run."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from .._text import visible
from ..errors import CouldNotJudge, InputError, JudgmentError
from ..judgment.result import Judgment
from ..model import Run
from ..readers import RunIndex
from ..report.record import RunRecord


class ScenarioIndex(RunIndex):
    """The scenario roots of this session (a :class:`~pytest_are_judge.readers.RunIndex`), and
    the ``--are-hf`` dataset scenarios every collected run is paired with."""

    def __init__(
        self,
        roots: Iterable[Path],
        hf: dict[str, list[dict[str, Any]]] | None = None,
        hf_label: str | None = None,
        *,
        allow_outside: bool = False,
        log_format: str | None = None,
    ) -> None:
        super().__init__(list(roots), allow_outside=allow_outside, log_format=log_format)
        self.hf = hf
        self.hf_label = hf_label

    def pair(self, run: Run) -> tuple[Run, InputError | None]:
        """``run`` with its ``--are-hf`` scenario as oracle side, or ``(run, error)`` when the dataset
        has no scenario of its id (an ERROR item naming the run and the dataset, never a skip)."""
        if self.hf is None:
            return run, None
        from ..readers.hf import pair_run_with_hf

        return pair_run_with_hf(run, self.hf, f"--are-hf dataset {self.hf_label}")


def item_name(run: Run) -> str:
    return f"{run.scenario.scenario_id}[{run.run_id}]"


def expects_failure(run: Run) -> bool:
    """Declared known-bad: ``expect: fail`` in a native run, ``.xfail.`` in an ARE trace's name."""
    return run.expected == "fail"


def scenario_items(parent: pytest.Collector, path: Path, index: ScenarioIndex, file_nodeid: str) -> list[pytest.Item]:
    """The items of one scenario file: one per run to judge, or one load-error item.

    ``parent`` is the file's own node (:class:`ScenarioFile`); node ids are
    ``<file>::<scenario>[<run>]``."""
    try:
        runs = index.runs(path)
        if not runs and not index.is_oracle_trace(path):
            raise InputError(
                "the scenario has no runs to judge: add 'runs:' (events or a 'file:' agent log) to it, "
                "or put agent traces next to it",
                file=str(path),
                field="runs",
            )
    except InputError as exc:
        return [
            LoadErrorItem.from_parent(
                parent, name="load_error", path=path, nodeid=f"{file_nodeid}::load_error", error=exc
            )
        ]
    items: list[pytest.Item] = []
    strict = parent.config.stash.get(XFAIL_STRICT_KEY, True)
    for run in runs:
        name = item_name(run)
        run, pair_error = index.pair(run)
        # an explicit nodeid string: "scenario[run]" then parses like a parametrised id
        # (pytest >= 9 keeps structured ids; --lf compares them)
        item = ScenarioItem.from_parent(
            parent, name=name, path=path, nodeid=f"{file_nodeid}::{name}", run=run, pair_error=pair_error
        )
        if expects_failure(run):
            item.add_marker(
                pytest.mark.xfail(
                    reason="expected to fail (declared known-bad run)", strict=strict, raises=JudgmentError
                )
            )
        items.append(item)
    index.release(path)
    return items


class ScenarioFile(pytest.File):
    """A scenario or trace file: one item per run to judge."""

    index: ScenarioIndex

    def collect(self) -> Iterable[pytest.Item]:
        return scenario_items(self, self.path, self.index, self.nodeid)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, InputError):
            return visible(str(excinfo.value), multiline=True)
        return super().repr_failure(excinfo)


class UncollectedScenarioFile(pytest.File):
    """A .yaml/.json file named on the command line while no ``--are-scenarios`` is given."""

    def collect(self) -> Iterable[pytest.Item]:
        rel = _rel(self.config, str(self.path))
        error = InputError(
            f"pytest does not judge scenario files by itself: run `pytest --are-scenarios={rel}` "
            "(or a folder of scenarios), or list it under are_scenarios in your ini file",
            file=rel,
        )
        return [LoadErrorItem.from_parent(self, name="not_collected", path=self.path, error=error)]


XFAIL_STRICT_KEY = pytest.StashKey[bool]()


def _rel(config: pytest.Config, path: str | None) -> str | None:
    if not path:
        return path
    return _rel_to(str(config.rootpath), str(path))


@functools.lru_cache(maxsize=4096)
def _rel_to(root: str, path: str) -> str:
    """``path`` relative to ``root`` (posix), else as given; cached: every run of a file asks.
    Lexically first (no file-system calls), resolving symlinks only when that fails."""
    absolute = os.path.abspath(path)
    if absolute == root:
        return "."
    prefix = root.rstrip(os.sep) + os.sep
    if absolute.startswith(prefix):
        return absolute[len(prefix) :].replace(os.sep, "/")
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return path


def record_for(item: pytest.Item, judgment: Judgment, *, seconds: float = 0.0) -> RunRecord:
    """The record of ``item``'s judgment (plain JSON: it travels to the xdist controller)."""
    from ..report.record import run_record

    return run_record(
        judgment, nodeid=item.nodeid, path=_rel(item.config, judgment.source or str(item.path)), judge_seconds=seconds
    )


def mark_gated_repeats(items: list[ScenarioItem], reason: str) -> None:
    """Items that are repeats of a scenario with two repeats or more (``run_<n>``, not declared
    known-bad): their failures are decided by the pass^k gate, not one by one."""
    from ..repeats import is_repeat, run_number_of

    groups: dict[str, list[ScenarioItem]] = {}
    for item in items:
        run = item.run
        rec = {"scenario_id": run.scenario.scenario_id, "run_number": run_number_of(run), "expected": run.expected}
        if is_repeat(rec) and item.pair_error is None:
            groups.setdefault(run.scenario.scenario_id, []).append(item)
    for group in groups.values():
        if len(group) >= 2:
            for item in group:
                item.gate_reason = reason


class ScenarioItem(pytest.Item):
    """One run judged against its scenario.  Judged in setup, so 'could not judge' is an ERROR."""

    are_scenario_item = True

    def __init__(self, *, run: Run, pair_error: InputError | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.pair_error = pair_error
        self.judgment: Judgment | None = None
        self.are_record: RunRecord | None = None
        self.gate_reason: str | None = None
        """Set for a repeat judged by the pass^k gate: a failure is reported as xfail."""
        self.baseline_xfail = False

    def setup(self) -> None:
        from .judging import judge_with_config

        if self.pair_error is not None:  # --are-hf has no scenario for this run: never judged, never skipped
            run = self.run
            failed = Judgment.for_input_error(
                self.pair_error, scenario_id=run.scenario.scenario_id, run_id=run.run_id, source=run.source
            )
            failed.expected = run.expected
            self.are_record = record_for(self, failed)
            raise self.pair_error
        t0 = time.perf_counter()
        try:
            self.judgment, _ = judge_with_config(self.config, self.run, item=self)
        finally:
            seconds = time.perf_counter() - t0
        self.are_record = record_for(self, self.judgment, seconds=seconds)
        if self.judgment.is_error:
            raise CouldNotJudge(self.judgment)

    def runtest(self) -> None:
        assert self.judgment is not None
        if not self.judgment.success:
            if self.gate_reason:
                pytest.xfail(f"{self.gate_reason}\n{self.judgment.render()}")
            raise JudgmentError(self.judgment)

    def teardown(self) -> None:
        # Reports carry everything the session needs (the record); dropping the judged run
        # and its judgment keeps a session of thousands of runs from holding every model.
        self._source = self.run.source
        self.judgment = None
        self.run = None  # type: ignore[assignment]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        exc = excinfo.value
        if isinstance(exc, (JudgmentError, CouldNotJudge)):
            return exc.judgment.render()
        if isinstance(exc, InputError):
            return visible(str(exc), multiline=True)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        source = self.run.source if self.run is not None else getattr(self, "_source", None)
        return self.path, None, f"{self.name} ({source or self.path})"


class LoadErrorItem(pytest.Item):
    """A file that cannot be read as a scenario: an ERROR whose report is the input error."""

    are_scenario_item = True

    def __init__(self, *, error: InputError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error
        self.are_record: RunRecord | None = None

    def setup(self) -> None:
        failed = Judgment.for_input_error(self.error, run_id=self.name, source=str(self.path))
        self.are_record = record_for(self, failed)
        raise self.error

    def runtest(self) -> None:  # pragma: no cover - setup always raises
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, InputError):
            prefix = "" if self.name == "not_collected" else "cannot load scenario: "
            return visible(f"{prefix}{excinfo.value}", multiline=True)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.path.name} (load error)"
