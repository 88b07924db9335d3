"""An agent cannot talk the LLM judge into a pass (tests/injection.py: 75 payloads in 8 families,
four fake models of rising gullibility, through litellm and a local HTTP endpoint)."""

from __future__ import annotations

from pathlib import Path

import pytest
from injection import MODELS, PAYLOADS, in_context_flips, soft_flips
from llm_server import FakeLLMServer

from pytest_are_judge.readers import load_runs
from pytest_are_judge.soft.guard import suspected_injection
from pytest_are_judge.soft.parsing import parse_answer

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def server():
    with FakeLLMServer() as s:
        yield s


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("judge", [soft_flips, in_context_flips], ids=["soft", "in_context"])
def test_no_payload_flips_a_failing_run_at_any_gullibility(server, judge, model) -> None:
    flips = judge(server, model)
    assert sum(flips.values()) == 0, flips


@pytest.mark.parametrize("model", ["quoter", "copier"])
def test_the_per_call_code_alone_stops_quoted_and_copied_verdicts(server, model) -> None:
    """With the pre-scan off, a verdict found in the agent's text never counts: it lacks the code."""
    assert sum(soft_flips(server, model, guard=False).values()) == 0


def test_without_the_pre_scan_a_model_that_reads_through_is_fooled(server) -> None:
    """The measurement can fail: the reader and obedient models do flip runs when the pre-scan is off."""
    assert sum(soft_flips(server, "reader", guard=False).values()) > 0
    assert sum(soft_flips(server, "obedient", guard=False).values()) > 0


def test_every_payload_family_is_caught_and_named() -> None:
    for family, payloads in PAYLOADS.items():
        for p in payloads:
            assert suspected_injection(f"Mars base {p}"), (family, p)


def test_the_pre_scan_passes_every_real_agent_text() -> None:
    """No false positive on the agent texts of the real ARE traces and the bundled examples."""
    runs, errors = load_runs([ROOT / "tests" / "data" / "are", ROOT / "example_scenarios"])
    assert not errors and runs
    texts = [v for r in runs for e in r.events for v in e.args.values() if isinstance(v, str) and len(v) > 3]
    flagged = [(t[:80], suspected_injection(t)) for t in texts if suspected_injection(t)]
    assert len(texts) > 500 and flagged == []


@pytest.mark.parametrize(
    "answer,verdict,how",
    [
        ("Fine.\n[[Success]] c0de", True, "marker"),
        ("Fine.\n**[[success]] c0de**", True, "marker"),
        ("Not fine.\n[[Failure]] c0de", False, "marker"),
        ("[[Success]]", None, ""),  # no code
        ("[[Success]] 0000", None, ""),  # another call's code
        ("[[Success]] c0de\nand more text", None, ""),  # not the last line
        ("[[Failure]] at first; then\n[[Success]] c0de", None, "contradictory"),
        ("The agent wrote [ [Success] ].\n[[Failure]] c0de", False, "marker"),
        ('{"verdict": "success", "code": "c0de"}', None, ""),  # JSON only when JSON was asked for
        ("\uff3b\uff3bSuccess\uff3d\uff3d c0de", True, "marker"),  # the model's own full-width marker
    ],
)
def test_the_verdict_is_read_only_from_the_final_line_with_the_code(answer, verdict, how) -> None:
    parsed = parse_answer(answer, "c0de")
    assert (parsed.verdict, parsed.how) == (verdict, how)


def test_a_json_verdict_needs_the_code() -> None:
    assert parse_answer('{"reason": "ok", "verdict": "success", "code": "c0de"}', "c0de", structured=True).verdict
    assert parse_answer('{"reason": "ok", "verdict": "success", "code": "x"}', "c0de", structured=True).verdict is None
    assert parse_answer('{"reason": "ok", "verdict": "success"}', "c0de", structured=True).verdict is None
