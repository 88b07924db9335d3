"""The scripted endpoint the LLM tests talk to (tests/llm_server.py): what it answers, in order."""

from __future__ import annotations

import threading

import httpx
from llm_server import FakeLLMServer, Reply


def ask(server: FakeLLMServer, text: str = "hi") -> httpx.Response:
    return httpx.post(
        server.base_url + "/chat/completions",
        json={"model": "judge-model", "messages": [{"role": "user", "content": text}]},
        timeout=10,
    )


def answer(resp: httpx.Response) -> str:
    return str(resp.json()["choices"][0]["message"]["content"])


def test_failures_then_queue_then_rules_then_responder() -> None:
    with FakeLLMServer(responder=lambda r: "from responder") as server:
        server.fail_next(1, status=503)
        server.queue("queued", Reply(status=429, headers={"Retry-After": "2"}))
        server.set_rule("special", "ruled")
        first = ask(server)
        assert first.status_code == 503 and "error" in first.json()
        assert answer(ask(server)) == "queued"
        limited = ask(server)
        assert limited.status_code == 429 and limited.headers["Retry-After"] == "2"
        assert answer(ask(server, "a special one")) == "ruled"
        assert answer(ask(server)) == "from responder"
        assert server.call_count == 5 and server.requests[3]["messages"][0]["content"] == "a special one"


def test_raw_bodies_and_concurrency_are_observable() -> None:
    with FakeLLMServer(latency=0.2) as server:
        server.queue(Reply(body="not json", status=200))
        assert ask(server).text == "not json"
        threads = [threading.Thread(target=ask, args=(server,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert server.max_in_flight == 4  # answered at once, not one after the other
