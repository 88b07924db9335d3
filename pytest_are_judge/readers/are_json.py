"""Reader for ARE's export JSON (``version: are_simulation_v1``).

The agent log is the file's ``completed_events``.  The oracle side is either the
``completed_events`` of a separate oracle-run trace, or derived from the file's own ``events``
definition (see :func:`pytest_are_judge.judge.oracle.derive_oracle_run`).
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._text import shorten
from ..errors import InputError, format_validation_error
from ..model import (
    MAX_TIME,
    AppInfo,
    Event,
    EventType,
    OperationType,
    OracleEvent,
    Run,
    Scenario,
    TimeComparator,
    ToolCall,
    UserDetails,
)

ARE_VERSION = "are_simulation_v1"
XFAIL_NAME_TAG = ".xfail."
"""An ARE trace whose file name contains ``.xfail.`` is a run the judge must reject."""
_HARDWIRED_CLASSES = {"AgentUserInterface": "AgentUserInterface", "SystemApp": "SystemApp"}
_PLACEHOLDER = re.compile(r"^\{\{.*\}\}$", re.S)
_TRUE = {"true", "1", "t", "y", "yes"}


def is_are_export(data: Any) -> bool:
    return isinstance(data, dict) and "completed_events" in data and "events" in data and "apps" in data


def is_oracle_run(data: dict[str, Any]) -> bool:
    """True when the export's metadata marks it as an oracle run (``runner_config.oracle``)."""
    meta = _mapping(data.get("metadata"))
    rc, sim = _mapping(meta.get("runner_config")), _mapping(meta.get("simulation"))
    return bool(rc.get("oracle")) and not sim.get("agent_id") and not sim.get("model_id")


def _mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one (optional metadata that is not one)."""
    return value if isinstance(value, dict) else {}


def _type_word(value_type: str) -> str:
    m = re.match(r"\s*Optional\[(.*)\]\s*$", value_type)
    if m:
        value_type = m.group(1)
    m = re.search(r"\w+", value_type)
    return m.group(0) if m else ""


def parse_arg_value(value: Any, value_type: Any, *, where: dict[str, str | None]) -> Any:
    """Decode one ``{value, value_type}`` pair as ARE's importer does.

    Difference: list/dict values that are Python reprs (ARE cannot re-import them) are read with
    ``ast.literal_eval`` as a fallback.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        return value  # already typed (hand-edited files)
    if _PLACEHOLDER.match(value):
        return value
    if not value_type:
        return value
    word = _type_word(str(value_type))
    try:
        if word == "str":
            return value
        if word == "int":
            return int(value)
        if word == "float":
            return float(value)
        if word == "bool":
            return value.strip().lower() in _TRUE
        if word in ("list", "dict", "tuple", "set"):
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                parsed = ast.literal_eval(value)
            return parsed
    except (ValueError, SyntaxError) as exc:
        raise InputError(
            f"argument value {value!r} does not parse as declared type {value_type!r} ({exc})",
            **where,
        ) from None
    return value  # other declared types (Any, custom classes) stay as text, as in ARE


_SCHEDULING_TYPES = ("CONDITION", "VALIDATION", "STOP")


def _parse_action_for(
    raw_event: dict[str, Any], app_classes: dict[str, str], *, file: str, event_id: str
) -> ToolCall | None:
    """Scheduling machinery (CONDITION/VALIDATION/STOP) is never judged: an action it carries that
    is not an app call (e.g. a condition check) is kept as None instead of being an error."""
    raw = raw_event.get("action")
    if str(raw_event.get("event_type") or "").upper() in _SCHEDULING_TYPES:
        try:
            return _parse_action(raw, app_classes, file=file, event_id=event_id)
        except InputError:
            return None
    return _parse_action(raw, app_classes, file=file, event_id=event_id)


def _parse_action(raw: Any, app_classes: dict[str, str], *, file: str, event_id: str) -> ToolCall | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError("'action' must be an object", file=file, event_id=event_id, field="action")
    app = raw.get("app")
    function = raw.get("function")
    if not isinstance(app, str) or not isinstance(function, str):
        raise InputError("an action needs string 'app' and 'function'", file=file, event_id=event_id, field="action")
    args: dict[str, Any] = {}
    raw_args = raw.get("args") or []
    if isinstance(raw_args, dict):  # tolerate a plain mapping
        raw_args = [{"name": k, "value": v, "value_type": None} for k, v in raw_args.items()]
    if not isinstance(raw_args, list):
        raise InputError(
            f"'args' must be a list of {{name, value, value_type}} objects, got {type(raw_args).__name__}",
            file=file,
            event_id=event_id,
            field="action.args",
        )
    for i, a in enumerate(raw_args):
        if not isinstance(a, dict) or "name" not in a:
            raise InputError(
                "each arg must be an object with 'name', 'value', 'value_type'",
                file=file,
                event_id=event_id,
                field=f"action.args[{i}]",
            )
        name = a["name"]
        if not isinstance(name, str):
            raise InputError(
                f"an argument name must be a string, got {type(name).__name__}",
                file=file,
                event_id=event_id,
                field=f"action.args[{i}].name",
            )
        if name == "self":
            continue
        args[name] = parse_arg_value(
            a.get("value"),
            a.get("value_type"),
            where={"file": file, "event_id": event_id, "field": f"action.args.{name}"},
        )
    op = raw.get("operation_type")
    try:
        op_type = OperationType(op.upper()) if isinstance(op, str) else None
    except ValueError:
        raise InputError(
            f"operation_type must be READ or WRITE, got {op!r}",
            file=file,
            event_id=event_id,
            field="action.operation_type",
        ) from None
    app_class = app_classes.get(app) or _HARDWIRED_CLASSES.get(app) or app
    return ToolCall(app=app, function=function, app_class=app_class, args=args, operation_type=op_type)


def _event_type(raw: dict[str, Any], *, file: str, event_id: str) -> EventType:
    et = raw.get("event_type")
    try:
        return EventType(et.upper() if isinstance(et, str) else et)
    except ValueError:
        raise InputError(
            f"event_type must be one of {[e.value for e in EventType]}, got {et!r}",
            file=file,
            event_id=event_id,
            field="event_type",
        ) from None


def _float_or_none(v: Any, *, file: str, event_id: str | None, field: str) -> float | None:
    """A time in seconds: a real number (not a string, not a bool), finite, in [0, MAX_TIME]."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(
            f"expected a number of seconds, got {shorten(repr(v), 80)}", file=file, event_id=event_id, field=field
        )
    try:
        value = float(v)
    except OverflowError:
        value = math.inf
    if not (0.0 <= value <= MAX_TIME):  # also NaN and infinities
        raise InputError(
            f"expected a number of seconds between 0 and {MAX_TIME:.0e}, got {shorten(repr(v), 80)}",
            file=file,
            event_id=event_id,
            field=field,
        )
    return value


def parse_completed_events(raw_events: Any, app_classes: dict[str, str], *, file: str) -> list[Event]:
    if not isinstance(raw_events, list):
        raise InputError("'completed_events' must be a list", file=file, field="completed_events")
    out: list[Event] = []
    for i, raw in enumerate(raw_events):
        if not isinstance(raw, dict):
            raise InputError("each completed event must be an object", file=file, field=f"completed_events[{i}]")
        eid = raw.get("event_id")
        if not isinstance(eid, str):
            raise InputError("missing string 'event_id'", file=file, field=f"completed_events[{i}].event_id")
        meta = raw.get("metadata") or {}
        if not isinstance(meta, dict):
            raise InputError("'metadata' must be an object", file=file, event_id=eid, field="metadata")
        exception = meta.get("exception")
        if exception is not None and not isinstance(exception, str):
            raise InputError(
                f"'exception' must be the error text or null, got {type(exception).__name__}",
                file=file,
                event_id=eid,
                field="metadata.exception",
            )
        out.append(
            Event(
                event_id=eid,
                event_type=_event_type(raw, file=file, event_id=eid),
                event_time=_float_or_none(raw.get("event_time"), file=file, event_id=eid, field="event_time") or 0.0,
                action=_parse_action_for(raw, app_classes, file=file, event_id=eid),
                return_value=meta.get("return_value"),
                exception=meta.get("exception"),
            )
        )
    return out


def parse_definition(raw_events: Any, app_classes: dict[str, str], *, file: str) -> list[OracleEvent]:
    if not isinstance(raw_events, list):
        raise InputError("'events' must be a list", file=file, field="events")
    out: list[OracleEvent] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_events):
        if not isinstance(raw, dict):
            raise InputError("each event must be an object", file=file, field=f"events[{i}]")
        eid = raw.get("event_id")
        if not isinstance(eid, str):
            raise InputError("missing string 'event_id'", file=file, field=f"events[{i}].event_id")
        if eid in seen:
            raise InputError("duplicate event_id in the scenario definition", file=file, event_id=eid)
        seen.add(eid)
        deps = raw.get("dependencies") or []
        if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
            raise InputError(
                "'dependencies' must be a list of event ids", file=file, event_id=eid, field="dependencies"
            )
        rel = _float_or_none(raw.get("event_relative_time"), file=file, event_id=eid, field="event_relative_time")
        absolute = _float_or_none(raw.get("event_time"), file=file, event_id=eid, field="event_time")
        if rel is not None:
            absolute = None  # ARE exports event_time only when the relative time is null
        elif absolute is None:
            rel = 0.0
        comp = raw.get("event_time_comparator")
        try:
            comparator = TimeComparator(comp) if comp else None
        except ValueError:
            raise InputError(
                f"event_time_comparator must be EQUAL, LESS_THAN or GREATER_THAN, got {comp!r}",
                file=file,
                event_id=eid,
                field="event_time_comparator",
            ) from None
        out.append(
            OracleEvent(
                event_id=eid,
                event_type=_event_type(raw, file=file, event_id=eid),
                action=_parse_action_for(raw, app_classes, file=file, event_id=eid),
                dependencies=list(deps),
                relative_time=rel,
                absolute_time=absolute,
                comparator=comparator,
            )
        )
    known = {e.event_id for e in out}
    for e in out:
        for d in e.dependencies:
            if d not in known:
                raise InputError(
                    f"dependency {d!r} is not an event of this scenario",
                    file=file,
                    event_id=e.event_id,
                    field="dependencies",
                )
    return out


def _user_details(apps: list[dict[str, Any]], *, file: str) -> UserDetails | None:
    """The contacts app's single ``is_user`` contact (None when there is none)."""
    for i, app in enumerate(apps):
        if app.get("class_name") not in ("Contacts", "ContactsApp") and app.get("name") not in (
            "Contacts",
            "ContactsApp",
        ):
            continue
        state = _mapping(app.get("app_state"))
        contacts = state.get("contacts") or {}
        if not isinstance(contacts, (dict, list)):
            raise InputError(
                f"the contacts app's contacts must be a mapping or a list, got {type(contacts).__name__}",
                file=file,
                field=f"apps.{i}.app_state.contacts",
            )
        values = contacts.values() if isinstance(contacts, dict) else contacts
        users = [c for c in values if isinstance(c, dict) and c.get("is_user")]
        if len(users) >= 1:
            u = users[0]
            return UserDetails(
                first_name=str(u.get("first_name") or ""),
                last_name=str(u.get("last_name") or ""),
                address=str(u.get("address") or ""),
            )
    return None


def scenario_from_export(data: dict[str, Any], *, file: str) -> Scenario:
    if data.get("version") != ARE_VERSION:
        raise InputError(
            f"unsupported export version {data.get('version')!r}, expected {ARE_VERSION!r}", file=file, field="version"
        )
    apps_raw = data.get("apps") or []
    if not isinstance(apps_raw, list):
        raise InputError("'apps' must be a list", file=file, field="apps")
    apps = []
    for i, a in enumerate(apps_raw):
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise InputError("each app needs a string 'name'", file=file, field=f"apps[{i}]")
        apps.append(AppInfo(name=a["name"], class_name=str(a.get("class_name") or a["name"])))
    app_classes = {a.name: a.class_name for a in apps}
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InputError("'metadata' must be an object", file=file, field="metadata")
    definition = metadata.get("definition") or {}
    if not isinstance(definition, dict):
        raise InputError("'metadata.definition' must be an object", file=file, field="metadata.definition")
    scenario_id = definition.get("scenario_id") or Path(file).stem
    start = definition.get("start_time")
    start_time = _float_or_none(start, file=file, event_id=None, field="metadata.definition.start_time")
    if start_time is None:
        raise InputError("the scenario has no start_time", file=file, field="metadata.definition.start_time")
    return Scenario(
        scenario_id=str(scenario_id),
        start_time=start_time,
        apps=apps,
        events=parse_definition(data.get("events"), app_classes, file=file),
        user=_user_details(apps_raw, file=file),
        source=file,
        metadata={
            "run_number": definition.get("run_number"),
            "tags": definition.get("tags") or [],
            "oracle_run_marked": is_oracle_run(data),
            "format": "are_export",
        },
    )


def read_export(
    data: dict[str, Any], *, file: str, oracle: dict[str, Any] | None = None, oracle_file: str | None = None
) -> Run:
    """One agent run from an ARE export (oracle side from the oracle-run export ``oracle`` when given)."""
    try:
        return _read_export(data, file=file, oracle=oracle, oracle_file=oracle_file)
    except ValidationError as exc:  # a value of the wrong type somewhere the checks above do not look
        raise InputError(f"invalid ARE export: {format_validation_error(exc)}", file=file) from None


def _read_export(data: dict[str, Any], *, file: str, oracle: dict[str, Any] | None, oracle_file: str | None) -> Run:
    scenario = scenario_from_export(data, file=file)
    app_classes = {a.name: a.class_name for a in scenario.apps}
    events = parse_completed_events(data.get("completed_events"), app_classes, file=file)
    run_number = scenario.metadata.get("run_number")
    run = Run(
        scenario=scenario,
        events=events,
        run_id=Path(file).stem,
        source=file,
        run_number=run_number if isinstance(run_number, int) else None,
        metadata={"format": "are_export"},
        # an ARE export cannot declare it is known-bad; its file name can (agent_x.xfail.json)
        expected="fail" if XFAIL_NAME_TAG in Path(file).name.lower() else None,
    )
    if oracle is not None:
        run = with_oracle_run(run, read_export(oracle, file=oracle_file or "<oracle>"))
    return run


def with_oracle_run(run: Run, oracle: Run) -> Run:
    """``run`` judged against the completed events of ``oracle`` (an oracle-run trace of the
    same scenario), without parsing either file again."""
    if oracle.scenario.scenario_id != run.scenario.scenario_id:
        raise InputError(
            f"oracle trace is for scenario {oracle.scenario.scenario_id!r}, the run for {run.scenario.scenario_id!r}",
            file=oracle.source,
            field="metadata.definition.scenario_id",
        )
    return run.model_copy(update={"scenario": run.scenario.model_copy(update={"oracle_run": oracle.events})})
