"""ARE conformance: real ARE 1.2.0 traces with ARE's own verdicts (shared/data/are/cases)."""

from __future__ import annotations

import json
import re

import pytest
from conformance import case_dirs, config_for

from pytest_are_judge.judge import GraphPerEventJudge, config_from_mapping
from pytest_are_judge.readers import load_file
from pytest_are_judge.readers.are_json import read_export

CASE_DIRS = case_dirs()


def _judge(case, *, soft_equal=False, with_oracle=True, matching="greedy"):
    cfg = config_from_mapping({**config_for(case, soft_equal=soft_equal), "matching": matching})
    if with_oracle:
        oracle = json.loads((case / "oracle.json").read_text())
        run = load_file(case / "agent.json", oracle=oracle, oracle_file=str(case / "oracle.json")).runs[0]
    else:
        run = read_export(json.loads((case / "agent.json").read_text()), file=str(case / "agent.json"))
    return GraphPerEventJudge(cfg).judge_run(run)


def test_there_are_many_cases():
    assert len(CASE_DIRS) >= 100


@pytest.mark.parametrize("case", CASE_DIRS, ids=[c.name for c in CASE_DIRS])
def test_hard_checks_agree_with_are(case):
    exp = json.loads((case / "expected.json").read_text())
    j = _judge(case)
    assert j.success == exp["success"], j.render()
    if exp["failure"] is None:
        assert j.failure is None
    else:
        assert str(j.failure) == exp["failure"]
    if exp["failure"] == "Exception":
        # ARE raised inside validation (e.g. an unparseable datetime) and failed the judgment;
        # so do we, and the report says which checker raised on which argument
        bad_value = re.search(r"'([^']+)'", exp["exception"]).group(1)  # the value ARE could not parse
        assert j.failure_kind == "checker_exception" and bad_value in j.render()
    assert j.agent_event_id_to_oracle_event_id == exp["matches"]


@pytest.mark.parametrize("case", CASE_DIRS, ids=[c.name for c in CASE_DIRS])
def test_soft_equal_fallback_agrees_with_are(case):
    exp = json.loads((case / "expected.json").read_text())["alt_soft_equal"]
    j = _judge(case, soft_equal=True)
    assert j.success == exp["success"]
    if exp["failure"] not in (None, "Exception"):
        assert str(j.failure) == exp["failure"]


@pytest.mark.parametrize("case", CASE_DIRS, ids=[c.name for c in CASE_DIRS])
def test_oracle_derived_from_definition_gives_same_verdict_and_text(case):
    exp = json.loads((case / "expected.json").read_text())
    j = _judge(case, with_oracle=False)
    assert j.success == exp["success"]
    if exp["failure"] is not None:
        assert str(j.failure) == exp["failure"]  # ARE's signature defaults fill the derived oracle


@pytest.mark.parametrize("case", CASE_DIRS, ids=[c.name for c in CASE_DIRS])
def test_exact_matching_passes_everything_greedy_passes(case):
    greedy = _judge(case)
    exact = _judge(case, matching="exact")
    if greedy.success:
        assert exact.success
        assert exact.agent_event_id_to_oracle_event_id == greedy.agent_event_id_to_oracle_event_id
