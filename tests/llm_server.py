"""A scripted OpenAI-compatible chat-completions endpoint for tests and benchmarks.

The HTTP server is pytest-httpserver's (werkzeug, threaded, on 127.0.0.1 with an ephemeral port,
so xdist workers never clash); this module only decides what each ``POST .../chat/completions``
answers, in this order:

1. :meth:`FakeLLMServer.fail_next`: the next *n* calls fail with a status;
2. :meth:`FakeLLMServer.queue`: scripted replies, first in first out;
3. :meth:`FakeLLMServer.set_rule`: a reply chosen by a substring of the last user message;
4. :attr:`FakeLLMServer.responder`: a callable ``(request_json) -> str | Reply``
   (default: :data:`DEFAULT_ANSWER`).

``{fence}`` in an answer is replaced by the call's code (see ``soft/prompts.py``): the fake
model echoes it as a compliant model does; an answer without it plays a model that does not.

litellm talks to it as to any OpenAI-compatible endpoint::

    with FakeLLMServer() as server:
        litellm.completion(model="openai/judge-model", api_base=server.base_url, api_key="x", messages=[...])
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

__all__ = ["DEFAULT_ANSWER", "FakeLLMServer", "Reply", "Responder", "fence_of", "last_user_message"]

DEFAULT_ANSWER = "[[Success]] {fence}"
logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log lines on stderr
_CODE = re.compile(r'fence="([0-9a-f]+)"|"code": "([0-9a-f]+)"')


def fence_of(request_json: Mapping[str, Any]) -> str:
    """The per-call code of a judge's request ("" if none)."""
    for message in request_json.get("messages") or []:
        m = _CODE.search(str(message.get("content", "")))
        if m:
            return m.group(1) or m.group(2)
    return ""


@dataclass(frozen=True)
class Reply:
    """One scripted answer: ``content`` (None: the responder's), an HTTP ``status`` (>= 400 is
    sent as an OpenAI-style error), a ``delay`` on top of the server's latency, a raw ``body``
    sent verbatim, extra ``headers`` (e.g. ``Retry-After``)."""

    content: str | None = None
    status: int = 200
    delay: float = 0.0
    body: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"


ReplyLike = str | Reply
Responder = Callable[[dict[str, Any]], ReplyLike]


def _as_reply(value: ReplyLike) -> Reply:
    return value if isinstance(value, Reply) else Reply(content=value)


def last_user_message(request_json: Mapping[str, Any]) -> str:
    """The text of the last ``user`` message of a chat request ("" if none)."""
    for message in reversed(request_json.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


class FakeLLMServer:
    """Start with ``with FakeLLMServer(...) as server`` (or :meth:`start` / :meth:`stop`)."""

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0) -> None:
        self.responder: Responder = responder or (lambda _req: DEFAULT_ANSWER)
        self.latency = latency
        self._http = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.reset()

    # -- lifecycle
    def start(self) -> FakeLLMServer:
        self._http.expect_request("/v1/chat/completions", method="POST").respond_with_handler(self._handle)
        self._http.expect_request("/chat/completions", method="POST").respond_with_handler(self._handle)
        self._http.start()
        return self

    def stop(self) -> None:
        if self._http.is_running():
            self._http.clear()
            self._http.stop()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return self._http.url_for("/v1")

    # -- scripting
    def queue(self, *replies: ReplyLike) -> None:
        with self._lock:
            self._queue.extend(_as_reply(r) for r in replies)

    def set_rule(self, substring: str, reply: ReplyLike) -> None:
        with self._lock:
            self._rules.append((substring, _as_reply(reply)))

    def fail_next(self, n: int = 1, status: int = 500) -> None:
        with self._lock:
            self._fail_remaining, self._fail_status = n, status

    def reset(self) -> None:
        """Forget requests, queued replies, rules and pending failures."""
        self._queue: deque[Reply] = deque()
        self._rules: list[tuple[str, Reply]] = []
        self._fail_remaining, self._fail_status = 0, 500
        self._requests: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        """``time.monotonic()`` of each request's arrival."""
        self.in_flight = 0
        self.max_in_flight = 0
        """The most requests the server was answering at once."""

    # -- what was asked
    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._requests)

    @property
    def call_count(self) -> int:
        with self._lock:
            return len(self._requests)

    # -- answering
    def _choose(self, request_json: dict[str, Any]) -> Reply:
        with self._lock:
            if self._fail_remaining > 0:
                self._fail_remaining -= 1
                return Reply(status=self._fail_status)
            if self._queue:
                return self._queue.popleft()
            text = last_user_message(request_json)
            rule = next((r for s, r in self._rules if s in text), None)
        return rule if rule is not None else _as_reply(self.responder(request_json))

    def _handle(self, request: Request) -> Response:
        request_json = json.loads(request.get_data(as_text=True))
        with self._lock:
            self._requests.append(request_json)
            self.arrivals.append(time.monotonic())
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self._choose(request_json)
            if reply.content is None and reply.body is None and reply.status < 400:
                reply = Reply(content=_as_reply(self.responder(request_json)).content, headers=reply.headers)
            time.sleep(self.latency + reply.delay)
        finally:
            with self._lock:
                self.in_flight -= 1
        headers = {"Content-Type": "application/json", **({"Retry-After": "0"} if reply.status == 429 else {})}
        headers.update(reply.headers)
        if reply.body is not None:
            return Response(reply.body, status=reply.status, headers=headers)
        if reply.status >= 400:
            error = {"message": reply.content or f"scripted error (HTTP {reply.status})", "type": "server_error"}
            return Response(json.dumps({"error": error}), status=reply.status, headers=headers)
        content = (reply.content or "").replace("{fence}", fence_of(request_json))
        prompt = sum(len(str(m.get("content", "")).split()) for m in request_json.get("messages", []))
        payload = {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request_json.get("model") or "judge-model",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": reply.finish_reason}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": len(content.split()),
                "total_tokens": prompt + len(content.split()),
            },
        }
        return Response(json.dumps(payload), status=200, headers=headers)
