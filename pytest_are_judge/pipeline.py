"""The one judging pipeline, shared by the library, the CLI and the pytest plugin.

    run -> config (session config -> the scenario file's ``judge_config`` -> per-test overrides
           -> an ``adjust`` callback) -> judge (built once per config) -> evaluators -> Judgment

Bad input never escapes as an exception: it becomes an input-error judgment.  Nothing here
imports pytest; the plugin passes its hooks in as plain callables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ._files import read_document
from .errors import InputError
from .judge.config import GraphPerEventJudgeConfig, config_from_mapping
from .judge.engine import GraphPerEventJudge
from .judgment.result import Judgment
from .model import Event, Run, Scenario
from .repeats import run_number_of

Adjust = Callable[[Scenario, GraphPerEventJudgeConfig], GraphPerEventJudgeConfig]
"""Called last with the scenario and its config; returns the config to use (plugin hook)."""
Observe = Callable[[Run, Judgment], None]
"""Called with every judgment (plugin hook)."""

__all__ = ["Pipeline", "coerce_run", "config_from_overrides", "configured", "effective_config", "load_config"]


def load_config(path: str | Path) -> GraphPerEventJudgeConfig:
    """A judge config from a JSON, YAML or TOML file (top level, or TOML's ``[tool.are_judge]``)."""
    data = read_document(path)
    if Path(path).suffix.lower() == ".toml" and isinstance(data, dict) and "tool" in data:
        data = data.get("tool", {}).get("are_judge", data)
    return config_from_mapping(data if data is not None else {}, source=str(path))


def configured(config_file: str | Path | None, overrides: dict[str, Any]) -> GraphPerEventJudgeConfig:
    """The config of a session: the config file (if any), then option overrides (``llm_options``
    merged key by key over the file's)."""
    base = load_config(config_file) if config_file else None
    if not overrides:
        return base or GraphPerEventJudgeConfig()
    if "llm_options" in overrides and base is not None:
        overrides = {**overrides, "llm_options": {**base.llm_options, **overrides["llm_options"]}}
    return config_from_mapping(overrides, source="command line options", base=base)


def config_from_overrides(
    config: GraphPerEventJudgeConfig | dict[str, Any] | None = None, **overrides: Any
) -> GraphPerEventJudgeConfig:
    """A config from a config object, a mapping, or keyword overrides (merged over it)."""
    if isinstance(config, GraphPerEventJudgeConfig):
        return config_from_mapping(overrides, source="keyword arguments", base=config) if overrides else config
    return config_from_mapping({**(config or {}), **overrides}, source="keyword arguments")


def effective_config(base: GraphPerEventJudgeConfig | None, scenario: Scenario) -> GraphPerEventJudgeConfig:
    """``base`` with the scenario file's own ``judge_config`` applied over it."""
    if not scenario.judge_config:
        return base or GraphPerEventJudgeConfig()
    return config_from_mapping(scenario.judge_config, source=scenario.source, base=base)


class Pipeline:
    """Judges runs with one base config; builds each distinct judge once."""

    def __init__(
        self,
        base: GraphPerEventJudgeConfig | None = None,
        *,
        adjust: Adjust | None = None,
        observe: Observe | None = None,
        judge: GraphPerEventJudge | None = None,
    ) -> None:
        self.base = base if base is not None else (judge.config if judge is not None else GraphPerEventJudgeConfig())
        self.adjust = adjust
        self.observe = observe
        self._judges: dict[str, GraphPerEventJudge] = {}
        self._base_judge = judge

    def config_for(self, run: Run, overrides: dict[str, Any] | None = None) -> GraphPerEventJudgeConfig:
        """Session config -> scenario file's judge_config -> ``overrides`` -> ``adjust``."""
        cfg = effective_config(self.base, run.scenario)
        if overrides:
            cfg = config_from_mapping(overrides, source="judge_config fixture/marker", base=cfg)
        return self.adjust(run.scenario, cfg) if self.adjust is not None else cfg

    def judge_for(self, cfg: GraphPerEventJudgeConfig) -> GraphPerEventJudge:
        """The judge of ``cfg``, built once (registries and checkers are prepared per judge)."""
        if cfg is self.base and self.adjust is None:
            # the base config object itself: no need to serialise it to find its judge
            if self._base_judge is None:
                self._base_judge = GraphPerEventJudge(cfg)
            return self._base_judge
        key = f"{type(cfg).__name__}:{cfg.model_dump_json()}"
        judge = self._judges.get(key)
        if judge is None:
            soft = self._base_judge._soft_judge if self._base_judge is not None else None
            judge = self._judges[key] = GraphPerEventJudge(cfg, soft_judge=soft if cfg.llm else None)
        return judge

    def judge(
        self, run: Run, overrides: dict[str, Any] | None = None
    ) -> tuple[Judgment, GraphPerEventJudgeConfig | None]:
        """The judgment of ``run`` and the config it used (None when no config could be built)."""
        cfg: GraphPerEventJudgeConfig | None = None
        try:
            cfg = self.config_for(run, overrides)
            judgment = self._judged(run, cfg)
        except InputError as exc:  # a bad config of this scenario: an error for its runs only
            exc.with_file(run.scenario.source or run.source or "")
            judgment = Judgment.for_input_error(
                exc, scenario_id=run.scenario.scenario_id, run_id=run.run_id, source=run.source
            )
        if judgment.expected is None:
            judgment.expected = run.expected
        if judgment.run_number is None:
            judgment.run_number = run_number_of(run)
        if self.observe is not None:
            self.observe(run, judgment)
        return judgment, cfg

    def _judged(self, run: Run, cfg: GraphPerEventJudgeConfig) -> Judgment:
        if not cfg.evaluators:
            return self.judge_for(cfg).judge_run(run)
        from .judge.evaluators import evaluator_specs, run_evaluators

        try:  # bad evaluator options are an error for every run, not only the ones that pass
            evaluator_specs(cfg, source=run.scenario.source)
        except InputError as exc:
            return Judgment.for_input_error(
                exc, scenario_id=run.scenario.scenario_id, run_id=run.run_id, source=run.source
            )
        return run_evaluators(run, self.judge_for(cfg).judge_run(run), cfg)

    def judge_run(self, run: Run, overrides: dict[str, Any] | None = None) -> Judgment:
        return self.judge(run, overrides)[0]


def coerce_run(
    agent: Run | Iterable[Event] | str | Path,
    oracle: Scenario | str | Path | None = None,
    *,
    run: str | None = None,
    resolve: Callable[[str | Path], Path] | None = None,
) -> Run:
    """The run meant by ``agent``: a :class:`Run`; a list of events (``oracle`` is then the
    :class:`Scenario`); or the path of a trace/scenario file (``oracle`` may then be the path of
    an oracle-run trace, ``run`` the run's id when the file holds several).  ``resolve`` turns a
    relative path into a file (default: as given)."""
    from .readers import load_run_file

    if isinstance(agent, Run):
        return agent
    if isinstance(agent, (str, Path)):
        find = resolve or Path
        oracle_path = find(oracle) if isinstance(oracle, (str, Path)) else None
        return load_run_file(find(agent), run=run, oracle=oracle_path)
    if not isinstance(oracle, Scenario):
        raise TypeError("a list of events is judged against a Scenario: pass oracle=<Scenario>")
    return Run(scenario=oracle, events=list(agent))
