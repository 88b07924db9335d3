"""GraphPerEventJudge: offline (whole log) and online (turn by turn) judging."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..checkers import load_tool_registry
from ..errors import CheckerRaised, InputError, JudgeUnavailableError
from ..judgment.failures import (
    CheckerExceptionFailure,
    Failure,
    FailureKind,
    GenericFailure,
    InputErrorFailure,
    ToolCallCountsFailure,
)
from ..judgment.result import Judgment
from ..model import AUI_SEND_TO_USER, Event, Run, Scenario
from ..repeats import run_number_of
from ..soft.api import SoftJudge
from .config import GraphPerEventJudgeConfig, ToolCheckerParam
from .events import judged_events, split_turns
from .matching import MatchContext, MatchState, TurnMatcher
from .oracle import OraclePlan, OracleStep, build_plan
from .tool_judge import ToolJudge
from .trace import build_trace


class GraphPerEventJudge:
    """ARE's graph per-event judge.

    Build once, judge many runs: registries and checkers are prepared here, not per trace.
    ``soft_judge`` decides LLM-judged arguments when ``config.llm`` is true (it is built lazily
    from the config when not given, so constructing a judge never opens a network client).
    """

    def __init__(
        self,
        config: GraphPerEventJudgeConfig | None = None,
        *,
        soft_judge: SoftJudge | None = None,
        tool_registry: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.config = config or GraphPerEventJudgeConfig()
        registry = tool_registry if tool_registry is not None else load_tool_registry()
        self.tool_judge = ToolJudge(
            self.config, {k: {a: str(getattr(c, "value", c)) for a, c in v.items()} for k, v in registry.items()}
        )
        self.registry_keys = frozenset(self.tool_judge.registry)
        self._soft_judge = soft_judge

    @property
    def soft_mode(self) -> str:
        if self.config.scripted:
            return "off"  # ARE: any event_id_to_checker_params turns soft judging off
        if self.config.llm:
            return "llm"
        return "equal" if self.config.soft_fallback == "equal" else "off"

    def soft_judge(self) -> SoftJudge:
        if self._soft_judge is None:
            from ..soft import build_soft_judge  # lazy: litellm only when LLM judging is used

            self._soft_judge = build_soft_judge(self.config)
        return self._soft_judge

    # ------------------------------------------------------------------ API
    def plan(self, scenario: Scenario) -> OraclePlan:
        return build_plan(scenario, self.registry_keys)

    def session(
        self, scenario: Scenario, *, run_id: str = "run", source: str | None = None, timestamps: bool = True
    ) -> JudgeSession:
        return JudgeSession(self, scenario, run_id=run_id, source=source, timestamps=timestamps)

    def judge_run(self, run: Run) -> Judgment:
        """Offline: judge a whole run, turn by turn, stopping at the first failing turn."""
        try:
            sess = self.session(
                run.scenario,
                run_id=run.run_id,
                source=run.source,
                timestamps=run.metadata.get("timestamps") is not False,
            )
        except InputError as exc:
            return Judgment.for_input_error(
                exc, scenario_id=run.scenario.scenario_id, run_id=run.run_id, source=run.source
            )
        try:
            sess.add_events(run.events)
        except InputError as exc:
            return Judgment.for_input_error(
                exc, scenario_id=run.scenario.scenario_id, run_id=run.run_id, source=run.source
            )
        judgment = sess.finish()
        judgment.expected, judgment.run_number = run.expected, run_number_of(run)
        return judgment

    def __call__(self, run: Run | Scenario, agent_events: Iterable[Event] | None = None) -> Judgment:
        if isinstance(run, Scenario):
            run = Run(scenario=run, events=list(agent_events or []))
        return self.judge_run(run)


class JudgeSession:
    """Judging one run.  Offline: ``add_events`` then ``finish``.  Online: ``observe`` each
    event as it happens; a turn is judged when the agent's message closing it arrives, so a
    harness can stop a failing episode early (``stopped``)."""

    def __init__(
        self,
        judge: GraphPerEventJudge,
        scenario: Scenario,
        *,
        run_id: str,
        source: str | None,
        timestamps: bool = True,
    ) -> None:
        self.judge = judge
        self.config = judge.config
        self.tool_judge = judge.tool_judge
        self.scenario = scenario
        self.run_id = run_id
        self.source = source or scenario.source
        self.start_time = scenario.start_time
        self.plan = judge.plan(scenario)
        self.tolerance = [scenario.user.full_name] if scenario.user else []
        self.soft_mode = judge.soft_mode
        self.state = MatchState()
        self.raw_events: list[Event] = []
        self._ids: set[str] = set()
        self.turn_idx = -1
        self.failure: Failure | None = None
        self.notes: list[str] = []
        self._params: dict[str, list[ToolCheckerParam]] = {}
        self._turns_cache: tuple[int, list[list[Event]]] | None = None
        self._validate_params()
        self.match_context = MatchContext(
            config=self.config,
            tool_judge=self.tool_judge,
            steps=self.plan.steps,
            tasks=self.plan.tasks,
            start_time=self.start_time,
            source=self.source,
            user=scenario.user,
            tolerance=self.tolerance,
            soft_mode=self.soft_mode,
            params_for=self.params_for,
            check_context=self.check_context,
            soft_judge=judge.soft_judge,
            definition=scenario.event_by_id(),
            log=self.raw_events,
            timestamps=timestamps,
            prefetch=self.soft_mode == "llm"
            and bool(
                getattr(judge._soft_judge, "prefetch", False)
                if judge._soft_judge is not None
                else self.config.llm_options.get("speculate", False)
            ),
        )

    # -------------------------------------------------------------- plumbing
    def params_for(self, step: OracleStep) -> list[ToolCheckerParam]:
        params = self._params.get(step.event_id)
        if params is None:
            params = self._params[step.event_id] = self.tool_judge.params_for(
                step.event_id, step.tool_name, step.checks, source=self.scenario.source
            )
        return params

    def check_context(self, step: OracleStep, agent_event: Event) -> dict[str, Any]:
        """What context-aware checkers (code judges) receive besides the two values."""
        return {
            "tool_name": step.tool_name,
            "oracle_event_id": step.event_id,
            "oracle_args": step.args,
            "agent_event": agent_event,
            "task": self.plan.tasks[step.turn] if step.turn < len(self.plan.tasks) else "",
            "tasks": list(self.plan.tasks[: step.turn + 1]),
            "scenario": self.scenario,
            "agent_events": self.raw_events,
            "source": self.source,
        }

    def _validate_params(self) -> None:
        """Every per-event check must apply to an event the judge matches (ARE silently ignores
        the others: a misspelt id would check nothing, and a run could pass unchecked)."""
        definition = self.scenario.event_by_id()
        for eid in self.config.event_id_to_checker_params or {}:
            step = self.plan.steps.get(eid)
            if step is None:
                if eid in definition:
                    why = (
                        f"event {eid!r} is not judged (a read, or a user/environment event): its checks would never run"
                    )
                else:
                    near = difflib.get_close_matches(eid, list(definition), n=1)
                    why = f"the scenario has no event {eid!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
                raise InputError(why, file=self.source, event_id=eid, field="event_id_to_checker_params")
            self.params_for(step)
        for step in self.plan.steps.values():
            if step.checks:
                self.params_for(step)

    @property
    def stopped(self) -> bool:
        return self.failure is not None

    @property
    def nb_turns(self) -> int:
        return self.plan.nb_turns

    # ----------------------------------------------------------------- input
    def add_events(self, events: Iterable[Event]) -> None:
        """Add events to the log.  Event ids must be unique: ARE keys turns by event id (a
        duplicate id moves events between turns), so a duplicate is an input error, not a verdict."""
        for event in events:
            self._add(event)

    def _add(self, event: Event) -> None:
        if event.event_id in self._ids:
            raise InputError(
                f"two events of the agent's log have the id {event.event_id!r}: event ids must be unique",
                file=self.source,
                event_id=event.event_id,
                field="event_id",
            )
        self._ids.add(event.event_id)
        self.raw_events.append(event)

    def observe(self, event: Event) -> Judgment | None:
        """Online: record one event; judge a turn when an agent message to the user closes it.

        Returns the turn's judgment when one was made (``success`` False means stop the run).
        The last turn is judged by :meth:`finish`.
        """
        try:
            self._add(event)
        except InputError as exc:
            if self.failure is None:
                self.failure = InputErrorFailure.from_error(exc)
            return self._judgment(False)
        if self.failure is not None or not (event.is_aui_message and not event.failed and event.is_write):
            return None
        n_msgs = sum(1 for e in judged_events(self.raw_events) if e.is_aui_message)
        if n_msgs <= self.turn_idx + 1 or self.turn_idx + 1 >= self.plan.nb_turns - 1:
            return None
        return self.judge_next_turn()

    # ---------------------------------------------------------------- judging
    def judge_next_turn(self) -> Judgment:
        self._next_turn()
        return self._judgment(self.failure is None)

    def _next_turn(self) -> None:
        if self.failure is not None:
            return
        self.turn_idx += 1
        k = self.turn_idx
        try:
            turns = self._agent_turns()
            agent_turn = turns[k] if k < len(turns) else []
            self.failure = self._judge_turn(k, agent_turn)
        except CheckerRaised as exc:
            self.failure = CheckerExceptionFailure(
                exc.oracle_event_id, exc.agent_event_id, exc.checker, exc.arg, exc.error, turn=k
            )
        except InputError as exc:
            self.failure = InputErrorFailure.from_error(exc.with_file(self.source) if self.source else exc)
        except JudgeUnavailableError as exc:
            kind = {"inconclusive": FailureKind.INCONCLUSIVE, "code_judge_error": FailureKind.CODE_JUDGE_ERROR}.get(
                exc.kind, FailureKind.JUDGE_UNAVAILABLE
            )
            self.failure = GenericFailure(kind, str(exc), dict(getattr(exc, "data", None) or {}))

    def _agent_turns(self) -> list[list[Event]]:
        """The judged agent events split into turns; recomputed only when events were added
        (events are only ever appended), so an offline multi-turn run splits its log once."""
        n = len(self.raw_events)
        if self._turns_cache is None or self._turns_cache[0] != n:
            self._turns_cache = (n, split_turns(judged_events(self.raw_events)))
        return self._turns_cache[1]

    def finish(self) -> Judgment:
        """Judge every remaining turn (offline: all of them), stopping at the first failure."""
        while self.failure is None and self.turn_idx + 1 < self.plan.nb_turns:
            self._next_turn()
        return self._judgment(self.failure is None)

    def _judgment(self, success: bool) -> Judgment:
        return Judgment(
            success=success,
            failure=self.failure,
            agent_event_id_to_oracle_event_id=dict(self.state.id_map),
            scenario_id=self.scenario.scenario_id,
            run_id=self.run_id,
            source=self.source,
            nb_turns=self.plan.nb_turns,
            turns_judged=self.turn_idx + 1,
            matching=self.config.matching,
            notes=list(self.notes) + self._time_note(),
            trace=build_trace(self),
        )

    def _time_note(self) -> list[str]:
        skipped = sorted(self.match_context.time_not_checked)
        if not skipped:
            return []
        return [f"time not checked ({', '.join(skipped)}): the agent log has no timestamps"]

    def _judge_turn(self, k: int, agent_turn: list[Event]) -> Failure | None:
        base, end = self.state.add_events(agent_turn)
        steps = self.plan.turns[k]
        count_failure = self._count_check(k, agent_turn, steps)
        if count_failure is not None:
            return count_failure
        matcher = TurnMatcher(self.match_context, self.state, steps, base, end)
        start = self.state.snapshot()
        if self.config.matching == "exact":
            found, exhausted = matcher.exact(self.config.exact_search_budget)
            if found:
                return None
            self.state.restore(start)
            failure = TurnMatcher(self.match_context, self.state, steps, base, end).greedy()
            if failure is None:  # budget ran out before greedy's own assignment was reached
                return None
            note = (
                f"exact search gave up after {self.config.exact_search_budget} candidate checks"
                if exhausted
                else "no assignment of agent events satisfies every rule (exhaustive search)"
            )
            _add_note(failure, note)
            self.notes.append(note)
            return failure
        failure = matcher.greedy()
        if failure is not None and hasattr(failure, "note"):
            after_greedy = self.state.snapshot()
            self.state.restore(start)
            found, _ = TurnMatcher(self.match_context, self.state, steps, base, end).exact(
                self.config.exact_search_budget
            )
            if found:
                pairs = {self.state.agent_events[i].event_id: o for i, o in self.state.idx_to_oracle.items() if i >= 0}
                turn_pairs = {a: o for a, o in pairs.items() if o in {s.event_id for s in steps}}
                note = (
                    "an assignment satisfying every rule exists, but ARE's greedy first-fit matching did not find it "
                    f"(matching='exact' would pass this turn: {turn_pairs})"
                )
                _add_note(failure, note)
                self.notes.append(note)
            self.state.restore(after_greedy)
        return failure

    def _count_check(self, k: int, agent_turn: list[Event], steps: list[OracleStep]) -> ToolCallCountsFailure | None:
        agent_counter = _counts(e.tool_name for e in agent_turn)
        oracle_counter = _counts(s.tool_name for s in steps)
        a_aui = agent_counter.pop(AUI_SEND_TO_USER, 0)
        o_aui = oracle_counter.pop(AUI_SEND_TO_USER, 0)
        extra = self.config.extra_send_message_to_user_allowed
        if agent_counter == oracle_counter and o_aui <= a_aui <= o_aui + extra:
            return None
        return ToolCallCountsFailure(Counter(agent_counter), a_aui, Counter(oracle_counter), o_aui, extra, turn=k)


def _counts(names: Iterable[str]) -> dict[str, int]:
    """Occurrences per name, first-seen order (a plain dict: cheaper than a Counter per turn)."""
    out: dict[str, int] = {}
    for n in names:
        out[n] = out.get(n, 0) + 1
    return out


def _add_note(failure: Failure, note: str) -> None:
    if hasattr(failure, "note"):
        failure.note = (failure.note + "\n" if failure.note else "") + note
