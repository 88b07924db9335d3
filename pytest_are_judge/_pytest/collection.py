"""Collecting scenario files (``--are-scenarios``) as test items: one item per judged run."""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from ..errors import CouldNotJudge, InputError, JudgmentError
from ..judgment.result import Judgment
from ..model import Run
from ..readers import RunIndex
from ..repeats import run_number_of


class ScenarioIndex(RunIndex):
    """The scenario roots of this session (a :class:`~pytest_are_judge.readers.RunIndex`), and
    the ``--are-hf`` dataset scenarios every collected run is paired with."""

    def __init__(
        self, roots: Iterable[Path], hf: dict[str, list[dict[str, Any]]] | None = None, hf_label: str | None = None
    ) -> None:
        super().__init__(list(roots))
        self.hf = hf
        self.hf_label = hf_label

    def pair(self, run: Run) -> tuple[Run, InputError | None]:
        """``run`` with its ``--are-hf`` scenario as oracle side, or ``(run, error)`` when the dataset
        has no scenario of its id (an ERROR item naming the run and the dataset, never a skip)."""
        if self.hf is None:
            return run, None
        from ..readers.hf import pair_runs_with_hf

        sid = run.scenario.scenario_id
        if sid not in self.hf:
            return run, InputError(
                f"run {run.run_id!r}: no scenario {sid!r} in the --are-hf dataset {self.hf_label}",
                file=run.source,
                field="scenario_id",
            )
        try:
            (paired,) = pair_runs_with_hf([run], self.hf)
        except InputError as exc:
            return run, exc
        return paired, None


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
        names: set[str] = set()
        for run in runs:
            name = item_name(run)
            if name in names:
                raise InputError(
                    f"two runs are named {run.run_id!r} for scenario {run.scenario.scenario_id!r}",
                    file=str(path),
                    field="runs.id",
                )
            names.add(name)
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
            return str(excinfo.value)
        return super().repr_failure(excinfo)


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


def _jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


def run_record(
    item: pytest.Item,
    run: Run | None,
    judgment: Judgment | None,
    *,
    error: InputError | None = None,
    seconds: float = 0.0,
) -> dict[str, Any]:
    """What the controller needs to know about one judged run (JSON-able, travels with reports)."""
    rec: dict[str, Any] = {
        "nodeid": item.nodeid,
        "scenario_id": run.scenario.scenario_id if run else None,
        "run_id": run.run_id if run else None,
        "path": _rel(item.config, run.source if run else str(item.path)),
        "expected": "fail" if run is not None and expects_failure(run) else "pass",
        "run_number": run_number_of(run) if run is not None else None,
        "judge_seconds": round(seconds, 6),
    }
    if judgment is not None:
        d = judgment.to_dict()
        rec.update(
            verdict="error" if judgment.is_error else ("pass" if judgment.success else "fail"),
            failure_kind=d["failure_kind"],
            categories=list(d["categories"]),
            failure=d["failure"],
            failure_detail=d["failure_detail"],
            matches=d["matches"],
            nb_turns=d["nb_turns"],
            turns_judged=d["turns_judged"],
            matching=d["matching"],
            notes=d["notes"],
        )
        if d.get("extras"):
            rec["extras"] = d["extras"]
        if d["failure_detail"] is None and not d.get("extras"):
            return rec  # a pass: only strings, numbers and str->str maps, JSON as it is
    else:
        rec.update(
            verdict="error",
            failure_kind="input_error",
            categories=["input_error"],
            failure=str(error) if error else "could not judge",
            failure_detail=None,
            matches={},
        )
    return _jsonable(rec)


def item_view(item: pytest.Item, run: Run, judgment: Judgment, cfg: Any) -> dict[str, Any]:
    """The report view (:func:`~pytest_are_judge.report.view.run_view`) of a judged run, built on
    the process that judged it (the Run and Judgment objects stay there) and sent to the
    controller with the test report.  A view that cannot be drawn falls back to the error view."""
    from ..report.view import run_view

    try:
        # the config the judge really used (session, scenario, markers, hooks): keep the
        # scenario's own judge_config from being applied over it a second time
        bare = run.model_copy(update={"scenario": run.scenario.model_copy(update={"judge_config": None})})
        view = _jsonable(run_view(bare, judgment, cfg))
    except Exception as exc:
        view = error_view(item, judgment.render(), run=run, judgment=judgment)
        view["plan_error"] = f"{type(exc).__name__}: {exc}"
        return view
    view.update(nodeid=item.nodeid, source=_rel(item.config, run.source) or view.get("source"))
    if view.get("run_number") is None:
        view["run_number"] = run_number_of(run)  # also run_<n> in the run id, file or folder name
    return view


def error_view(
    item: pytest.Item, text: str, *, run: Run | None = None, judgment: Judgment | None = None
) -> dict[str, Any]:
    """A report view for a run that was not judged (load error, no dataset scenario...): no graph,
    but listed with its error text, as the offline CLI does."""
    from ..report.view import unjudged_view

    return _jsonable(
        unjudged_view(
            failure_text=text,
            nodeid=item.nodeid,
            scenario_id=run.scenario.scenario_id if run is not None else None,
            run_id=run.run_id if run is not None else item.name,
            name=run.name if run is not None else item.name,
            source=_rel(item.config, run.source if run is not None else str(item.path)),
            failure_kind=judgment.failure_kind if judgment is not None else "input_error",
            judgment=judgment.to_dict() if judgment is not None else None,
            expected=run.expected if run is not None else None,
            run_number=run_number_of(run) if run is not None else None,
        )
    )


class ScenarioItem(pytest.Item):
    """One run judged against its scenario.  Judged in setup, so 'could not judge' is an ERROR."""

    def __init__(self, *, run: Run, pair_error: InputError | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.pair_error = pair_error
        self.judgment: Judgment | None = None
        self.are_record: dict[str, Any] | None = None
        self.are_view: dict[str, Any] | None = None

    def setup(self) -> None:
        from .judging import judge_with_config
        from .settings import needs_views, settings

        if self.pair_error is not None:  # --are-hf has no scenario for this run: never judged, never skipped
            self.are_record = run_record(self, self.run, None, error=self.pair_error)
            if needs_views(settings(self.config)):
                self.are_view = error_view(self, str(self.pair_error), run=self.run)
            raise self.pair_error
        t0 = time.perf_counter()
        try:
            self.judgment, cfg = judge_with_config(self.config, self.run, item=self)
        finally:
            seconds = time.perf_counter() - t0
        self.are_record = run_record(self, self.run, self.judgment, seconds=seconds)
        if needs_views(settings(self.config)):
            self.are_view = item_view(self, self.run, self.judgment, cfg)
        if self.judgment.is_error:
            raise CouldNotJudge(self.judgment)

    def runtest(self) -> None:
        assert self.judgment is not None
        if not self.judgment.success:
            raise JudgmentError(self.judgment)

    def teardown(self) -> None:
        # Reports carry everything the session needs (record, view); dropping the judged run
        # and its judgment keeps a session of thousands of runs from holding every model.
        self._source = self.run.source
        self.judgment = None
        self.run = None  # type: ignore[assignment]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        exc = excinfo.value
        if isinstance(exc, (JudgmentError, CouldNotJudge)):
            return exc.judgment.render()
        if isinstance(exc, InputError):
            return str(exc)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        source = self.run.source if self.run is not None else getattr(self, "_source", None)
        return self.path, None, f"{self.name} ({source or self.path})"


class LoadErrorItem(pytest.Item):
    """A file that cannot be read as a scenario: an ERROR whose report is the input error."""

    def __init__(self, *, error: InputError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error
        self.are_record: dict[str, Any] | None = None
        self.are_view: dict[str, Any] | None = None

    def setup(self) -> None:
        from .settings import needs_views, settings

        self.are_record = run_record(self, None, None, error=self.error)
        if needs_views(settings(self.config)):
            self.are_view = error_view(self, f"cannot load scenario: {self.error}")
        raise self.error

    def runtest(self) -> None:  # pragma: no cover - setup always raises
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, InputError):
            return f"cannot load scenario: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.path.name} (load error)"
