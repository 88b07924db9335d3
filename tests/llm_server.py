"""A small, real OpenAI-compatible HTTP server for tests and benchmarks.

The LLM judging code talks to models through litellm. Rather than patching
anything inside litellm or our own code, tests start a :class:`FakeLLMServer`
on ``127.0.0.1`` (an ephemeral port, so parallel xdist workers never clash)
and point litellm at it::

    with FakeLLMServer() as server:
        litellm.completion(
            model="openai/judge-model",
            api_base=server.base_url,
            api_key="test",
            messages=[{"role": "user", "content": "Judge this."}],
        )
        assert server.call_count == 1

Only the standard library is used. The server answers

* ``POST /v1/chat/completions`` (and ``/chat/completions``) with a
  non-streaming chat completion, and
* ``GET /v1/models`` (and ``/models``) with the configured model list.

What a chat completion returns is decided, in this order, by:

1. :meth:`FakeLLMServer.fail_next` -- the next *n* calls fail with a status;
2. :meth:`FakeLLMServer.queue` -- scripted replies, first in first out;
3. :meth:`FakeLLMServer.set_rule` -- a reply chosen by a substring of the
   last user message (rules are tried in the order they were set);
4. :attr:`FakeLLMServer.responder` -- a callable ``(request_json) -> str | Reply``;
   by default it answers :data:`DEFAULT_ANSWER`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "DEFAULT_ANSWER",
    "DEFAULT_MODELS",
    "FakeLLMServer",
    "Reply",
    "Responder",
    "last_user_message",
]

#: The answer given when nothing else was scripted.
DEFAULT_ANSWER = "[[Success]]"

#: Model ids listed by ``GET /v1/models`` unless others are given.
DEFAULT_MODELS: tuple[str, ...] = ("judge-model",)

#: The only address the server ever binds.
_HOST = "127.0.0.1"

#: Requests with a larger body are refused with 413.
_DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    ``content``
        The assistant message text. ``None`` means "whatever the responder
        would have said" for a successful reply, or a generic message for an
        error reply.
    ``status``
        The HTTP status. Anything ``>= 400`` is sent as an OpenAI-style error
        object (``{"error": {"message", "type", "code"}}``) unless ``body`` is
        given.
    ``delay``
        Seconds to wait before answering, on top of the server's ``latency``.
    ``body``
        Raw response body sent verbatim (e.g. malformed JSON), with the given
        ``status`` and an ``application/json`` content type.
    ``headers``
        Extra response headers (they override the defaults).
    ``finish_reason``
        The choice's ``finish_reason`` for a successful reply.
    """

    content: str | None = None
    status: int = 200
    delay: float = 0.0
    body: str | bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"

    def __post_init__(self) -> None:
        if not 100 <= self.status <= 599:
            raise ValueError(f"HTTP status out of range: {self.status}")
        if self.delay < 0:
            raise ValueError(f"delay must be >= 0, got {self.delay}")


#: What a responder, a rule or the queue may hold.
ReplyLike = str | Reply
Responder = Callable[[dict[str, Any]], ReplyLike]


def _default_responder(request_json: dict[str, Any]) -> ReplyLike:
    return DEFAULT_ANSWER


def _as_reply(value: ReplyLike) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply(content=value)
    raise TypeError(f"expected str or Reply, got {type(value).__name__}")


def _text_of(content: Any) -> str:
    """The text of a message ``content`` (a string or a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
        return "\n".join(pieces)
    return str(content)


def last_user_message(request_json: Mapping[str, Any]) -> str:
    """The text of the last ``user`` message of a chat request ("" if none)."""
    messages = request_json.get("messages")
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _text_of(message.get("content"))
    return ""


def _rough_tokens(text: str) -> int:
    # A stable, cheap stand-in for a tokenizer: good enough for usage fields.
    return len(text.split())


def _error_type(status: int) -> str:
    if status == 429:
        return "rate_limit_error"
    if status in (401, 403):
        return "authentication_error"
    if status == 404:
        return "not_found_error"
    if 400 <= status < 500:
        return "invalid_request_error"
    return "server_error"


class _Stopped(Exception):
    """Raised inside a handler when the server stops during a delay."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # Benchmarks open many connections at once; the stdlib default of 5 can
    # make the kernel drop SYNs and add whole seconds of retransmit delay.
    request_queue_size = 128

    owner: FakeLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Never print tracebacks to stderr (e.g. a client that went away
        # during a scripted delay). Keep them for inspection instead.
        import sys

        exc = sys.exc_info()[1]
        if exc is not None and not isinstance(exc, (_Stopped, ConnectionError)):
            self.owner._record_error(exc)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"
    server_version = "FakeLLMServer/1.0"
    sys_version = ""
    # A client that connects and sends nothing does not hold a thread forever.
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:
        return None

    # -- helpers -----------------------------------------------------------

    def _send(
        self,
        status: int,
        body: bytes,
        headers: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        merged = {"Content-Type": content_type, "Content-Length": str(len(body))}
        for key, value in (headers or {}).items():
            for existing in list(merged):
                if existing.lower() == key.lower():
                    del merged[existing]
            merged[key] = value
        self.send_response(status)
        for key, value in merged.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send(status, json.dumps(payload).encode("utf-8"), headers)

    def _send_error_json(
        self,
        status: int,
        message: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        payload = {
            "error": {
                "message": message,
                "type": _error_type(status),
                "param": None,
                "code": str(status),
            }
        }
        self._send_json(status, payload, headers)

    def _path(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path or "/"

    # -- verbs -------------------------------------------------------------

    def do_GET(self) -> None:
        owner = self.server.owner
        owner._wait(owner.latency)
        if self._path() in ("/v1/models", "/models"):
            self._send_json(200, owner._models_payload())
        else:
            self._send_error_json(404, f"no such endpoint: GET {self._path()}")

    def do_POST(self) -> None:
        owner = self.server.owner
        if self._path() not in ("/v1/chat/completions", "/chat/completions"):
            owner._wait(owner.latency)
            self._send_error_json(404, f"no such endpoint: POST {self._path()}")
            return

        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if length < 0:
            self._send_error_json(400, "invalid Content-Length header")
            return
        if length > owner.max_body_bytes:
            self._send_error_json(413, f"request body of {length} bytes exceeds {owner.max_body_bytes}")
            return
        raw = self.rfile.read(length) if length else b""
        try:
            request_json = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            owner._wait(owner.latency)
            self._send_error_json(400, f"request body is not valid JSON: {exc}")
            return
        if not isinstance(request_json, dict):
            owner._wait(owner.latency)
            self._send_error_json(400, "request body must be a JSON object")
            return

        owner._record_request(request_json, dict(self.headers.items()))

        if request_json.get("stream"):
            owner._wait(owner.latency)
            self._send_error_json(
                400,
                "FakeLLMServer supports only non-streaming chat completions (stream=false); got stream=true",
            )
            return
        if not isinstance(request_json.get("messages"), list):
            owner._wait(owner.latency)
            self._send_error_json(400, "'messages' must be a list")
            return

        try:
            reply = owner._choose_reply(request_json)
        except Exception as exc:  # a broken responder should fail loudly, not hang
            owner._record_error(exc)
            owner._wait(owner.latency)
            self._send_error_json(500, f"FakeLLMServer responder raised {type(exc).__name__}: {exc}")
            return

        owner._wait(owner.latency + reply.delay)

        if reply.body is not None:
            body = reply.body.encode("utf-8") if isinstance(reply.body, str) else reply.body
            self._send(reply.status, body, reply.headers)
        elif reply.status >= 400:
            message = reply.content or f"FakeLLMServer scripted error (HTTP {reply.status})"
            headers = {"Retry-After": "0"} if reply.status == 429 else {}
            headers.update(reply.headers)
            self._send_error_json(reply.status, message, headers)
        else:
            self._send_json(
                reply.status,
                owner._completion_payload(request_json, reply),
                reply.headers,
            )

    def do_HEAD(self) -> None:
        self.do_GET()


class FakeLLMServer:
    """A real local OpenAI-compatible chat-completions server.

    Use it as a context manager or call :meth:`start` / :meth:`stop`. It
    binds ``127.0.0.1`` only, on an ephemeral port unless ``port`` is given.

    ``responder``
        ``(request_json) -> str | Reply``; defaults to answering
        :data:`DEFAULT_ANSWER`. May be reassigned at any time.
    ``latency``
        Seconds added to every request (may be changed at any time).
    ``models``
        Model ids listed by ``GET /v1/models``.
    ``max_body_bytes``
        Larger request bodies are refused with HTTP 413.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        models: Iterable[str] = DEFAULT_MODELS,
        port: int = 0,
        max_body_bytes: int = _DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        if latency < 0:
            raise ValueError(f"latency must be >= 0, got {latency}")
        self.responder: Responder = responder or _default_responder
        self.latency: float = latency
        self.models: tuple[str, ...] = tuple(models) or DEFAULT_MODELS
        self.max_body_bytes = max_body_bytes
        self._port_wanted = port

        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)

        self._queue: deque[Reply] = deque()
        self._rules: list[tuple[str, Reply]] = []
        self._fail_remaining = 0
        self._fail_status = 500
        self._requests: list[dict[str, Any]] = []
        self._headers: list[dict[str, str]] = []
        self._errors: list[BaseException] = []

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> FakeLLMServer:
        """Bind and start serving in a daemon thread. Returns ``self``."""
        if self._httpd is not None:
            raise RuntimeError("FakeLLMServer is already running")
        httpd = _HTTPServer((_HOST, self._port_wanted), _Handler)
        httpd.owner = self
        self._stopping.clear()
        thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"FakeLLMServer:{httpd.server_address[1]}",
            daemon=True,
        )
        self._httpd, self._thread = httpd, thread
        thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket. Safe to call more than once."""
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        self._stopping.set()  # wake handlers sleeping in a delay
        httpd.shutdown()
        httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeLLMServer is not running; call start() first")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no ``/v1``)."""
        return f"http://{_HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    # -- scripting ---------------------------------------------------------

    def queue(self, *replies: ReplyLike) -> None:
        """Append replies, used first-in first-out before rules and responder."""
        converted = [_as_reply(r) for r in replies]
        with self._lock:
            self._queue.extend(converted)

    def set_rule(self, substring: str, reply: ReplyLike) -> None:
        """Answer ``reply`` whenever the last user message contains ``substring``.

        Setting a rule again for the same substring replaces it. Rules are
        tried in the order they were first set.
        """
        converted = _as_reply(reply)
        with self._lock:
            for index, (existing, _) in enumerate(self._rules):
                if existing == substring:
                    self._rules[index] = (substring, converted)
                    return
            self._rules.append((substring, converted))

    def clear_rules(self) -> None:
        with self._lock:
            self._rules.clear()

    def fail_next(self, n: int = 1, status: int = 500) -> None:
        """Make the next ``n`` chat completions fail with ``status``.

        This takes precedence over the queue, rules and responder, and does
        not consume queued replies.
        """
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        if not 400 <= status <= 599:
            raise ValueError(f"status must be an HTTP error status, got {status}")
        with self._lock:
            self._fail_remaining = n
            self._fail_status = status

    def reset(self) -> None:
        """Forget recorded requests and errors, and drop all scripting.

        The responder goes back to the default, ``latency`` to 0.
        """
        with self._lock:
            self._queue.clear()
            self._rules.clear()
            self._fail_remaining = 0
            self._fail_status = 500
            self._requests.clear()
            self._headers.clear()
            self._errors.clear()
        self.responder = _default_responder
        self.latency = 0.0

    # -- records -----------------------------------------------------------

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A snapshot of every chat-completion request body received, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """The headers of each recorded request, parallel to :attr:`requests`."""
        with self._lock:
            return [dict(h) for h in self._headers]

    @property
    def call_count(self) -> int:
        """How many chat-completion requests were received (failed ones too)."""
        with self._lock:
            return len(self._requests)

    @property
    def last_request(self) -> dict[str, Any] | None:
        with self._lock:
            return self._requests[-1] if self._requests else None

    @property
    def errors(self) -> list[BaseException]:
        """Exceptions raised by the responder or while handling a request."""
        with self._lock:
            return list(self._errors)

    @property
    def pending_replies(self) -> int:
        """How many queued replies are still unused."""
        with self._lock:
            return len(self._queue)

    # -- used by the handler -------------------------------------------------

    def _record_request(self, request_json: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self._requests.append(request_json)
            self._headers.append(headers)

    def _record_error(self, exc: BaseException) -> None:
        with self._lock:
            self._errors.append(exc)

    def _wait(self, seconds: float) -> None:
        if seconds > 0 and self._stopping.wait(seconds):
            raise _Stopped()

    def _choose_reply(self, request_json: dict[str, Any]) -> Reply:
        with self._lock:
            if self._fail_remaining > 0:
                self._fail_remaining -= 1
                return Reply(status=self._fail_status)
            if self._queue:
                reply = self._queue.popleft()
            else:
                reply = None
                text = last_user_message(request_json)
                for substring, rule_reply in self._rules:
                    if substring in text:
                        reply = rule_reply
                        break
        if reply is None:
            reply = _as_reply(self.responder(request_json))
        if reply.content is None and reply.body is None and reply.status < 400:
            fallback = _as_reply(self.responder(request_json))
            content = fallback.content if fallback.content is not None else DEFAULT_ANSWER
            reply = Reply(
                content=content,
                status=reply.status,
                delay=reply.delay,
                headers=reply.headers,
                finish_reason=reply.finish_reason,
            )
        return reply

    def _completion_payload(self, request_json: dict[str, Any], reply: Reply) -> dict[str, Any]:
        content = reply.content or ""
        prompt_text = " ".join(_text_of(m.get("content")) for m in request_json["messages"] if isinstance(m, dict))
        prompt_tokens = _rough_tokens(prompt_text)
        completion_tokens = _rough_tokens(content)
        model = request_json.get("model")
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model if isinstance(model, str) and model else self.models[0],
            "system_fingerprint": "fake-llm-server",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "logprobs": None,
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _models_payload(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": m, "object": "model", "created": 0, "owned_by": "pytest-are-judge"} for m in self.models],
        }

    def __repr__(self) -> str:
        where = self.base_url if self.running else "stopped"
        return f"<FakeLLMServer {where} calls={self.call_count}>"
