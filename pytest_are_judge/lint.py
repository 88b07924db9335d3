"""``are-judge lint``: check scenario files before any agent is judged against them.

Every check here is also made when a run is judged (a bad scenario is an input error, never a
verdict on the agent); lint makes them for every file at once, without agent runs, and stops
at nothing: each file gets its first problem reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError
from .judge.config import GraphPerEventJudgeConfig
from .model import Run
from .pipeline import Pipeline

__all__ = ["LintResult", "lint_paths"]


@dataclass
class LintResult:
    files: int = 0
    """Scenario/trace files read."""
    problems: list[InputError] = field(default_factory=list)


def lint_paths(
    paths: Sequence[str | Path],
    config: GraphPerEventJudgeConfig | None = None,
    *,
    oracle_path: str | Path | None = None,
    allow_outside: bool = False,
    log_format: str | None = None,
) -> LintResult:
    """Read every scenario file under ``paths`` and check it as the judge would: the file and
    its events, the oracle graph (``after`` ids, cycles, placeholders, tools and arguments of
    known ARE apps), the scenario's judge config (checkers, per-event checks, evaluators) and
    known-bad labels in file names."""
    from .judge.evaluators import evaluator_specs
    from .readers._load import RunIndex, discover

    result = LintResult()
    files, errors = discover(list(paths))
    result.problems.extend(errors)
    index = RunIndex(
        [Path(p) if Path(p).is_dir() else Path(p).parent for p in paths],
        oracle=oracle_path,
        allow_outside=allow_outside,
        log_format=log_format,
    )
    pipeline = Pipeline(config)
    seen: set[str] = set()
    for f in files:
        result.files += 1
        try:
            runs = index.runs(f)
            loaded = index.load(f)
        except InputError as exc:
            result.problems.append(exc.with_file(str(f)))
            continue
        if loaded.scenario is None:  # pragma: no cover - every reader sets it
            continue
        # the scenario as each run is judged against it (an ARE run may take a sibling oracle run)
        targets = runs or [Run(scenario=loaded.scenario, events=[], source=str(f))]
        for run in targets:
            try:
                cfg = pipeline.config_for(run)
                pipeline.judge_for(cfg).session(run.scenario, run_id=run.run_id, source=run.source)
                if cfg.evaluators:
                    evaluator_specs(cfg, source=run.scenario.source)
            except InputError as exc:
                exc.with_file(run.scenario.source or str(f))
                if str(exc) not in seen:
                    seen.add(str(exc))
                    result.problems.append(exc)
                break  # the runs of one file share its scenario: one report per file
    return result
