"""Matching oracle events to agent events within one turn: ARE's greedy first-fit, and an
exact backtracking search that never misses an assignment greedy could have found."""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..checkers import normalize_arg
from ..errors import CheckerRaised, InputError, JudgeUnavailableError
from ..judgment.failures import (
    ArgCheck,
    EnvOracleMatchingFailure,
    EventComparisonFailure,
    Failure,
    InputErrorFailure,
    OracleEventMatchingFailure,
    RejectDetail,
    TimeCheck,
)
from ..judgment.failures import (
    EventComparisonFailureType as FT,
)
from ..model import Event, EventType, OracleEvent, UserDetails
from ..soft.api import SoftJudge, SoftRequest
from .config import GraphPerEventJudgeConfig, ToolCheckerParam
from .oracle import PLACEHOLDER, OracleStep
from .timing import check_time
from .tool_judge import ToolJudge

_PLACEHOLDER = PLACEHOLDER


@dataclass(eq=False)
class MatchState:
    """Matches so far (cumulative over turns) and the global agent-event list."""

    agent_events: list[Event] = field(default_factory=list)
    by_tool: dict[str, list[int]] = field(default_factory=dict)
    idx_to_oracle: dict[int, str] = field(default_factory=dict)
    oracle_to_idx: dict[str, int] = field(default_factory=dict)
    id_map: dict[str, str] = field(default_factory=dict)
    time_checks: dict[str, TimeCheck | None] = field(default_factory=dict)
    """Per matched oracle event: the time check its accepted pair passed (None: no check ran)."""
    free_from: dict[str, int] = field(default_factory=dict)
    """Per tool: position in ``by_tool[tool]`` before which every event is matched (amortises scans)."""

    def iter_free(self, tool: str, lo: int, hi: int) -> Iterator[int]:
        """Unmatched agent indices of ``tool`` in ``[lo, hi)``, ascending."""
        idxs = self.by_tool.get(tool)
        if not idxs:
            return
        p = self.free_from.get(tool, 0)
        while p < len(idxs) and idxs[p] in self.idx_to_oracle:
            p += 1
        self.free_from[tool] = p
        for pos in range(max(p, bisect_left(idxs, lo)), len(idxs)):
            i = idxs[pos]
            if i >= hi:
                return
            if i not in self.idx_to_oracle:
                yield i

    def add_events(self, events: list[Event]) -> tuple[int, int]:
        base = len(self.agent_events)
        for i, e in enumerate(events, start=base):
            self.agent_events.append(e)
            self.by_tool.setdefault(e.tool_name, []).append(i)
        return base, len(self.agent_events)

    def assign(self, i: int, oracle_id: str, time_check: TimeCheck | None = None) -> None:
        self.time_checks[oracle_id] = time_check
        self.idx_to_oracle[i] = oracle_id
        self.oracle_to_idx[oracle_id] = i
        self.id_map[self.agent_events[i].event_id] = oracle_id

    def unassign(self, i: int, oracle_id: str) -> None:
        del self.idx_to_oracle[i]
        tool = self.agent_events[i].tool_name
        if tool in self.free_from:
            self.free_from[tool] = min(self.free_from[tool], bisect_left(self.by_tool[tool], i))
        if self.oracle_to_idx.get(oracle_id) == i:
            del self.oracle_to_idx[oracle_id]
        self.id_map.pop(self.agent_events[i].event_id, None)

    def snapshot(self) -> tuple[dict[int, str], dict[str, int], dict[str, str]]:
        return dict(self.idx_to_oracle), dict(self.oracle_to_idx), dict(self.id_map)

    def restore(self, snap: tuple[dict[int, str], dict[str, int], dict[str, str]]) -> None:
        self.idx_to_oracle, self.oracle_to_idx, self.id_map = (dict(s) for s in snap)  # type: ignore[assignment]
        self.free_from = {}


@dataclass(frozen=True, eq=False)
class MatchContext:
    """What matching needs from the run being judged (and nothing more)."""

    config: GraphPerEventJudgeConfig
    tool_judge: ToolJudge
    steps: dict[str, OracleStep]
    """Every oracle step of the plan, by id (parents' oracle times)."""
    tasks: list[str]
    start_time: float
    source: str | None
    """The scenario file (named in input errors)."""
    user: UserDetails | None
    tolerance: list[str]
    """Names the attendee checker tolerates (the user's own)."""
    soft_mode: str
    params_for: Callable[[OracleStep], list[ToolCheckerParam]]
    check_context: Callable[[OracleStep, Event], dict[str, Any]]
    soft_judge: Callable[[], SoftJudge]
    """The LLM judge, built on first use."""
    definition: dict[str, OracleEvent]
    """The scenario's events by id (placeholders to events the judge never matches)."""
    log: list[Event]
    """The agent's whole log, reads included."""
    prefetch: bool = False
    """Speculation: ask the soft judge ahead about the pairs greedy matching will likely try."""
    timestamps: bool = True
    """False for an agent log without times: time windows are reported as not checked."""
    time_not_checked: set[str] = field(default_factory=set)
    """Oracle events whose time window could not be checked (no timestamps)."""


@dataclass(eq=False)
class PairEval:
    accepted: bool
    detail: RejectDetail | None = None
    soft: SoftRequest | None = None
    """Set while an LLM verdict is still needed."""
    raised: CheckerRaised | JudgeUnavailableError | None = None
    """A checker raised, or the LLM could not decide, on this pair (searches beyond ARE's order
    keep it to raise in order)."""


class TurnMatcher:
    """Matches the oracle steps of one turn against the session's agent events."""

    def __init__(self, ctx: MatchContext, state: MatchState, steps: list[OracleStep], base: int, end: int) -> None:
        self.s = ctx
        self.state = state
        self.steps = steps
        self.base = base
        self.end = end
        self._cache: dict[tuple[Any, ...], PairEval] = {}

    # ----------------------------------------------------------------- helpers
    def candidates(self, step: OracleStep) -> Iterator[int]:
        """Unmatched agent events calling the oracle's tool, in chronological (index) order."""
        lo = self.base if self.s.config.candidate_scope == "current_turn" else 0
        return self.state.iter_free(step.tool_name, lo, self.end)

    def placeholder_refs(self, step: OracleStep) -> list[str]:
        refs = []
        for v in step.raw_args.values():
            if isinstance(v, str):
                m = _PLACEHOLDER.match(v)
                if m:
                    refs.append(m.group(1))
        return refs

    def resolve_args(self, step: OracleStep) -> dict[str, Any]:
        """Oracle args with ``{{id}}`` / ``{{id.key}}`` replaced by the matched agent event's
        return value (ARE resolves exact ``{{id}}`` only; unresolved refs keep the oracle value)."""
        args = dict(step.args)
        for k, raw in step.raw_args.items():
            if not isinstance(raw, str):
                continue
            m = _PLACEHOLDER.match(raw)
            if not m:
                continue
            ref = m.group(1)
            idx = self.state.oracle_to_idx.get(ref)
            if idx is None:
                if args.get(k, raw) == raw and ref not in self.s.steps:
                    # a derived oracle run holds the literal placeholder of an event the judge
                    # never matches (a read): ARE would read it from its simulation
                    args[k] = self.read_result(step, k, raw, ref, m.group(2))
                else:
                    args.setdefault(k, raw)
                continue
            value: Any = self.state.agent_events[idx].return_value
            path = [p for p in m.group(2).split(".") if p]
            if path:
                value = _walk(value, path)
                if value is _MISSING:
                    args.setdefault(k, raw)
                    continue
            args[k] = value
        return args

    def read_result(self, step: OracleStep, arg: str, raw: str, ref: str, keys: str) -> Any:
        """The result of the oracle's read-only call ``ref``, taken from the agent's own call of
        that tool with equal arguments; an input error when there is none (only an oracle trace
        carries that result), never a compare against the literal ``{{...}}``."""
        where = {"file": self.s.source, "event_id": step.event_id, "field": f"args.{arg}"}
        source = self.s.definition.get(ref)
        if source is None or source.action is None:
            what = "no event of the scenario" if source is None else "an event without a tool call"
            raise InputError(f"placeholder {raw!r} refers to {ref!r}, {what}", **where)
        want = {a: v for a, v in source.action.args.items() if not (isinstance(v, str) and _PLACEHOLDER.match(v))}
        for ev in self.s.log:
            if ev.failed or ev.tool_name != source.tool_name:
                continue
            if all(normalize_arg(ev.args.get(a)) == normalize_arg(v) for a, v in want.items()):
                path = [p for p in keys.split(".") if p]
                value = _walk(ev.return_value, path) if path else ev.return_value
                if value is not _MISSING:
                    return value
        raise InputError(
            f"placeholder {raw!r} needs the result of the read-only oracle call {ref!r} ({source.tool_name}), "
            "which only an oracle run carries, and the agent made no call of that tool with the same "
            "arguments: judge against an oracle-run trace (--oracle, or an oracle*.json beside the run)",
            **where,
        )

    def parent_times(self, step: OracleStep) -> tuple[list[float], list[float]]:
        o, a = [], []
        for p in step.parents:
            o.append(self.s.steps[p].event_time)
            idx = self.state.oracle_to_idx.get(p)
            a.append(self.state.agent_events[idx].event_time if idx is not None else self.s.start_time)
        return o, a

    def causality(self, step: OracleStep, i: int) -> list[str]:
        out = []
        for p in step.parents:
            j = self.state.oracle_to_idx.get(p)
            if j is None or j >= i:
                out.append(p)
        return out

    # ------------------------------------------------------------- pair check
    def evaluate(self, step: OracleStep, i: int, resolved: dict[str, Any], *, full: bool = False) -> PairEval:
        """Type -> time -> hard checks -> soft stage (ARE's AgentEventJudge order).  A checker that
        raises aborts the judgment (:class:`CheckerRaised`, with the pair's ids filled in)."""
        try:
            return self._evaluate(step, i, resolved, full=full)
        except CheckerRaised as exc:
            exc.oracle_event_id, exc.agent_event_id = step.event_id, self.state.agent_events[i].event_id
            raise

    def evaluate_or_reject(self, step: OracleStep, i: int, resolved: dict[str, Any]) -> PairEval:
        """:meth:`evaluate` for searches beyond ARE's own order (the exact search, candidates
        asked ahead): a raising checker rejects that pair only; greedy raises when it gets there."""
        try:
            return self.evaluate(step, i, resolved)
        except CheckerRaised as exc:
            return PairEval(False, RejectDetail("checker_error", message=str(exc)), raised=exc)

    def _evaluate(self, step: OracleStep, i: int, resolved: dict[str, Any], *, full: bool = False) -> PairEval:
        ev = self.state.agent_events[i]
        s = self.s
        if ev.event_type != EventType.AGENT:
            return PairEval(
                False, RejectDetail("event_type", message=f"agent event is {ev.event_type.value}, not AGENT")
            )
        po, pa = self.parent_times(step)
        cfg = s.config
        tc = check_time(
            agent_time=ev.event_time,
            oracle_time=step.event_time,
            absolute_time=step.absolute_time,
            comparator=step.comparator,
            parent_oracle_times=po,
            parent_agent_times=pa,
            parent_ids=step.parents,
            start_time=s.start_time,
            threshold=cfg.check_time_threshold_seconds,
            pre=cfg.pre_event_tolerance_seconds,
            post=cfg.post_event_tolerance_seconds,
        )
        if not s.timestamps and tc.mode != "skipped":
            s.time_not_checked.add(step.event_id)
            tc = TimeCheck("not_checked", tc.comparator, tc.actual, tc.expected, tc.low, tc.high, True, "no timestamps")
        entry = s.tool_judge.entry_for(step.tool_name, event_id=step.event_id, source=s.source)
        params = s.params_for(step)

        def ctx() -> dict[str, Any]:
            return s.check_context(step, ev)

        def check_args(full: bool) -> Any:
            return s.tool_judge.check_args(
                entry=entry,
                params=params,
                agent_args=ev.args,
                oracle_args=resolved,
                tolerance=s.tolerance,
                full=full,
                context=ctx,
            )

        if not tc.passed:
            detail = RejectDetail("time", time=tc)
            if full:
                detail.args = check_args(True).rows
            return PairEval(False, detail)
        av = check_args(full)
        if not av.passed:
            if full:
                av.rows += self._unchecked_soft_rows(av.soft_args, ev.args, resolved)
            return PairEval(False, RejectDetail(av.reason, args=av.rows, time=tc))
        rows = list(av.rows)
        selected = s.tool_judge.soft_selected(av.soft_args, resolved)
        if s.soft_mode == "off":
            rows += self._unchecked_soft_rows(av.soft_args, ev.args, resolved)
        if selected and s.soft_mode != "off":
            eq_rows = s.tool_judge.soft_equal(selected, ev.args, resolved)
            if all(r.passed for r in eq_rows):
                return PairEval(True, RejectDetail("accepted", args=rows + eq_rows, time=tc))
            if s.soft_mode == "equal":
                return PairEval(
                    False,
                    RejectDetail(
                        "soft",
                        args=rows + eq_rows,
                        time=tc,
                        message="LLM-judged arguments differ (soft_fallback='equal')",
                    ),
                )
            missing = [r for r in eq_rows if r.note == "missing from the agent's call"]
            if missing and s.config.checker_errors == "fail" and not full:
                raise CheckerRaised(
                    oracle_event_id="",
                    agent_event_id="",
                    checker="llm_checker",
                    arg=missing[0].arg,
                    error=missing[0].note,
                )
            if missing:
                return PairEval(False, RejectDetail("arguments", args=rows + missing, time=tc))
            req = SoftRequest(
                tool_name=step.tool_name,
                agent_args={a: ev.args.get(a) for a in selected},
                oracle_args={a: resolved.get(a) for a in selected},
                llm_args=selected,
                oracle_event_id=step.event_id,
                agent_event_id=ev.event_id,
                tasks=list(s.tasks[: step.turn + 1]),
                user=s.user,
                oracle_event_time=step.event_time,
            )
            return PairEval(False, RejectDetail("soft", args=rows, time=tc), soft=req)
        return PairEval(True, RejectDetail("accepted", args=rows, time=tc))

    def _unchecked_soft_rows(
        self, soft_args: list[str], agent_args: dict[str, Any], oracle_args: dict[str, Any]
    ) -> list[ArgCheck]:
        if self.s.soft_mode != "off":
            return []
        why = (
            "per-event checker params turn LLM judging off"
            if self.s.config.scripted
            else "LLM judging is off (--are-llm)"
        )
        return [
            ArgCheck(a, "llm_checker", oracle_args.get(a), agent_args.get(a), True, f"not checked: {why}")
            for a in soft_args
            if a in oracle_args or a in agent_args
        ]

    def decide_soft(self, pending: list[PairEval], *, ahead: bool = False) -> None:
        """Ask the soft judge about ``pending`` pairs.  A judge that cannot decide raises, unless
        the pairs were asked ``ahead`` of ARE's order: the error is then kept on the pair and
        raised only if the matcher reaches it (an extra call cannot turn a pass into an error)."""
        reqs = [p.soft for p in pending if p.soft is not None]
        if not reqs:
            return
        verdicts = self.s.soft_judge().check_many(reqs)
        for p, v in zip([p for p in pending if p.soft is not None], verdicts):
            req = p.soft
            assert req is not None and p.detail is not None
            error: JudgeUnavailableError | None = None
            if v.error is not None:
                error = JudgeUnavailableError(
                    f"LLM judge unavailable for {req.tool_name} ({req.oracle_event_id} vs {req.agent_event_id}): {v.error}"
                )
            elif v.passed is None:
                error = JudgeUnavailableError(
                    f"LLM judge was inconclusive for {req.tool_name} ({req.oracle_event_id} vs {req.agent_event_id}): {v.rationale}",
                    kind="inconclusive",
                )
            if error is not None:
                if not ahead:
                    raise error
                p.raised, p.soft = error, None
                continue
            for a in req.llm_args:
                p.detail.args.append(
                    ArgCheck(
                        a,
                        f"llm:{v.checker}" if v.checker else "llm_checker",
                        req.oracle_args[a],
                        req.agent_args[a],
                        bool(v.passed),
                        v.rationale,
                    )
                )
            p.accepted = bool(v.passed)
            p.detail.reason = "accepted" if v.passed else "soft"
            p.detail.message = v.rationale
            p.soft = None

    def cached_eval(self, step: OracleStep, i: int, resolved: dict[str, Any]) -> PairEval:
        key = (
            step.event_id,
            i,
            tuple(self.state.oracle_to_idx.get(p) for p in step.parents),
            tuple(self.state.oracle_to_idx.get(r) for r in self.placeholder_refs(step)),
        )
        pe = self._cache.get(key)
        if pe is None:
            pe = self.evaluate_or_reject(step, i, resolved)
            if pe.soft is not None:
                self.decide_soft([pe])
            self._cache[key] = pe
        return pe

    # ------------------------------------------------------------------ ENV
    def match_env(self, step: OracleStep) -> int | None:
        for i in range(self.base, self.end):
            ev = self.state.agent_events[i]
            if ev.event_id == step.event_id and ev.tool_name == step.tool_name and ev.event_type == step.event_type:
                return i
        return None

    # --------------------------------------------------------------- greedy
    def ask_ahead(self) -> None:
        """Speculation (``llm_options.speculate``): guess the greedy assignment of the turn (each
        oracle event takes its first hard-passing candidate that an earlier one did not take) and
        ask the soft checks of all the guessed pairs at once, so that their answers are in the
        soft judge's cache when ARE's order reaches them.  At most one call per oracle event
        ahead; nothing is decided here, and errors are left for the matcher to meet (or not)."""
        pending: list[PairEval] = []
        taken: set[int] = set()
        for step in self.steps:
            if step.event_type != EventType.AGENT or self.placeholder_refs(step):
                continue  # a placeholder's value depends on earlier matches
            resolved = self.resolve_args(step)
            for i in self.candidates(step):
                if i in taken:
                    continue
                pe = self.evaluate_or_reject(step, i, resolved)
                if pe.accepted or pe.soft is not None:
                    taken.add(i)
                    if pe.soft is not None:
                        pending.append(pe)
                    break
        self.decide_soft(pending, ahead=True)

    def greedy(self) -> Failure | None:
        if self.s.prefetch:
            self.ask_ahead()
        for step in self.steps:
            if step.event_type in (EventType.ENV, EventType.USER):
                i = self.match_env(step)
                if i is None:
                    return EnvOracleMatchingFailure(step.event_id, turn=step.turn)
                self.state.assign(i, step.event_id)
                continue
            if step.event_type != EventType.AGENT:
                return InputErrorFailure(
                    f"oracle event of type {step.event_type.value} cannot be judged", self.s.source, step.event_id
                )
            fail = self.greedy_step(step)
            if fail is not None:
                return fail
        return None

    def greedy_step(self, step: OracleStep) -> Failure | None:
        resolved = self.resolve_args(step)
        self.s.tool_judge.entry_for(step.tool_name, event_id=step.event_id, source=self.s.source)
        evals: dict[int, PairEval] = {}
        for i in self.candidates(step):
            pe = evals[i] = self.evaluate(step, i, resolved)
            if pe.soft is not None:
                self.decide_soft([pe])  # asked ahead (speculation): answered from the cache
            if pe.accepted and not self.causality(step, i):
                self.state.assign(i, step.event_id, pe.detail.time if pe.detail else None)
                return None
        return self.matching_failure(step, resolved, evals)

    # ---------------------------------------------------------------- exact
    def exact(self, budget: int) -> tuple[bool, bool]:
        """Backtracking search.  Returns (found, exhausted_budget)."""
        counter = [0]
        exhausted = [False]

        def solve(k: int) -> bool:
            if k == len(self.steps):
                return True
            step = self.steps[k]
            if step.event_type in (EventType.ENV, EventType.USER):
                i = self.match_env(step)
                if i is None:
                    return False
                prev = self.state.idx_to_oracle.get(i)
                self.state.assign(i, step.event_id)
                if solve(k + 1):
                    return True
                self.state.unassign(i, step.event_id)
                if prev is not None:
                    self.state.assign(i, prev)
                return False
            if step.event_type != EventType.AGENT:
                return False
            self.s.tool_judge.entry_for(step.tool_name, event_id=step.event_id, source=self.s.source)
            resolved = self.resolve_args(step)
            for i in list(self.candidates(step)):
                if i in self.state.idx_to_oracle:
                    continue
                counter[0] += 1
                if counter[0] > budget:
                    exhausted[0] = True
                    return False
                pe = self.cached_eval(step, i, resolved)
                if pe.accepted and not self.causality(step, i):
                    self.state.assign(i, step.event_id, pe.detail.time if pe.detail else None)
                    if solve(k + 1):
                        return True
                    self.state.unassign(i, step.event_id)
                    if exhausted[0]:
                        return False
            return False

        return solve(0), exhausted[0]

    # ------------------------------------------------------------- failures
    def matching_failure(
        self, step: OracleStep, resolved: dict[str, Any], evals: dict[int, PairEval]
    ) -> OracleEventMatchingFailure:
        """ARE's attempt list: every agent event in scope, in order."""
        attempts: list[EventComparisonFailure] = []
        lo = self.base if self.s.config.candidate_scope == "current_turn" else 0
        best: tuple[tuple[int, int, int], EventComparisonFailure] | None = None
        for i in range(lo, self.end):
            ev = self.state.agent_events[i]
            if i in self.state.idx_to_oracle:
                attempts.append(
                    EventComparisonFailure(ev.tool_name, ev.event_id, step.tool_name, step.event_id, FT.ALREADY_MATCHED)
                )
                continue
            if ev.tool_name != step.tool_name:
                continue
            pe = evals.get(i)
            if pe is None:
                pe = self.evaluate(step, i, resolved)
                if pe.soft is not None:
                    self.decide_soft([pe])
            if not pe.accepted:
                full = self.evaluate(step, i, resolved, full=True)
                detail = full.detail if full.soft is None and full.detail is not None else pe.detail
                if pe.detail is not None and pe.detail.reason == "soft" and detail is not None:
                    detail = pe.detail
                f = EventComparisonFailure(
                    ev.tool_name, ev.event_id, step.tool_name, step.event_id, FT.TOOL_JUDGE_REJECT, detail=detail
                )
                attempts.append(f)
                rows = detail.args if detail else []
                score = (1, sum(r.passed for r in rows), int(bool(detail and detail.time and detail.time.passed)))
            else:
                violating = self.causality(step, i)
                f = None
                for p in violating:
                    j = self.state.oracle_to_idx.get(p)
                    msg = (
                        f"oracle parent {p} is not matched to any agent event"
                        if j is None
                        else f"oracle parent {p} is matched to agent event {self.state.agent_events[j].event_id}, which is not before this one"
                    )
                    f = EventComparisonFailure(
                        ev.tool_name,
                        ev.event_id,
                        step.tool_name,
                        step.event_id,
                        FT.CAUSALITY,
                        detail=RejectDetail(
                            "causality",
                            args=pe.detail.args if pe.detail else [],
                            time=pe.detail.time if pe.detail else None,
                            message=msg,
                        ),
                        parent_event_id=p,
                    )
                    attempts.append(f)
                score = (2, 0, 0)
            if f is not None and (best is None or score > best[0]):
                best = (score, f)
        return OracleEventMatchingFailure(
            oracle_tool_name=step.tool_name,
            oracle_tool_args={k: str(v) for k, v in resolved.items() if k != "self"},
            comparison_failures=attempts,
            oracle_event_id=step.event_id,
            turn=step.turn,
            closest=best[1] if best else None,
        )


_MISSING = object()


def _walk(value: Any, path: list[str]) -> Any:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, ValueError):
            return _MISSING
    for key in path:
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return _MISSING
    return value
