"""The native scenario format: YAML or JSON written by hand.

A scenario file holds the oracle (``events``) and optionally one or more agent ``runs``; agent
runs may also live in separate JSON/JSONL files.  The JSON Schema is generated from
:class:`ScenarioFile` (``are-judge --schema``; published in ``docs/scenario.schema.json``).
"""

from __future__ import annotations

import difflib
import functools
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .._files import read_document
from ..errors import InputError, format_validation_error
from ..model import AUI_APP, Count, Event, EventType, OperationType, Run, Scenario, Seconds

FORMAT_TAG: Final = "are-judge/scenario-v1"


@functools.lru_cache(maxsize=4096)
def _split_tool(tool: str) -> tuple[str, str]:
    """``App.function`` or ``App__function`` -> (app, function); cached, tool names repeat."""
    if "__" in tool:
        app, fn = tool.split("__", 1)
    elif "." in tool:
        app, fn = tool.rsplit(".", 1)
    else:
        raise ValueError(f"tool must look like 'App.function' or 'App__function', got {tool!r}")
    if not app or not fn:
        raise ValueError(f"tool must look like 'App.function', got {tool!r}")
    return app, fn


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NativeCheck(_Strict):
    """An extra check on one argument of the agent's call (scripted checker params)."""

    arg: str = Field(description="argument name")
    checker: str = Field(description="checker type, e.g. contain_any_checker, eq_checker, code_judge")
    args: dict[str, Any] = Field(default_factory=dict, description="checker arguments, e.g. {targets: [...]}")


class NativeEvent(_Strict):
    """One oracle event: what the user/environment does, or what the agent is expected to do."""

    id: str = Field(description="unique event id")
    type: Literal["agent", "user", "env", "AGENT", "USER", "ENV"] = Field(
        default="agent", description="agent (expected tool call), user or env"
    )
    tool: str = Field(
        description="App.function, e.g. EmailClientV2.send_email or AgentUserInterface.send_message_to_user"
    )
    args: dict[str, Any] = Field(
        default_factory=dict, description="arguments; '{{event_id}}' refers to a matched event's return value"
    )
    after: list[str] = Field(default_factory=list, description="ids of the events this one depends on")
    delay: Seconds | None = Field(
        default=None, description="seconds after the latest dependency (after start without one)"
    )
    at: Seconds | None = Field(default=None, description="absolute unix time (instead of delay)")
    comparator: Literal["EQUAL", "LESS_THAN", "GREATER_THAN"] | None = Field(
        default=None, description="time comparator; setting one forces the time check"
    )
    operation: Literal["read", "write"] = Field(default="write", description="read events are not judged")
    checks: list[NativeCheck] = Field(default_factory=list)

    @field_validator("tool")
    @classmethod
    def _tool_shape(cls, v: str) -> str:
        _split_tool(v)
        return v


class NativeAgentEvent(_Strict):
    """One event of an agent run log."""

    id: str | None = None
    type: Literal["agent", "user", "env", "AGENT", "USER", "ENV"] = "agent"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    time: Seconds = Field(description="seconds after scenario start (or absolute if >= start_time)")
    returns: Any = None
    error: str | None = Field(default=None, description="the call raised: the event is ignored by the judge")
    operation: Literal["read", "write"] = "write"

    @field_validator("tool")
    @classmethod
    def _tool_shape(cls, v: str) -> str:
        _split_tool(v)
        return v


class NativeRun(_Strict):
    id: str = Field(description="run name (part of the test id)")
    expect: Literal["pass", "fail"] = Field(default="pass", description="fail: a known-bad run, reported as xfail")
    events: list[NativeAgentEvent] | None = None
    file: str | None = Field(default=None, description="a JSON/JSONL file of agent events, relative to this file")
    format: Literal["native", "openai_chat", "openai_responses", "anthropic", "langchain", "otel"] | None = Field(
        default=None, description="the format of 'file' (default: detected)"
    )
    run_number: Count | None = None


class NativeUser(_Strict):
    first_name: str = ""
    last_name: str = ""
    address: str = ""


class ScenarioFile(_Strict):
    """A hand-written scenario (YAML or JSON)."""

    format: Literal["are-judge/scenario-v1"] = Field(alias="format", default=FORMAT_TAG)
    scenario_id: str
    description: str = ""
    start_time: Seconds = 0.0
    user: NativeUser | None = None
    apps: dict[str, str] = Field(default_factory=dict, description="app instance name -> class name")
    judge_config: dict[str, Any] | None = None
    events: list[NativeEvent]
    runs: list[NativeRun] = Field(default_factory=list)
    tool_map: dict[str, Any] | None = Field(
        default=None,
        description="agent tool name -> 'App.function' or {tool: 'App.function', args: {agent arg: oracle arg}}",
    )


_ETYPES = {t: EventType(t.upper()) for t in ("agent", "user", "env", "AGENT", "USER", "ENV")}
_OPTYPES = {"read": OperationType.READ, "write": OperationType.WRITE}


def _tool_call(tool: str, args: dict[str, Any], apps: dict[str, str], op: str) -> dict[str, Any]:
    """A :class:`ToolCall` as a mapping (validated with its event, in one pydantic pass)."""
    app, fn = _split_tool(tool)
    return {"app": app, "function": fn, "app_class": apps.get(app, app), "args": args, "operation_type": _OPTYPES[op]}


def scenario_from_native(doc: ScenarioFile, *, file: str) -> Scenario:
    ids: set[str] = set()
    for e in doc.events:
        if e.id in ids:
            raise InputError("duplicate event id", file=file, event_id=e.id, field="id")
        ids.add(e.id)
    events: list[dict[str, Any]] = []
    for e in doc.events:
        for d in e.after:
            if d not in ids:
                near = difflib.get_close_matches(d, sorted(ids), n=1)
                raise InputError(
                    f"'after' names unknown event {d!r}" + (f" (did you mean {near[0]!r}?)" if near else ""),
                    file=file,
                    event_id=e.id,
                    field="after",
                )
        etype = _ETYPES[e.type]
        if etype == EventType.AGENT and not e.after:
            raise InputError(
                "an agent event needs at least one dependency in 'after' (usually the user's message)",
                file=file,
                event_id=e.id,
                field="after",
            )
        rel = e.delay
        if rel is None and e.at is None:
            rel = 0.0
        events.append(
            {
                "event_id": e.id,
                "event_type": etype,
                "action": _tool_call(e.tool, e.args, doc.apps, e.operation),
                "dependencies": e.after,
                "relative_time": rel,
                "absolute_time": e.at if rel is None else None,
                "comparator": e.comparator,
                "checks": [{"arg_name": c.arg, "checker_type": c.checker, "checker_args": c.args} for c in e.checks],
            }
        )
    # the model is built from plain mappings in one validation pass (much cheaper than one
    # constructor call per event and per tool call)
    return Scenario.model_validate(
        {
            "scenario_id": doc.scenario_id,
            "start_time": doc.start_time,
            "events": events,
            "user": doc.user.model_dump() if doc.user else None,
            "source": file,
            "judge_config": doc.judge_config,
            "metadata": {"format": "native", "description": doc.description},
        }
    )


def _agent_event_dicts(
    items: list[NativeAgentEvent], *, start_time: float, apps: dict[str, str]
) -> list[dict[str, Any]]:
    out = []
    for n, it in enumerate(items):
        t = it.time if it.time >= start_time and start_time > 0 else start_time + it.time
        out.append(
            {
                "event_id": it.id or f"agent-{n}",
                "event_type": _ETYPES[it.type],
                "event_time": t,
                "action": _tool_call(it.tool, it.args, apps, it.operation),
                "return_value": it.returns,
                "exception": it.error,
            }
        )
    return out


def agent_events_from_native(items: list[NativeAgentEvent], *, start_time: float, apps: dict[str, str]) -> list[Event]:
    return [Event.model_validate(d) for d in _agent_event_dicts(items, start_time=start_time, apps=apps)]


def validate_native(data: Any, *, file: str) -> ScenarioFile:
    if not isinstance(data, dict):
        raise InputError("a scenario file must be a mapping", file=file)
    try:
        return ScenarioFile.model_validate(data)
    except ValidationError as exc:
        raise InputError(_describe(exc, data), file=file) from None


def _describe(exc: ValidationError, data: dict[str, Any]) -> str:
    """Validation errors that name the event id rather than a list index."""
    parts = []
    for err in exc.errors():
        loc = list(err.get("loc", ()))
        where = ".".join(str(p) for p in loc)
        if len(loc) >= 2 and loc[0] == "events" and isinstance(loc[1], int):
            try:
                eid = data["events"][loc[1]].get("id")
                where = f"event {eid!r} field {'.'.join(str(p) for p in loc[2:]) or '<event>'}"
            except Exception:
                pass
        parts.append(f"{where}: {err.get('msg')}")
    return "; ".join(parts)


def read_native(
    data: dict[str, Any], *, file: str, allow_outside: bool = False, log_format: str | None = None
) -> tuple[Scenario, list[Run]]:
    """The scenario and its runs.  A run's ``file:`` must be inside the scenario file's folder
    unless ``allow_outside`` (``--are-allow-outside-files``): a scenario cannot make the judge
    read ``/etc/...`` or ``../../..``."""
    doc = validate_native(data, file=file)
    scenario = scenario_from_native(doc, file=file)
    apps = {AUI_APP: AUI_APP, **doc.apps}
    runs = []
    ids: set[str] = set()
    for r in doc.runs:
        if r.id in ids:
            raise InputError(f"two runs are named {r.id!r}: run ids must be unique", file=file, field="runs.id")
        ids.add(r.id)
        if (r.events is None) == (r.file is None):
            raise InputError("a run needs exactly one of 'events' or 'file'", file=file, field=f"runs.{r.id}")
        if r.file is not None:
            log = Path(file).parent / r.file
            if not allow_outside and not _inside(log, Path(file).parent):
                raise InputError(
                    f"the agent log {r.file!r} is outside the scenario's folder: move it next to the scenario, "
                    "or allow it with --are-allow-outside-files (CLI: --allow-outside-files)",
                    file=file,
                    field=f"runs.{r.id}.file",
                )
            items, fmt, timed = _read_run_file(log, r.format or log_format, doc, scenario)
            src = str(log)
        else:
            items, fmt, timed = r.events or [], "native", True
            src = file
        runs.append(
            Run.model_validate(
                {
                    "scenario": scenario,
                    "events": _agent_event_dicts(items, start_time=doc.start_time, apps=apps),
                    "run_id": r.id,
                    "source": src,
                    "run_number": r.run_number,
                    "expected": "fail" if r.expect == "fail" else None,
                    "metadata": {"format": fmt, "scenario_file": file, "timestamps": timed},
                }
            )
        )
    return scenario, runs


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


def _is_native_log(data: Any) -> bool:
    if isinstance(data, dict) and "events" in data:
        data = data["events"]
    return isinstance(data, list) and all(isinstance(e, dict) and "tool" in e for e in data)


def _read_run_file(
    log: Path, fmt: str | None, doc: ScenarioFile, scenario: Scenario
) -> tuple[list[NativeAgentEvent], str, bool]:
    """A run's agent log: native events, or a log in another format (:mod:`.adapters`)."""
    from . import adapters

    data = read_document(log)
    if fmt == "native" or (fmt is None and _is_native_log(data)):
        return read_agent_log(log, data), "native", True
    tool_map = adapters.check_tool_map(doc.tool_map, file=scenario.source or "")
    user_ids = [e.event_id for e in scenario.events if e.event_type == EventType.USER]
    dicts, timed = adapters.read_log(
        data,
        file=str(log),
        fmt=fmt,
        tool_map=tool_map,
        start_time=doc.start_time,
        user_ids=user_ids,
        apps={AUI_APP: AUI_APP, **doc.apps},
    )
    return read_agent_log(log, dicts), fmt or adapters.detect(data) or "", timed


def read_agent_log(path: Path, data: Any = None) -> list[NativeAgentEvent]:
    data = read_document(path) if data is None else data
    if isinstance(data, dict) and "events" in data:
        data = data["events"]
    if not isinstance(data, list):
        raise InputError("an agent log must be a list of events (JSON list or JSONL)", file=str(path))
    out = []
    for i, item in enumerate(data):
        try:
            out.append(NativeAgentEvent.model_validate(item))
        except ValidationError as exc:
            eid = item.get("id") if isinstance(item, dict) else None
            raise InputError(format_validation_error(exc), file=str(path), event_id=eid or f"#{i}") from None
    return out


def json_schema() -> dict[str, Any]:
    """JSON Schema of the native scenario format."""
    schema = ScenarioFile.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "pytest-are-judge scenario"
    return schema
