"""Tests of the local OpenAI-compatible server used by the LLM-judge tests.

Everything goes over real HTTP on 127.0.0.1: plain ``urllib`` for the wire
format, and litellm's ``openai/`` provider for the real client path.
"""

from __future__ import annotations

import os

# Before litellm is imported anywhere in this process: use the bundled model
# cost map instead of fetching it from GitHub in a background thread, and
# do not load a ``.env`` file from the working tree (litellm does that in
# its default "DEV" mode).
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

import asyncio
import ipaddress
import json
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from llm_server import DEFAULT_ANSWER, FakeLLMServer, Reply, last_user_message


@pytest.fixture
def fake_llm_server() -> Iterator[FakeLLMServer]:
    """A started :class:`FakeLLMServer` on an ephemeral 127.0.0.1 port, stopped afterwards."""
    with FakeLLMServer() as server:
        yield server


litellm = pytest.importorskip("litellm")
openai = pytest.importorskip("openai")  # installed with litellm
litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banner on stdout

# litellm's response models trip a pydantic UserWarning the first time they
# are built ("... is using the `ReadOnly` qualifier ..."). It is litellm's,
# not ours; under ``-W error`` it would fail the first litellm call.
pytestmark = pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier:UserWarning")

# ---------------------------------------------------------------------------
# A record of every outbound connection attempt that is not to loopback.
# Audit hooks only observe; nothing is patched.

_EXTERNAL_ATTEMPTS: list[tuple[str, str]] = []


def _is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return True  # AF_UNIX paths and the like
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.getaddrinfo":
        host = args[0]
    elif event == "socket.connect":
        address = args[1]
        host = address[0] if isinstance(address, tuple) else address
    else:
        return
    if not _is_loopback(host):
        _EXTERNAL_ATTEMPTS.append((event, repr(host)))


sys.addaudithook(_audit)

MESSAGES = [
    {"role": "system", "content": "You are a strict judge."},
    {"role": "user", "content": "Did the agent book the flight? Answer [[Success]] or [[Failure]]."},
]


def _completion(server: FakeLLMServer, **overrides: Any) -> Any:
    kwargs: dict[str, Any] = {
        "model": "openai/judge-model",
        "api_base": server.base_url,
        "api_key": "test",
        "messages": MESSAGES,
        "max_retries": 0,
        "num_retries": 0,
    }
    kwargs.update(overrides)
    return litellm.completion(**kwargs)


def _run(coro: Any) -> Any:
    """Run a coroutine like ``asyncio.run``, without touching the thread's loop.

    litellm's *sync* ``completion`` calls ``asyncio.get_event_loop()``, which on
    Python 3.11 creates and installs a main-thread loop that litellm never
    closes. ``asyncio.run`` ends with ``set_event_loop(None)``, orphaning that
    loop, and its collection raises "unclosed event loop" ResourceWarnings in
    some unrelated test. A runner with its own loop factory leaves the
    thread's loop alone, and still cancels litellm's background logging task
    before closing its loop.
    """
    with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:
        return runner.run(coro)


def _post(url: str, payload: Any, *, raw: bytes | None = None) -> tuple[int, dict[str, Any] | str]:
    data = raw if raw is not None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as err:
        status, body = err.code, err.read()
    try:
        return status, json.loads(body)
    except json.JSONDecodeError:
        return status, body.decode("utf-8", "replace")


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


# ---------------------------------------------------------------------------
# (1) The wire format, over plain urllib.


def test_chat_completion_schema_over_urllib(fake_llm_server: FakeLLMServer) -> None:
    server = fake_llm_server
    assert server.base_url == f"http://127.0.0.1:{server.port}/v1"

    status, body = _post(f"{server.base_url}/chat/completions", {"model": "judge-model", "messages": MESSAGES})
    assert status == 200
    assert isinstance(body, dict)
    assert body["id"].startswith("chatcmpl-")
    assert body["object"] == "chat.completion"
    assert isinstance(body["created"], int)
    assert body["model"] == "judge-model"
    [choice] = body["choices"]
    assert choice["index"] == 0
    assert choice["message"] == {"role": "assistant", "content": DEFAULT_ANSWER}
    assert choice["finish_reason"] == "stop"
    usage = body["usage"]
    assert set(usage) >= {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0

    # The path without /v1 works too, and ids differ between calls.
    status, again = _post(f"{server.url}/chat/completions", {"model": "judge-model", "messages": MESSAGES})
    assert status == 200 and isinstance(again, dict)
    assert again["id"] != body["id"]

    assert server.call_count == 2
    assert server.requests[0] == {"model": "judge-model", "messages": MESSAGES}


def test_models_endpoint(fake_llm_server: FakeLLMServer) -> None:
    status, body = _get(f"{fake_llm_server.base_url}/models")
    assert status == 200
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == ["judge-model"]
    assert all(m["object"] == "model" for m in body["data"])
    # Listing models is not a chat call.
    assert fake_llm_server.call_count == 0


def test_stream_true_is_refused_clearly(fake_llm_server: FakeLLMServer) -> None:
    status, body = _post(
        f"{fake_llm_server.base_url}/chat/completions",
        {"model": "judge-model", "messages": MESSAGES, "stream": True},
    )
    assert status == 400
    assert isinstance(body, dict)
    assert "stream=false" in body["error"]["message"]


def test_bad_requests(fake_llm_server: FakeLLMServer) -> None:
    base = fake_llm_server.base_url
    status, body = _post(f"{base}/chat/completions", None, raw=b"{nope")
    assert status == 400 and "not valid JSON" in body["error"]["message"]  # type: ignore[index]
    status, body = _post(f"{base}/chat/completions", {"model": "m"})
    assert status == 400 and "messages" in body["error"]["message"]  # type: ignore[index]
    status, body = _post(f"{base}/embeddings", {"input": "x"})
    assert status == 404
    status, body = _get(f"{base}/nothing-here")
    assert status == 404


def test_body_size_is_bounded() -> None:
    with FakeLLMServer(max_body_bytes=1024) as server:
        big = {"model": "m", "messages": [{"role": "user", "content": "x" * 4096}]}
        status, _ = _post(f"{server.base_url}/chat/completions", big)
        assert status == 413
        assert server.call_count == 0


def test_binds_loopback_on_an_ephemeral_port() -> None:
    with FakeLLMServer() as one, FakeLLMServer() as two:
        assert one.port != two.port
        assert one.port > 0 and two.port > 0
        assert one.url.startswith("http://127.0.0.1:")
        # A plain TCP connection to the loopback port is accepted.
        with socket.create_connection(("127.0.0.1", one.port), timeout=5):
            pass


def test_lifecycle() -> None:
    server = FakeLLMServer()
    assert not server.running
    with pytest.raises(RuntimeError):
        _ = server.base_url
    server.start()
    try:
        with pytest.raises(RuntimeError):
            server.start()
        port = server.port
        assert _get(f"{server.base_url}/models")[0] == 200
    finally:
        server.stop()
    server.stop()  # idempotent
    assert not server.running
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_stop_does_not_wait_for_a_delayed_reply() -> None:
    server = FakeLLMServer().start()
    server.queue(Reply(delay=30))
    url = f"{server.base_url}/chat/completions"
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(_post(url, {"model": "m", "messages": MESSAGES}))
        except Exception as exc:  # connection closed under us: expected
            outcome.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    deadline = time.monotonic() + 5
    while server.call_count == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 5
    worker.join(timeout=5)
    assert not worker.is_alive()


# ---------------------------------------------------------------------------
# Scripting: responder, queue, rules, fail_next, reset.


def test_responder_queue_and_rules(fake_llm_server: FakeLLMServer) -> None:
    server = fake_llm_server
    url = f"{server.base_url}/chat/completions"

    def ask(text: str) -> str:
        status, body = _post(url, {"model": "m", "messages": [{"role": "user", "content": text}]})
        assert status == 200, body
        return body["choices"][0]["message"]["content"]  # type: ignore[index]

    server.responder = lambda req: f"echo: {last_user_message(req)}"
    assert ask("hello") == "echo: hello"

    server.set_rule("flight", "[[Failure]]")
    server.set_rule("hotel", Reply(content="[[Success]] hotel"))
    assert ask("the flight was booked") == "[[Failure]]"
    assert ask("the hotel too") == "[[Success]] hotel"
    server.set_rule("flight", "[[Success]] flight")  # replaces the rule
    assert ask("flight again") == "[[Success]] flight"

    server.queue("first", Reply(content="second"), Reply(delay=0.01))
    assert server.pending_replies == 3
    assert ask("flight") == "first"  # the queue beats the rules
    assert ask("anything") == "second"
    # A queued reply with no content takes the responder's text.
    assert ask("third") == "echo: third"
    assert server.pending_replies == 0
    assert ask("flight") == "[[Success]] flight"

    server.clear_rules()
    assert ask("flight") == "echo: flight"

    server.reset()
    assert server.call_count == 0 and server.requests == []
    assert ask("anything") == DEFAULT_ANSWER


def test_multipart_user_content_is_matched(fake_llm_server: FakeLLMServer) -> None:
    server = fake_llm_server
    server.set_rule("needle", "found")
    message = {"role": "user", "content": [{"type": "text", "text": "a needle here"}]}
    status, body = _post(f"{server.base_url}/chat/completions", {"model": "m", "messages": [message]})
    assert status == 200
    assert body["choices"][0]["message"]["content"] == "found"  # type: ignore[index]


def test_fail_next_takes_precedence_and_runs_out(fake_llm_server: FakeLLMServer) -> None:
    server = fake_llm_server
    url = f"{server.base_url}/chat/completions"
    payload = {"model": "m", "messages": MESSAGES}
    server.queue("queued")
    server.fail_next(2, status=503)
    assert _post(url, payload)[0] == 503
    assert _post(url, payload)[0] == 503
    status, body = _post(url, payload)
    assert status == 200
    assert body["choices"][0]["message"]["content"] == "queued"  # type: ignore[index]
    assert server.call_count == 3


def test_a_broken_responder_gives_500_and_is_recorded(fake_llm_server: FakeLLMServer) -> None:
    def broken(request_json: dict[str, Any]) -> str:
        raise ValueError("boom")

    fake_llm_server.responder = broken
    status, body = _post(f"{fake_llm_server.base_url}/chat/completions", {"model": "m", "messages": MESSAGES})
    assert status == 500
    assert "boom" in body["error"]["message"]  # type: ignore[index]
    [error] = fake_llm_server.errors
    assert isinstance(error, ValueError)


def test_reply_validation() -> None:
    with pytest.raises(ValueError):
        Reply(status=42)
    with pytest.raises(ValueError):
        Reply(delay=-1)
    with pytest.raises(ValueError):
        FakeLLMServer(latency=-0.1)
    with pytest.raises(TypeError):
        FakeLLMServer().queue(123)  # type: ignore[arg-type]


def test_records_are_thread_safe(fake_llm_server: FakeLLMServer) -> None:
    server = fake_llm_server
    url = f"{server.base_url}/chat/completions"

    def call(i: int) -> None:
        _post(url, {"model": "m", "messages": [{"role": "user", "content": f"call {i}"}]})

    threads = [threading.Thread(target=call, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert server.call_count == 20
    seen = sorted(last_user_message(r) for r in server.requests)
    assert seen == sorted(f"call {i}" for i in range(20))


# ---------------------------------------------------------------------------
# (2) Through litellm, for real.


def test_litellm_completion_round_trip(fake_llm_server: FakeLLMServer) -> None:
    server = fake_llm_server
    server.set_rule("book the flight", "[[Success]] the flight is booked")

    response = _completion(server)

    assert response.choices[0].message.content == "[[Success]] the flight is booked"
    assert response.choices[0].finish_reason == "stop"
    assert response.usage.total_tokens > 0
    assert server.call_count == 1
    [request] = server.requests
    assert request["model"] == "judge-model"  # litellm strips the "openai/" prefix
    assert request["messages"] == MESSAGES
    assert not request.get("stream")
    assert server.request_headers[0].get("Authorization") == "Bearer test"


def test_litellm_passes_sampling_parameters(fake_llm_server: FakeLLMServer) -> None:
    _completion(fake_llm_server, temperature=0, max_tokens=16)
    [request] = fake_llm_server.requests
    assert request["temperature"] == 0
    assert request["max_tokens"] == 16


def test_litellm_makes_no_outside_connections(fake_llm_server: FakeLLMServer) -> None:
    before = len(_EXTERNAL_ATTEMPTS)
    _completion(fake_llm_server)

    async def one() -> Any:
        return await litellm.acompletion(
            model="openai/judge-model",
            api_base=fake_llm_server.base_url,
            api_key="test",
            messages=MESSAGES,
            max_retries=0,
            num_retries=0,
        )

    _run(one())
    assert _EXTERNAL_ATTEMPTS[before:] == []


# ---------------------------------------------------------------------------
# (3) Scripted failures surface as litellm exceptions.


@pytest.mark.parametrize(
    ("status", "exception_name"),
    [
        (429, "RateLimitError"),
        (500, "InternalServerError"),
        (503, "ServiceUnavailableError"),
    ],
)
def test_litellm_sees_scripted_http_errors(fake_llm_server: FakeLLMServer, status: int, exception_name: str) -> None:
    server = fake_llm_server
    server.queue(Reply(status=status))
    with pytest.raises(getattr(litellm, exception_name)) as info:
        _completion(server)
    # litellm's exception classes share no litellm base; they all derive from
    # the OpenAI SDK's APIError.
    assert isinstance(info.value, openai.APIError)
    assert getattr(info.value, "status_code", status) == status
    assert server.call_count == 1  # no retries behind our back

    # The next call is fine again.
    assert _completion(server).choices[0].message.content == DEFAULT_ANSWER


def test_litellm_sees_fail_next(fake_llm_server: FakeLLMServer) -> None:
    server = fake_llm_server
    server.fail_next(1)
    with pytest.raises(litellm.InternalServerError):
        _completion(server)
    assert _completion(server).choices[0].message.content == DEFAULT_ANSWER
    assert server.call_count == 2


def test_litellm_sees_malformed_json(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(Reply(body='{"choices": [ not json'))
    with pytest.raises(openai.APIError):
        _completion(fake_llm_server)


# ---------------------------------------------------------------------------
# (4) Latency and delay are honoured (lower bounds only).


def test_reply_delay_is_honoured(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(Reply(content="slow", delay=0.3))
    started = time.perf_counter()
    response = _completion(fake_llm_server)
    assert time.perf_counter() - started >= 0.3
    assert response.choices[0].message.content == "slow"


def test_global_latency_is_honoured(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.latency = 0.2
    fake_llm_server.queue(Reply(delay=0.1))
    started = time.perf_counter()
    _completion(fake_llm_server)
    assert time.perf_counter() - started >= 0.3  # latency + delay

    started = time.perf_counter()
    status, _ = _get(f"{fake_llm_server.base_url}/models")
    assert status == 200
    assert time.perf_counter() - started >= 0.2


def test_litellm_timeout_on_a_slow_reply(fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(Reply(content="too late", delay=1.0))
    started = time.perf_counter()
    with pytest.raises(litellm.Timeout):
        _completion(fake_llm_server, timeout=0.2)
    assert time.perf_counter() - started >= 0.2
    # The server copes with the client having gone away.
    time.sleep(1.0)
    assert _completion(fake_llm_server).choices[0].message.content == DEFAULT_ANSWER
    assert fake_llm_server.errors == []


# ---------------------------------------------------------------------------
# (5) Concurrent async calls are served concurrently.


def test_litellm_acompletion_runs_concurrently() -> None:
    with FakeLLMServer(responder=lambda req: f"verdict for {last_user_message(req)}") as server:
        _completion(server)  # warm litellm's lazy imports outside the timing
        server.reset()
        server.responder = lambda req: f"verdict for {last_user_message(req)}"
        server.latency = 0.2

        async def judge(i: int) -> str:
            response = await litellm.acompletion(
                model="openai/judge-model",
                api_base=server.base_url,
                api_key="test",
                messages=[{"role": "user", "content": f"case {i}"}],
                max_retries=0,
                num_retries=0,
            )
            return response.choices[0].message.content

        async def judge_all() -> list[str]:
            return await asyncio.gather(*(judge(i) for i in range(10)))

        started = time.perf_counter()
        answers = _run(judge_all())
        elapsed = time.perf_counter() - started

    assert answers == [f"verdict for case {i}" for i in range(10)]
    assert server.call_count == 10
    assert elapsed >= 0.2
    assert elapsed < 1.5, f"10 calls with 0.2 s latency took {elapsed:.2f} s: not concurrent"
