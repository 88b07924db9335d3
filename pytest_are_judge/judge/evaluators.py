"""Scenario-level evaluators: run after a successful match and see the whole run.

Configured in the judge config or in a scenario file's ``judge_config``::

    evaluators:
      - type: code_judge
        name: answer-quality
        script: judges/answer_quality.py   # or an argv list: [node, judges/check.js]
        threshold: 0.7
        timeout: 20
        clean_env: true
        expected_outcome: "The user is told the cab was booked for 8:30."

:func:`run_evaluators` runs every evaluator of a run whose matching succeeded.  A score below
the threshold turns the judgment into a failure of kind ``evaluator_reject``; a code judge that
cannot answer turns it into an error (``code_judge_error``), never a pass.  Every evaluator's
result is recorded in ``judgment.extras["evaluators"]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from ..code_judge import CodeJudgeError, base_dir_of, check_options, event_to_json, run_code_judge
from ..errors import InputError
from ..judgment.failures import FailureKind, GenericFailure, InputErrorFailure
from ..judgment.result import Judgment
from ..model import AUI_SEND_TO_AGENT, AUI_SEND_TO_USER, EventType, Run

__all__ = ["EVALUATOR_TYPES", "evaluator_specs", "run_evaluators", "run_payload"]

EVALUATOR_TYPES = ("code_judge",)
_KNOWN_KEYS = {"type", "name", "script", "threshold", "timeout", "clean_env", "env", "expected_outcome", "question"}


def evaluator_specs(config: Any, *, source: str | None = None) -> list[dict[str, Any]]:
    """The evaluator list of ``config`` (a judge config, a mapping with ``evaluators``, or a
    list), validated.  Raises :class:`InputError` naming the bad entry."""
    if config is None:
        return []
    if isinstance(config, Mapping):
        raw = config.get("evaluators") or []
    elif isinstance(config, (list, tuple)):
        raw = config
    else:
        raw = getattr(config, "evaluators", None) or []
    if not isinstance(raw, (list, tuple)):
        raise InputError("'evaluators' must be a list", file=source, field="evaluators")
    out = []
    for i, spec in enumerate(raw):
        where = f"evaluators[{i}]"
        if not isinstance(spec, Mapping):
            raise InputError("an evaluator must be a mapping", file=source, field=where)
        etype = spec.get("type", "code_judge")
        if etype not in EVALUATOR_TYPES:
            raise InputError(
                f"unknown evaluator type {etype!r}; known: {', '.join(EVALUATOR_TYPES)}",
                file=source,
                field=f"{where}.type",
            )
        unknown = sorted(set(spec) - _KNOWN_KEYS)
        if unknown:
            raise InputError(
                f"unknown evaluator option(s) {unknown}; allowed: {sorted(_KNOWN_KEYS)}", file=source, field=where
            )
        try:
            opts = check_options(spec, where=where)
        except InputError as exc:
            raise InputError(exc.message, file=source, field=exc.field) from None
        script = spec["script"]
        default_name = script if isinstance(script, str) else " ".join(map(str, script))
        out.append(
            {
                **opts,
                "type": etype,
                "name": str(spec.get("name") or default_name),
                **{k: spec[k] for k in ("expected_outcome", "question") if k in spec},
            }
        )
    return out


def _content(ev: Any) -> str | None:
    action = getattr(ev, "action", None)
    args = (action.args if action is not None else None) or {}
    c = args.get("content")
    return None if c is None else str(c)


def run_payload(run: Run, judgment: Judgment | None = None, spec: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON a run-level code judge receives.

    ``question``: the user's task messages; ``candidate_answer``: the agent's last message to the
    user; ``reference_answer``: the oracle's last message to the user; ``expected_outcome``: the
    evaluator's ``expected_outcome`` option, else the reference answer.  ``sidecar`` holds the
    whole run (agent events, oracle events, matches, judgment).
    """
    spec = spec or {}
    scenario = run.scenario
    tasks = [c for e in scenario.events if e.tool_name == AUI_SEND_TO_AGENT and (c := _content(e)) is not None]
    agent_msgs = [
        c
        for e in run.events
        if e.event_type == EventType.AGENT
        and e.tool_name == AUI_SEND_TO_USER
        and not e.failed
        and (c := _content(e)) is not None
    ]
    oracle_msgs = [
        c
        for e in scenario.events
        if e.event_type == EventType.AGENT and e.tool_name == AUI_SEND_TO_USER and (c := _content(e)) is not None
    ]
    reference = oracle_msgs[-1] if oracle_msgs else None
    oracle_events = [
        {
            "event_id": e.event_id,
            "event_type": e.event_type.value,
            "tool_name": e.tool_name,
            "args": dict(e.action.args) if e.action else {},
            "dependencies": list(e.dependencies),
        }
        for e in scenario.events
    ]
    return {
        "question": spec.get("question") or "\n".join(tasks),
        "expected_outcome": spec.get("expected_outcome", reference),
        "candidate_answer": agent_msgs[-1] if agent_msgs else None,
        "reference_answer": reference,
        "sidecar": {
            "mode": "run",
            "evaluator": spec.get("name"),
            "scenario_id": scenario.scenario_id,
            "run_id": run.run_id,
            "run_number": run.run_number,
            "tasks": tasks,
            "agent_messages": agent_msgs,
            "oracle_messages": oracle_msgs,
            "agent_events": [event_to_json(e) for e in run.events],
            "oracle_events": oracle_events,
            "matches": dict(judgment.agent_event_id_to_oracle_event_id) if judgment else {},
            "judgment": judgment.to_dict() if judgment else None,
        },
    }


def _bullets(title: str, items: Iterable[str]) -> list[str]:
    items = list(items)
    return [f"{title}:"] + [f"  - {x}" for x in items] if items else []


def run_evaluators(run: Run, judgment: Judgment, config: Any = None) -> Judgment:
    """Run the evaluators of ``config`` (the run's effective judge config; when None, the
    scenario's own ``judge_config``) on a run whose matching passed.

    Returns ``judgment`` unchanged when it did not pass or there are no evaluators; otherwise a
    copy with ``extras["evaluators"]`` and, when an evaluator errs or scores below its threshold,
    a failure (``code_judge_error`` takes precedence over ``evaluator_reject``).
    """
    if not judgment.success:
        return judgment
    cfg = config if config is not None else (run.scenario.judge_config or {})
    try:
        specs = evaluator_specs(cfg, source=run.scenario.source)
    except InputError as exc:
        return dataclasses.replace(judgment, success=False, failure=InputErrorFailure.from_error(exc))
    if not specs:
        return judgment
    base = base_dir_of(run.scenario, run.source)
    results: list[dict[str, Any]] = []
    error: GenericFailure | None = None
    reject: GenericFailure | None = None
    for spec in specs:
        name = spec["name"]
        try:
            res = run_code_judge(
                spec["script"],
                run_payload(run, judgment, spec),
                base_dir=base,
                timeout=spec["timeout"],
                clean_env=spec["clean_env"],
                env=spec["env"],
            )
        except CodeJudgeError as exc:
            row = {"name": name, "type": spec["type"], "status": "error", "error": str(exc.args[0]), **exc.data}
            results.append(row)
            if error is None:
                error = GenericFailure(
                    FailureKind.CODE_JUDGE_ERROR, f"evaluator {name!r}: {exc}", {"evaluator": name, **exc.data}
                )
            continue
        passed = res.score >= spec["threshold"]
        row = {
            "name": name,
            "type": spec["type"],
            "status": "passed" if passed else "rejected",
            "threshold": spec["threshold"],
            **res.to_dict(),
        }
        results.append(row)
        if not passed and reject is None:
            lines = [f"evaluator {name!r} rejected the run: score {res.score:g} < threshold {spec['threshold']:g}"]
            lines += _bullets("hits", res.hits) + _bullets("misses", res.misses)
            if res.reasoning:
                lines.append(f"reasoning: {res.reasoning}")
            reject = GenericFailure(
                FailureKind.EVALUATOR_REJECT,
                "\n".join(lines),
                {
                    "evaluator": name,
                    "score": res.score,
                    "threshold": spec["threshold"],
                    "hits": list(res.hits),
                    "misses": list(res.misses),
                    "reasoning": res.reasoning,
                },
            )
    failure = error or reject
    extras = {**judgment.extras, "evaluators": results}
    if failure is None:
        return dataclasses.replace(judgment, extras=extras)
    return dataclasses.replace(judgment, success=False, failure=failure, extras=extras)
