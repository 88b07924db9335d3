"""The ``are_recorder`` fixture's glue: a :class:`~pytest_are_judge.recorder.Recorder` bound to
the test's scenario, judged when the test body has passed; with ``--are-*`` reporting on, the
live run counts in the session summary, the reports and the gates like a collected run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def make_recorder(
    request: pytest.FixtureRequest,
    binding: dict[str, Any] | None,
    overrides: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> Any:
    from ..errors import InputError
    from ..recorder import Recorder

    if binding is None:
        raise pytest.UsageError(
            f"{request.node.nodeid}: are_recorder needs @pytest.mark.are_scenario('path/to/scenario.yaml')"
        )
    base = Path(str(request.node.path)).parent
    path = base / binding["path"]
    try:
        rec = Recorder(path, run_id=request.node.name)
    except InputError as exc:
        pytest.fail(str(exc), pytrace=False)
    record = binding.get("record")
    if record:
        target = base / record
    else:
        target = tmp_path_factory.mktemp("are-recordings", numbered=True) / f"{request.node.name}.json"
    request.node.are_recording = (rec, overrides, target)  # judged by judge_recorded after the test body
    return rec


def judge_recorded(item: pytest.Item, report: pytest.TestReport) -> None:
    """After a passing test body: judge the recorded run, save it, fail the test if it fails."""
    recording = getattr(item, "are_recording", None)
    if recording is None:
        return
    rec, overrides, target = recording
    from .collection import record_for
    from .judging import judge_with_config

    judgment, _cfg = judge_with_config(item.config, rec.run(), item=item, overrides=overrides)
    saved = rec.save(target)
    item.are_record = record_for(item, judgment)  # type: ignore[attr-defined]  # summary, reports and gates count it
    item.user_properties.append(("are_recording", str(saved)))
    if judgment.is_error or not judgment.success:
        report.outcome = "failed"
        report.longrepr = f"{judgment.render()}\n\nrecorded run: {saved}"
