"""Agent logs in the formats agents already write, read into native agent events.

Formats (auto-detected, or named with ``format:`` on a native run):

- ``openai_chat``: OpenAI Chat Completions messages (assistant ``tool_calls`` with JSON-string
  ``arguments``; ``tool`` messages carry the results);
- ``openai_responses``: OpenAI Responses items (``message``, ``function_call``,
  ``function_call_output``);
- ``anthropic``: Anthropic Messages (``text``, ``tool_use`` and ``tool_result`` blocks);
- ``langchain``: LangChain / LangGraph messages serialised by ``messages_to_dict`` (or their
  ``model_dump()``: ``type`` human / ai / tool / system);
- ``otel``: an OTLP JSON export of OpenTelemetry GenAI spans (``execute_tool`` spans: tool name,
  call id, arguments and result; ``chat`` spans: the first user message and the final answer).

The first user message becomes the user event; an assistant message with text and no tool call
is a message to the user (``send_message_to_user``); every tool call is an agent event whose
return value is its result, so ``{{placeholders}}`` resolve.  A ``tool_map`` maps the agent's tool
and argument names to the oracle's; a tool named ``App__function`` (ARE's naming) needs no entry;
any other unmapped tool stays a call of its own (``unmapped.<name>``), counted and named in a
failure like any other.

Times: a message may carry ``timestamp``/``created_at``/``time`` (seconds or ISO 8601), and OTel
spans always do.  A log without times gets its events in order, and the judge reports time checks
as not checked (``Run.metadata["timestamps"] is False``), never passed or failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from ..errors import InputError
from ..model import AUI_APP

FORMATS = ("openai_chat", "openai_responses", "anthropic", "langchain", "otel")
UNMAPPED_APP = "unmapped"
USER_TOOL = f"{AUI_APP}.send_message_to_agent"
REPLY_TOOL = f"{AUI_APP}.send_message_to_user"

Step = dict[str, Any]
"""``{"kind": "user"|"tool"|"reply", "name", "args", "result", "error", "id", "time"}``"""


# ------------------------------------------------------------------ detection
def _unwrap(data: Any) -> Any:
    """The message/item list of a log saved as ``{"messages"|"input"|"output"|"items": [...]}``."""
    if isinstance(data, dict):
        for key in ("messages", "input", "output", "items"):
            if isinstance(data.get(key), list):
                return data[key]
    return data


def detect(data: Any) -> str | None:
    """The format of a parsed log, or None when it is none of :data:`FORMATS`."""
    if isinstance(data, dict):
        if "resourceSpans" in data:
            return "otel"
        inner = _unwrap(data)
        return None if inner is data else detect(inner)
    if not isinstance(data, list) or not data or not all(isinstance(m, dict) for m in data):
        return None
    if any(m.get("type") in ("function_call", "function_call_output") for m in data):
        return "openai_responses"
    if any(m.get("type") in ("human", "ai", "tool") and ("data" in m or "content" in m) for m in data):
        return "langchain"
    if all("role" in m for m in data):
        for m in data:
            content = m.get("content")
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in content
            ):
                return "anthropic"
            if m.get("role") == "tool" or "tool_calls" in m:
                return "openai_chat"
        if any(m.get("type") == "message" for m in data):
            return "openai_responses"
        return "openai_chat"
    return None


# ------------------------------------------------------------------ helpers
def _time(m: dict[str, Any]) -> float | None:
    for key in ("timestamp", "created_at", "time"):
        v = m.get(key)
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            return float(v) / 1000.0 if v > 1e11 else float(v)  # milliseconds
        if isinstance(v, str):
            try:
                return datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for b in content:
            if isinstance(b, str):
                parts.append(b)
            elif isinstance(b, dict) and b.get("type") in ("text", "input_text", "output_text") and "text" in b:
                parts.append(str(b["text"]))
        return "".join(parts)
    return ""


def _args(raw: Any, *, file: str, where: str) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if raw in (None, ""):
        return {}
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            raise InputError(f"tool arguments are not JSON: {raw[:80]!r}", file=file, field=where) from None
        if isinstance(parsed, dict):
            return parsed
    raise InputError(f"tool arguments must be a JSON object, got {type(raw).__name__}", file=file, field=where)


def _result(raw: Any) -> Any:
    """A tool result: JSON text decoded (so ``{{id.key}}`` placeholders can walk it)."""
    if isinstance(raw, list):  # content blocks
        raw = _text(raw) if all(isinstance(b, dict) and "text" in b for b in raw) else raw
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _attach_results(steps: list[Step], results: dict[Any, tuple[Any, bool]]) -> None:
    for s in steps:
        if s["kind"] == "tool" and s.get("id") in results:
            value, is_error = results[s["id"]]
            if is_error:
                s["error"] = str(value)[:500] or "error"
            else:
                s["result"] = value


# ------------------------------------------------------------------ the formats
def _openai_chat(data: list[dict[str, Any]], file: str) -> list[Step]:
    steps: list[Step] = []
    results: dict[Any, tuple[Any, bool]] = {}
    for i, m in enumerate(data):
        role, t = m.get("role"), _time(m)
        if role == "user":
            steps.append({"kind": "user", "text": _text(m.get("content")), "time": t})
        elif role == "assistant":
            calls = m.get("tool_calls") or []
            for c in calls:
                fn = c.get("function") or {}
                steps.append(
                    {
                        "kind": "tool",
                        "name": fn.get("name"),
                        "args": _args(fn.get("arguments"), file=file, where=f"messages[{i}].tool_calls"),
                        "id": c.get("id"),
                        "time": t,
                    }
                )
            text = _text(m.get("content"))
            if text and not calls:
                steps.append({"kind": "reply", "text": text, "time": t})
        elif role == "tool":
            results[m.get("tool_call_id")] = (_result(m.get("content")), False)
    _attach_results(steps, results)
    return steps


def _openai_responses(data: list[dict[str, Any]], file: str) -> list[Step]:
    steps: list[Step] = []
    results: dict[Any, tuple[Any, bool]] = {}
    for i, m in enumerate(data):
        kind, t = m.get("type", "message"), _time(m)
        if kind == "message":
            text = _text(m.get("content"))
            if m.get("role") == "user":
                steps.append({"kind": "user", "text": text, "time": t})
            elif m.get("role") == "assistant" and text:
                steps.append({"kind": "reply", "text": text, "time": t})
        elif kind == "function_call":
            steps.append(
                {
                    "kind": "tool",
                    "name": m.get("name"),
                    "args": _args(m.get("arguments"), file=file, where=f"items[{i}].arguments"),
                    "id": m.get("call_id"),
                    "time": t,
                }
            )
        elif kind == "function_call_output":
            results[m.get("call_id")] = (_result(m.get("output")), False)
    _attach_results(steps, results)
    return steps


def _anthropic(data: list[dict[str, Any]], file: str) -> list[Step]:
    steps: list[Step] = []
    results: dict[Any, tuple[Any, bool]] = {}
    for m in data:
        role, t, content = m.get("role"), _time(m), m.get("content")
        blocks: list[Any] = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        if role == "user":
            text = _text(blocks)
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    results[b.get("tool_use_id")] = (_result(b.get("content")), bool(b.get("is_error")))
            if text:
                steps.append({"kind": "user", "text": text, "time": t})
        elif role == "assistant":
            uses = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
            for b in uses:
                steps.append(
                    {
                        "kind": "tool",
                        "name": b.get("name"),
                        "args": dict(b.get("input") or {}),
                        "id": b.get("id"),
                        "time": t,
                    }
                )
            text = _text(blocks)
            if text and not uses:
                steps.append({"kind": "reply", "text": text, "time": t})
    _attach_results(steps, results)
    return steps


def _langchain(data: list[dict[str, Any]], file: str) -> list[Step]:
    steps: list[Step] = []
    results: dict[Any, tuple[Any, bool]] = {}
    for m in data:
        d = m.get("data", m)
        kind, t = m.get("type") or d.get("type"), _time(d) or _time(m)
        if kind == "human":
            steps.append({"kind": "user", "text": _text(d.get("content")), "time": t})
        elif kind == "ai":
            calls = d.get("tool_calls") or []
            for c in calls:
                steps.append(
                    {
                        "kind": "tool",
                        "name": c.get("name"),
                        "args": dict(c.get("args") or {}),
                        "id": c.get("id"),
                        "time": t,
                    }
                )
            text = _text(d.get("content"))
            if text and not calls:
                steps.append({"kind": "reply", "text": text, "time": t})
        elif kind == "tool":
            results[d.get("tool_call_id")] = (_result(d.get("content")), d.get("status") == "error")
    _attach_results(steps, results)
    return steps


def _otel_value(v: dict[str, Any]) -> Any:
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        return int(v["intValue"])
    if "arrayValue" in v:
        return [_otel_value(x) for x in v["arrayValue"].get("values", [])]
    return None


def _otel(data: dict[str, Any], file: str) -> list[Step]:
    spans = [
        span
        for rs in data.get("resourceSpans") or []
        for ss in rs.get("scopeSpans") or []
        for span in ss.get("spans") or []
    ]
    spans.sort(key=lambda s: int(s.get("startTimeUnixNano") or 0))
    steps: list[Step] = []
    seen_user = False
    for span in spans:
        attrs = {a.get("key"): _otel_value(a.get("value") or {}) for a in span.get("attributes") or []}
        t = int(span.get("startTimeUnixNano") or 0) / 1e9
        op = attrs.get("gen_ai.operation.name")
        if op == "execute_tool":
            failed = (span.get("status") or {}).get("code") in (2, "STATUS_CODE_ERROR")
            steps.append(
                {
                    "kind": "tool",
                    "name": attrs.get("gen_ai.tool.name"),
                    "args": _args(attrs.get("gen_ai.tool.call.arguments"), file=file, where=f"span {span.get('name')}"),
                    "id": attrs.get("gen_ai.tool.call.id"),
                    "result": _result(attrs.get("gen_ai.tool.call.result")),
                    "error": (span.get("status") or {}).get("message") or "error" if failed else None,
                    "time": t,
                }
            )
        elif op in ("chat", "invoke_agent"):
            if not seen_user:
                for msg in _messages(attrs.get("gen_ai.input.messages")):
                    if msg.get("role") == "user":
                        steps.append({"kind": "user", "text": _parts_text(msg), "time": t})
                        seen_user = True
                        break
            for msg in _messages(attrs.get("gen_ai.output.messages")):
                parts = msg.get("parts") or []
                if msg.get("role") == "assistant" and not any(p.get("type") == "tool_call" for p in parts):
                    text = _parts_text(msg)
                    if text:
                        end = int(span.get("endTimeUnixNano") or span.get("startTimeUnixNano") or 0) / 1e9
                        steps.append({"kind": "reply", "text": text, "time": end})
    return steps


def _messages(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return []
    return [m for m in raw if isinstance(m, dict)] if isinstance(raw, list) else []


def _parts_text(msg: dict[str, Any]) -> str:
    if isinstance(msg.get("content"), str):
        return str(msg["content"])
    return "".join(str(p.get("content", "")) for p in msg.get("parts") or [] if p.get("type") == "text")


_READERS: dict[str, Callable[[Any, str], list[Step]]] = {
    "openai_chat": _openai_chat,
    "openai_responses": _openai_responses,
    "anthropic": _anthropic,
    "langchain": _langchain,
    "otel": _otel,
}


# ------------------------------------------------------------------ into native events
def map_tool(name: str, args: dict[str, Any], tool_map: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The oracle's ``App.function`` and argument names for an agent's tool call."""
    entry = tool_map.get(name)
    if isinstance(entry, str):
        return entry, args
    if isinstance(entry, dict):
        renames = entry.get("args") or {}
        return str(entry["tool"]), {renames.get(k, k): v for k, v in args.items()}
    if "__" in name:
        app, fn = name.split("__", 1)
        return f"{app}.{fn}", args
    if "." in name:
        return name, args
    return f"{UNMAPPED_APP}.{name}", args


def check_tool_map(tool_map: Any, *, file: str) -> dict[str, Any]:
    """``{agent tool: "App.function" | {tool: "App.function", args: {agent arg: oracle arg}}}``."""
    if tool_map is None:
        return {}
    if not isinstance(tool_map, dict):
        raise InputError("tool_map must map agent tool names to oracle tools", file=file, field="tool_map")
    for name, entry in tool_map.items():
        where = f"tool_map.{name}"
        if isinstance(entry, str):
            target = entry
        elif isinstance(entry, dict) and isinstance(entry.get("tool"), str):
            target = entry["tool"]
            extra = set(entry) - {"tool", "args"}
            if extra or not isinstance(entry.get("args", {}), dict):
                raise InputError(
                    "an entry is {tool: App.function, args: {agent arg: oracle arg}}", file=file, field=where
                )
        else:
            raise InputError("an entry is 'App.function' or {tool: App.function, args: {...}}", file=file, field=where)
        if "." not in target:
            raise InputError(f"{target!r} is not 'App.function'", file=file, field=where)
    return tool_map


def read_log(
    data: Any,
    *,
    file: str,
    fmt: str | None = None,
    tool_map: dict[str, Any] | None = None,
    start_time: float = 0.0,
    user_ids: list[str] | None = None,
    apps: dict[str, str] | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """Native agent events (mappings) of a log in one of :data:`FORMATS`, and whether the log has
    times.  The k-th user message takes the id of the scenario's k-th user event (``user_ids``:
    user events are matched by id).  Raises :class:`InputError` naming the file when the format
    is unknown or the log bad."""
    fmt = fmt or detect(data)
    if fmt is None or fmt not in _READERS:
        raise InputError(
            f"not an agent log in a known format (formats: {', '.join(FORMATS)}, or native events)", file=file
        )
    try:
        steps = _READERS[fmt](data if fmt == "otel" else _unwrap(data), file)
    except (AttributeError, TypeError, KeyError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"not a valid {fmt} log: {type(exc).__name__}: {exc}", file=file) from None
    timed = bool(steps) and all(s.get("time") is not None for s in steps)
    events = events_from_steps(
        steps, tool_map or {}, timed=timed, start_time=start_time, file=file, apps=apps or {}, user_ids=user_ids
    )
    return events, timed


def operation(tool: str, apps: dict[str, str]) -> str:
    """``read`` or ``write`` for ``App.function``: ARE's signatures, else the name rule."""
    from ..checkers._optypes import infer_operation_type
    from ..checkers._signatures import signature

    app, fn = tool.split(".", 1)
    sig = signature(apps.get(app, app), fn)
    if sig is not None and sig.operation_type:
        return sig.operation_type.lower()
    return infer_operation_type(f"{apps.get(app, app)}__{fn}", fn, frozenset()).value.lower()


def events_from_steps(
    steps: Iterable[Step],
    tool_map: dict[str, Any],
    *,
    timed: bool,
    start_time: float,
    file: str,
    apps: dict[str, str],
    user_ids: list[str] | None = None,
) -> list[dict[str, Any]]:
    """Native agent events of ``steps`` (what a log reader or a :class:`~..recorder.Recorder`
    saw): the k-th user message takes ``user_ids[k]``, tool calls go through ``tool_map``."""
    out: list[dict[str, Any]] = []
    users = iter(user_ids or [])
    for n, s in enumerate(steps):
        # without times: events in order, one millisecond apart (time checks are not made)
        t = float(s["time"]) if timed else start_time + (n + 1) / 1000.0
        if s["kind"] == "user":
            uid = next(users, f"user_{n}")
            out.append({"id": uid, "type": "user", "tool": USER_TOOL, "args": {"content": s["text"]}, "time": t})
        elif s["kind"] == "reply":
            out.append({"id": f"reply_{n}", "tool": REPLY_TOOL, "args": {"content": s["text"]}, "time": t})
        else:
            name = s.get("name")
            if not isinstance(name, str) or not name:
                raise InputError("a tool call without a tool name", file=file, event_id=s.get("id"))
            tool, args = map_tool(name, s.get("args") or {}, tool_map)
            ev: dict[str, Any] = {
                "id": str(s.get("id") or f"call_{n}"),
                "tool": tool,
                "args": args,
                "time": t,
                "operation": operation(tool, apps),
            }
            if s.get("result") is not None:
                ev["returns"] = s["result"]
            if s.get("error"):
                ev["error"] = s["error"]
            out.append(ev)
    return out
