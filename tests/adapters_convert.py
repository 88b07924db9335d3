"""A run's agent events written as the logs other agent stacks produce, with their own SDK types
and serialisers (openai, anthropic, langchain-core, opentelemetry-sdk + OTLP JSON).

Tool names are written as ``tool_name(ev)``; each message carries the event's time in a
``timestamp`` field when ``timed`` (the formats have none of their own, except OTel spans).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pytest_are_judge.model import AUI_SEND_TO_USER, Event, EventType

FORMATS = ("openai_chat", "openai_responses", "anthropic", "langchain", "otel")


def _result(ev: Event) -> str:
    return json.dumps(ev.return_value, default=str) if ev.return_value is not None else ""


def _stamp(d: dict[str, Any], ev: Event, timed: bool) -> dict[str, Any]:
    if timed:
        d["timestamp"] = ev.event_time
    return d


def _kept(events: list[Event]) -> list[Event]:
    return [e for e in events if e.event_type in (EventType.USER, EventType.AGENT) and not e.failed]


def openai_chat(events: list[Event], name: Callable[[Event], str], *, timed: bool = True) -> list[dict[str, Any]]:
    from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall

    out: list[dict[str, Any]] = []
    for ev in _kept(events):
        if ev.event_type == EventType.USER:
            out.append(_stamp({"role": "user", "content": ev.args.get("content", "")}, ev, timed))
        elif ev.tool_name == AUI_SEND_TO_USER:
            msg = ChatCompletionMessage(role="assistant", content=str(ev.args.get("content", "")))
            out.append(_stamp(msg.model_dump(exclude_none=True), ev, timed))
        else:
            call = ChatCompletionMessageFunctionToolCall(
                id=ev.event_id,
                type="function",
                function={"name": name(ev), "arguments": json.dumps(ev.args, default=str)},
            )
            msg = ChatCompletionMessage(role="assistant", content=None, tool_calls=[call])
            out.append(_stamp(msg.model_dump(exclude_none=True), ev, timed))
            out.append(_stamp({"role": "tool", "tool_call_id": ev.event_id, "content": _result(ev)}, ev, timed))
    return out


def openai_responses(events: list[Event], name: Callable[[Event], str], *, timed: bool = True) -> list[dict[str, Any]]:
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    out: list[dict[str, Any]] = []
    for ev in _kept(events):
        if ev.event_type == EventType.USER:
            out.append(_stamp({"type": "message", "role": "user", "content": ev.args.get("content", "")}, ev, timed))
        elif ev.tool_name == AUI_SEND_TO_USER:
            text = ResponseOutputText(type="output_text", text=str(ev.args.get("content", "")), annotations=[])
            msg = ResponseOutputMessage(
                id=f"msg_{ev.event_id}", type="message", role="assistant", status="completed", content=[text]
            )
            out.append(_stamp(msg.model_dump(exclude_none=True), ev, timed))
        else:
            call = ResponseFunctionToolCall(
                type="function_call", call_id=ev.event_id, name=name(ev), arguments=json.dumps(ev.args, default=str)
            )
            out.append(_stamp(call.model_dump(exclude_none=True), ev, timed))
            out.append(
                _stamp({"type": "function_call_output", "call_id": ev.event_id, "output": _result(ev)}, ev, timed)
            )
    return out


def anthropic(events: list[Event], name: Callable[[Event], str], *, timed: bool = True) -> list[dict[str, Any]]:
    from anthropic.types import TextBlock, ToolUseBlock

    out: list[dict[str, Any]] = []
    for ev in _kept(events):
        if ev.event_type == EventType.USER:
            out.append(_stamp({"role": "user", "content": ev.args.get("content", "")}, ev, timed))
        elif ev.tool_name == AUI_SEND_TO_USER:
            block = TextBlock(type="text", text=str(ev.args.get("content", "")))
            out.append(_stamp({"role": "assistant", "content": [block.model_dump(exclude_none=True)]}, ev, timed))
        else:
            use = ToolUseBlock(type="tool_use", id=ev.event_id, name=name(ev), input=dict(ev.args))
            out.append(_stamp({"role": "assistant", "content": [use.model_dump(exclude_none=True)]}, ev, timed))
            result = {"type": "tool_result", "tool_use_id": ev.event_id, "content": _result(ev)}
            out.append(_stamp({"role": "user", "content": [result]}, ev, timed))
    return out


def langchain(events: list[Event], name: Callable[[Event], str], *, timed: bool = True) -> list[dict[str, Any]]:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    out: list[dict[str, Any]] = []
    for ev in _kept(events):
        if ev.event_type == EventType.USER:
            msgs: list[Any] = [HumanMessage(content=str(ev.args.get("content", "")))]
        elif ev.tool_name == AUI_SEND_TO_USER:
            msgs = [AIMessage(content=str(ev.args.get("content", "")))]
        else:
            msgs = [
                AIMessage(content="", tool_calls=[{"name": name(ev), "args": dict(ev.args), "id": ev.event_id}]),
                ToolMessage(content=_result(ev), tool_call_id=ev.event_id),
            ]
        out += [_stamp(d, ev, timed) for d in messages_to_dict(msgs)]
    return out


def otel(events: list[Event], name: Callable[[Event], str], *, timed: bool = True) -> dict[str, Any]:
    """GenAI spans made with the OpenTelemetry SDK, exported as OTLP JSON (protobuf's JSON form)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("agent")
    ns = lambda t: int(t * 1e9)  # noqa: E731
    for ev in _kept(events):
        t = ev.event_time
        if ev.event_type == EventType.USER:
            msgs = [{"role": "user", "parts": [{"type": "text", "content": ev.args.get("content", "")}]}]
            span = tracer.start_span("chat", start_time=ns(t))
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.input.messages", json.dumps(msgs))
            span.end(end_time=ns(t))
        elif ev.tool_name == AUI_SEND_TO_USER:
            msgs = [{"role": "assistant", "parts": [{"type": "text", "content": ev.args.get("content", "")}]}]
            span = tracer.start_span("chat", start_time=ns(t))
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.output.messages", json.dumps(msgs))
            span.end(end_time=ns(t))
        else:
            span = tracer.start_span(f"execute_tool {name(ev)}", start_time=ns(t))
            span.set_attribute("gen_ai.operation.name", "execute_tool")
            span.set_attribute("gen_ai.tool.name", name(ev))
            span.set_attribute("gen_ai.tool.call.id", ev.event_id)
            span.set_attribute("gen_ai.tool.call.arguments", json.dumps(ev.args, default=str))
            span.set_attribute("gen_ai.tool.call.result", _result(ev))
            span.end(end_time=ns(t))
    provider.shutdown()
    return MessageToDict(encode_spans(exporter.get_finished_spans()))


CONVERT: dict[str, Callable[..., Any]] = {
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "anthropic": anthropic,
    "langchain": langchain,
    "otel": otel,
}
