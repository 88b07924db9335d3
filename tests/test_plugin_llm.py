"""The plugin with LLM judging on: pytest (-n 0 and -n 2) -> litellm -> a real HTTP server on
127.0.0.1 (FakeLLMServer in this process).  Verdicts, the never-a-false-pass rule, the cache and
replay-only CI mode, and the usage numbers, all through the command line options."""

from __future__ import annotations

import json

import pytest
from llm_server import FakeLLMServer

pytest.importorskip("litellm")

SCENARIO = """format: are-judge/scenario-v1
scenario_id: memo
apps: {EmailClientV2: EmailClientV2}
events:
  - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: tell Ann}}
  - {id: send, tool: EmailClientV2.send_email, after: [u],
     args: {recipients: [ann@x.org], subject: Meeting, content: The meeting moves to 3pm.}}
runs:
  - id: same
    events:
      - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: tell Ann}}
      - {tool: EmailClientV2.send_email, time: 2,
         args: {recipients: [ann@x.org], subject: Meeting, content: The meeting moves to 3pm.}}
  - id: reworded
    events:
      - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: tell Ann}}
      - {tool: EmailClientV2.send_email, time: 2,
         args: {recipients: [ann@x.org], subject: Meeting, content: "Hi Ann, the meeting is now at 15:00."}}
"""

# Quick retries, so an unavailable model turns into an error within a second.
CONFIG = """llm_options:
  max_retries: 1
  retry_base_delay: 0.01
  retry_max_delay: 0.02
"""


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


def _setup(pytester: pytest.Pytester) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "memo.yaml").write_text(SCENARIO)
    (pytester.path / "judge.yaml").write_text(CONFIG)


def _llm_args(endpoint: str, *extra: str) -> list[str]:
    return [
        "--are-scenarios=sc",
        "--are-config=judge.yaml",
        "--are-llm",
        "--judge-provider=openai",
        "--judge-model=judge",
        f"--judge-endpoint={endpoint}",
        "--are-report=r.json",
        *extra,
    ]


def test_model_verdicts_decide_reworded_arguments(pytester: pytest.Pytester, run_pytest, server: FakeLLMServer) -> None:
    _setup(pytester)
    server.set_rule("15:00", "Same meaning, same recipient. [[Success]] {fence}")
    result = run_pytest(*_llm_args(server.base_url))
    result.assert_outcomes(passed=2)
    assert server.call_count >= 1  # the reworded run needed the model
    assert all("15:00" in json.dumps(r) for r in server.requests)  # only the reworded run was asked about
    usage = json.loads((pytester.path / "r.json").read_text())["llm_usage"]
    assert usage["calls"] == server.call_count

    server.reset()
    server.set_rule("15:00", "The time differs. [[Failure]] {fence}")
    result = run_pytest(*_llm_args(server.base_url))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*memo?reworded?*"])
    report = json.loads((pytester.path / "r.json").read_text())
    verdicts = {r["run_id"]: r["verdict"] for r in report["runs"]}
    assert verdicts == {"same": "pass", "reworded": "fail"}


def test_unreachable_model_is_an_error_never_a_pass(pytester: pytest.Pytester, run_pytest) -> None:
    _setup(pytester)
    with FakeLLMServer() as gone:
        dead_url = gone.base_url  # nothing listens there once the server has stopped
    result = run_pytest(*_llm_args(dead_url))
    # the identical run needs no model call; the reworded one cannot be decided
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = json.loads((pytester.path / "r.json").read_text())
    bad = next(r for r in report["runs"] if r["run_id"] == "reworded")
    assert bad["verdict"] == "error" and bad["failure_kind"] == "judge_unavailable"


def test_cached_verdicts_replay_in_ci_without_a_model(
    pytester: pytest.Pytester, run_pytest, server: FakeLLMServer
) -> None:
    _setup(pytester)
    result = run_pytest(*_llm_args(server.base_url, "--are-llm-cache=verdicts.jsonl"))
    result.assert_outcomes(passed=2)
    calls = server.call_count
    assert calls >= 1 and (pytester.path / "verdicts.jsonl").stat().st_size > 0

    url = server.base_url
    server.stop()  # CI: no model reachable, only the cache
    result = run_pytest(*_llm_args(url, "--are-llm-cache=verdicts.jsonl", "--are-llm-replay-only"))
    result.assert_outcomes(passed=2)
    assert server.call_count == calls
    usage = json.loads((pytester.path / "r.json").read_text())["llm_usage"]
    assert usage.get("calls", 0) == 0 and usage["cache_hits"] >= 1

    # a cache miss in replay-only mode is an error, not a call and not a pass
    (pytester.path / "sc" / "memo.yaml").write_text(SCENARIO.replace("15:00", "three in the afternoon"))
    result = run_pytest(*_llm_args(url, "--are-llm-cache=verdicts.jsonl", "--are-llm-replay-only"))
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*replay*"])
