"""End to end: the graph judge with LLM judging on real ARE cases, and the in-context judge."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

import json
import subprocess
import sys
import textwrap

import pytest
from conformance import CASES
from llm_server import FakeLLMServer, last_user_message

from pytest_are_judge.judge import GraphPerEventJudge, GraphPerEventJudgeConfig, InContextJudgeConfig, JudgeFactory
from pytest_are_judge.judge.in_context import InContextJudge
from pytest_are_judge.readers import load_file

pytest.importorskip("litellm")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")

LOCATIONS = CASES / "cab__arg__oracle_order__locations_other"  # agent's cab locations differ (llm args)
REPLAY = CASES / "cab__replay__exact_ids"  # identical to the oracle run
FAST = {"retry_base_delay": 0.01, "retry_max_delay": 0.02, "max_retries": 1}


def load_run(case):
    oracle = json.loads((case / "oracle.json").read_text())
    return load_file(case / "agent.json", oracle=oracle, oracle_file=str(case / "oracle.json")).runs[0]


def graph_judge(server, **opts):
    cfg = GraphPerEventJudgeConfig(
        llm=True,
        judge_provider="openai",
        judge_endpoint=server.base_url,
        judge_model="judge",
        llm_options={**FAST, **opts},
    )
    return GraphPerEventJudge(cfg)


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


def test_llm_args_that_differ_pass_when_the_model_says_success(server):
    j = graph_judge(server).judge_run(load_run(LOCATIONS))
    assert j.success, j.render()
    assert server.call_count == 1
    prompt = last_user_message(server.requests[0])
    assert "Home" in prompt and "Airport" in prompt


def test_llm_args_that_differ_fail_when_the_model_says_failure(server):
    server.responder = lambda r: "Different places. [[Failure]] {fence}"
    j = graph_judge(server).judge_run(load_run(LOCATIONS))
    assert j.success is False and not j.is_error
    assert j.failure_kind == "oracle_event_matching"
    assert "llm:cab_checker" in json.dumps(j.to_dict())


def test_unavailable_model_is_an_error_not_a_verdict(server):
    server.fail_next(100, status=503)
    j = graph_judge(server).judge_run(load_run(LOCATIONS))
    assert j.success is False and j.is_error and j.failure_kind == "judge_unavailable"


def test_tied_vote_is_inconclusive(server):
    server.queue("[[Success]] {fence}", "[[Failure]] {fence}")
    cfg = GraphPerEventJudgeConfig(
        llm=True,
        judge_provider="openai",
        judge_endpoint=server.base_url,
        judge_model="judge",
        judge_votes=2,
        llm_options=FAST,
    )
    j = GraphPerEventJudge(cfg).judge_run(load_run(LOCATIONS))
    assert j.is_error and j.failure_kind == "inconclusive"


def test_litellm_is_not_imported_when_no_llm_call_is_needed(tmp_path):
    code = textwrap.dedent(
        f"""
        import json, sys
        from pytest_are_judge.judge import GraphPerEventJudge, GraphPerEventJudgeConfig
        from pytest_are_judge.readers import load_file
        from pytest_are_judge.soft import build_soft_judge
        cfg = GraphPerEventJudgeConfig(llm=True, judge_provider="openai", judge_endpoint="http://127.0.0.1:9/v1")
        soft = build_soft_judge(cfg)
        case = {str(REPLAY)!r}
        oracle = json.load(open(case + "/oracle.json"))
        run = load_file(case + "/agent.json", oracle=oracle, oracle_file=case + "/oracle.json").runs[0]
        j = GraphPerEventJudge(cfg, soft_judge=soft).judge_run(run)
        j2 = GraphPerEventJudge(cfg).judge_run(run)
        assert j.success and j2.success, j.render()
        print("litellm" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------- in-context
def ic_judge(server, **opts):
    cfg = InContextJudgeConfig(
        judge_provider="openai", judge_endpoint=server.base_url, judge_model="judge", llm_options={**FAST, **opts}
    )
    return JudgeFactory()(cfg)


def test_in_context_pass_and_prompt_shape(server):
    j = ic_judge(server)
    assert isinstance(j, InContextJudge)
    res = j.judge_run(load_run(LOCATIONS))
    assert res.success, res.render()
    system = server.requests[0]["messages"][0]["content"]
    user = last_user_message(server.requests[0])
    assert "{parents}" not in user  # ARE shows the literal text (docs/llm.md)
    assert "Parent tool call ids:" in user
    assert "Current task:" in user and "User:" in user  # ARE leaves these out (docs/llm.md)
    assert system.count("CabApp__order_ride") == 1  # ARE repeats criteria for every alias (docs/llm.md)
    assert "Cabs__order_ride" not in system


def test_in_context_reject(server):
    server.responder = lambda r: "Wrong destination.\n[[failure]] {fence}"
    res = ic_judge(server).judge_run(load_run(LOCATIONS))
    assert res.success is False and not res.is_error and res.failure_kind == "in_context_reject"
    assert "Wrong destination" in str(res.failure)


def test_in_context_unavailable(server):
    server.fail_next(100, status=500)
    res = ic_judge(server).judge_run(load_run(LOCATIONS))
    assert res.is_error and res.failure_kind == "judge_unavailable"
    server.fail_next(0)
    server.responder = lambda r: "hmm"
    res = ic_judge(server, max_retries=0).judge_run(load_run(LOCATIONS))
    assert res.is_error and res.failure_kind == "inconclusive"


def test_in_context_parent_ids_and_escaping(server):
    from builders import run, scenario

    sc = scenario(
        [
            {
                "id": "o_mail",
                "tool": "EmailClientV2.send_email",
                "args": {"recipients": ["b@x"], "subject": "S", "content": "Hi"},
                "after": ["user_msg"],
                "delay": 1,
            },
            {
                "id": "o_smtu",
                "tool": "AgentUserInterface.send_message_to_user",
                "args": {"content": "sent"},
                "after": ["o_mail"],
                "delay": 1,
            },
        ],
        user={"first_name": "Ada", "last_name": "L"},
    )
    r = run(
        sc,
        [
            {
                "tool": "EmailClientV2.send_email",
                "args": {"recipients": ["b@x"], "subject": "S", "content": "Hi <b>Bob</b> & co"},
                "time": 2,
            },
            {"tool": "AgentUserInterface.send_message_to_user", "args": {"content": "sent"}, "time": 3},
        ],
    )
    server.responder = lambda req: "Different subject.\n[[Failure]] {fence}"
    res = ic_judge(server).judge_run(r)
    assert res.success is False and res.failure_kind == "in_context_reject"
    user = last_user_message(server.requests[0])
    assert "Tool call id: o_smtu\nParent tool call ids: o_mail" in user
    assert user.count("</agent_actions") == 1 and "Hi &lt;b&gt;Bob&lt;/b&gt; &amp; co" in user
    assert "do it" in user and "Ada L" in user
