"""Code judges: protocol, errors, memoization, checker and evaluator use."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_are_judge import code_judge as cj
from pytest_are_judge.api import effective_config, judge_run
from pytest_are_judge.checkers import checker_kind, get_checker, known_checkers
from pytest_are_judge.errors import InputError, JudgeUnavailableError
from pytest_are_judge.judge.evaluators import evaluator_specs, run_evaluators, run_payload
from pytest_are_judge.readers import load_file

EXAMPLE = Path(__file__).resolve().parent.parent / "example_scenarios" / "code_judges" / "meeting_moved.yaml"
HAS_NODE = shutil.which("node") is not None


@pytest.fixture(autouse=True)
def _fresh_cache():
    cj.clear_cache()
    yield
    cj.clear_cache()


def script(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    p.chmod(0o755)
    return p


ECHO = """
import json, sys
p = json.load(sys.stdin)
print("judging", file=sys.stderr)
json.dump({"score": float(p["candidate_answer"] == p["reference_answer"]), "hits": ["h"], "misses": ["m"],
           "reasoning": p["question"]}, sys.stdout)
"""


def payload(**kw):
    return {
        "question": "q",
        "expected_outcome": "x",
        "candidate_answer": "a",
        "reference_answer": "a",
        "sidecar": {},
        **kw,
    }


def test_python_script_runs_with_this_interpreter_and_answers(tmp_path):
    script(tmp_path, "j.py", ECHO)
    res = cj.run_code_judge("j.py", payload(), base_dir=tmp_path)
    assert res.score == 1.0 and res.hits == ("h",) and res.misses == ("m",) and res.reasoning == "q"
    assert res.argv[0] == sys.executable and res.stderr == "judging"


def test_identical_input_runs_once_per_process(tmp_path):
    script(tmp_path, "j.py", ECHO)
    a = cj.run_code_judge("j.py", payload(), base_dir=tmp_path)
    b = cj.run_code_judge("j.py", payload(), base_dir=tmp_path)
    c = cj.run_code_judge("j.py", payload(candidate_answer="other"), base_dir=tmp_path)
    assert (a.cached, b.cached, c.cached) == (False, True, False)
    assert c.score == 0.0
    assert cj.cache_stats()["runs"] == 2 and cj.cache_stats()["hits"] == 1


def test_argv_list_and_executable_script(tmp_path):
    script(tmp_path, "j.py", ECHO)
    res = cj.run_code_judge([sys.executable, "j.py"], payload(), base_dir=tmp_path)
    assert res.score == 1.0 and res.argv[1] == str((tmp_path / "j.py").resolve())
    sh = script(
        tmp_path,
        "j.sh",
        """#!/bin/sh
    cat >/dev/null
    echo '{"score": 0.25}'
    """,
    )
    assert cj.run_code_judge(str(sh), payload()).score == 0.25


@pytest.mark.skipif(not HAS_NODE, reason="node is not installed")
def test_js_script_runs_with_node(tmp_path):
    script(
        tmp_path,
        "j.js",
        """
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      const p = JSON.parse(s); console.log(JSON.stringify({score: p.candidate_answer.length / 10, hits: ["len"]}));
    });
    """,
    )
    res = cj.run_code_judge("j.js", payload(candidate_answer="abcde"), base_dir=tmp_path)
    assert res.score == 0.5 and "node" in Path(res.argv[0]).name


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("import sys; sys.stderr.write('boom happened'); sys.exit(3)", "exited with status 3"),
        ("raise RuntimeError('kaput')", "exited with status 1"),
        ("print('not json')", "not JSON"),
        ("print('[1, 2]')", "must be a JSON object"),
        ("print('{\"score\": 1.5}')", "in \\[0, 1\\]"),
        ("print('{\"score\": true}')", "must be a number"),
        ("print('{\"hits\": []}')", "must be a number"),
        ("pass", "wrote nothing"),
        ('print(\'{"score": 1, "hits": 3}\')', "list of strings"),
    ],
)
def test_bad_programs_are_errors_never_passes(tmp_path, body, match):
    script(tmp_path, "bad.py", "import sys, json\nsys.stdin.read()\n" + body + "\n")
    with pytest.raises(cj.CodeJudgeError, match=match) as info:
        cj.run_code_judge("bad.py", payload(), base_dir=tmp_path)
    err = info.value
    assert isinstance(err, JudgeUnavailableError) and err.kind == "code_judge_error"
    if "boom" in body:
        assert err.data["stderr"] == "boom happened" and "boom happened" in str(err)
    if "kaput" in body:
        assert "RuntimeError: kaput" in str(err)


def test_timeout_missing_script_and_bad_options(tmp_path):
    script(tmp_path, "slow.py", "import time; time.sleep(5)")
    with pytest.raises(cj.CodeJudgeError, match=r"timed out after 0\.3s"):
        cj.run_code_judge("slow.py", payload(), base_dir=tmp_path, timeout=0.3)
    with pytest.raises(cj.CodeJudgeError, match="not found"):
        cj.run_code_judge("nope.py", payload(), base_dir=tmp_path)
    with pytest.raises(cj.CodeJudgeError, match="not on PATH"):
        cj.run_code_judge(["no-such-program-xyz"], payload(), base_dir=tmp_path)
    with pytest.raises(cj.CodeJudgeError, match="timeout"):
        cj.run_code_judge("slow.py", payload(), base_dir=tmp_path, timeout=0)
    with pytest.raises(cj.CodeJudgeError, match="path or a non-empty list"):
        cj.build_argv([], tmp_path)


def test_clean_env_keeps_only_the_basics(tmp_path, monkeypatch):
    script(
        tmp_path,
        "env.py",
        """
    import json, os, sys
    sys.stdin.read()
    print(json.dumps({"score": 1, "hits": sorted(os.environ)}))
    """,
    )
    monkeypatch.setenv("SECRET_TOKEN_FOR_TEST", "x")
    dirty = cj.run_code_judge("env.py", payload(), base_dir=tmp_path)
    clean = cj.run_code_judge("env.py", payload(), base_dir=tmp_path, clean_env=True, env={"EXTRA": "1"})
    assert "SECRET_TOKEN_FOR_TEST" in dirty.hits
    assert "SECRET_TOKEN_FOR_TEST" not in clean.hits
    assert set(clean.hits) - {"EXTRA", "LC_CTYPE"} <= set(cj.CLEAN_ENV_KEYS)


def test_registry_resolves_code_judge_lazily():
    assert get_checker("code_judge") is cj.code_judge_checker
    assert checker_kind("code_judge") == "hard"
    assert "code_judge" in known_checkers()
    assert getattr(cj.code_judge_checker, "wants_context", False) is True


def test_checker_payload_and_verdict(tmp_path):
    script(
        tmp_path,
        "dump.py",
        """
    import json, sys
    p = json.load(sys.stdin)
    open("seen.json", "w").write(json.dumps(p))
    print(json.dumps({"score": 0.4, "hits": ["a"], "misses": ["b"], "reasoning": "meh"}))
    """,
    )
    from pytest_are_judge.model import Scenario

    scen = Scenario(scenario_id="s", source=str(tmp_path / "scenario.yaml"))
    ctx = {
        "tool_name": "T__f",
        "oracle_event_id": "o1",
        "oracle_args": {"x": 1},
        "task": "do it",
        "tasks": ["do it"],
        "scenario": scen,
        "agent_events": [],
        "source": None,
        "arg_name": "x",
        "agent_event": None,
    }
    v = cj.code_judge_checker(2, 1, script="dump.py", threshold=0.5, keywords=["k"], context=ctx)
    assert not v and v.result.score == 0.4
    assert "score 0.4 (threshold 0.5)" in v.note and "misses: b" in v.note and "reasoning: meh" in v.note
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["question"] == "do it" and seen["candidate_answer"] == 2 and seen["reference_answer"] == 1
    assert seen["sidecar"]["checker_args"] == {"keywords": ["k"]} and seen["sidecar"]["arg_name"] == "x"
    assert seen["sidecar"]["oracle_event"]["event_id"] == "o1"
    assert cj.code_judge_checker(2, 1, script="dump.py", threshold=0.4, context=ctx)


def _example_runs():
    return {r.run_id: r for r in load_file(EXAMPLE).runs}


def test_example_scenario_checks_and_evaluator():
    runs = _example_runs()
    out = {}
    for rid, run in runs.items():
        j = run_evaluators(run, judge_run(run), effective_config(None, run.scenario))
        out[rid] = j
    assert out["good"].success is True
    assert [e["status"] for e in out["good"].extras["evaluators"]] == ["passed"]
    assert out["wrong_time"].failure_kind == "oracle_event_matching"
    imp = out["impolite"]
    assert imp.success is False and imp.failure_kind == "evaluator_reject"
    assert "does not thank the user" in imp.render() and imp.failure.data["score"] == 0.0
    assert imp.to_dict()["failure_detail"]["misses"] == ["does not thank the user"]


def test_crashing_per_event_judge_makes_the_judgment_an_error(tmp_path):
    (tmp_path / "judges").mkdir()
    script(
        tmp_path / "judges",
        "crash.py",
        "import sys; sys.stdin.read(); sys.stderr.write('judge crashed here'); sys.exit(2)",
    )
    text = EXAMPLE.read_text().replace("judges/keywords.py", "judges/crash.py")
    p = tmp_path / "s.yaml"
    p.write_text(text)
    run = next(r for r in load_file(p).runs if r.run_id == "good")
    j = judge_run(run)
    assert j.success is False and j.is_error
    assert "judge crashed here" in j.render()


def test_evaluator_error_and_validation(tmp_path):
    run = _example_runs()["good"]
    base = judge_run(run)
    script(tmp_path, "bad.py", "import sys; sys.stdin.read(); print('oops')")
    j = run_evaluators(
        run, base, {"evaluators": [{"type": "code_judge", "script": str(tmp_path / "bad.py"), "name": "b"}]}
    )
    assert j.success is False and j.failure_kind == "code_judge_error" and j.is_error
    assert "not JSON" in str(j.failure) and j.extras["evaluators"][0]["status"] == "error"
    # failed judgments are left alone; no evaluators: unchanged
    assert run_evaluators(run, j, {"evaluators": [{"script": "x.py"}]}) is j
    assert run_evaluators(run, base, {"evaluators": []}) is base
    bad = run_evaluators(run, base, {"evaluators": [{"type": "llm", "script": "x"}]})
    assert bad.failure_kind == "input_error" and "unknown evaluator type" in str(bad.failure)
    with pytest.raises(InputError, match="threshold"):
        evaluator_specs({"evaluators": [{"script": "x.py", "threshold": 2}]})
    with pytest.raises(InputError, match="unknown evaluator option"):
        evaluator_specs([{"script": "x.py", "treshold": 0.5}])


def test_run_payload_has_the_whole_run():
    run = _example_runs()["good"]
    p = run_payload(run, judge_run(run), {"name": "n"})
    assert p["question"].startswith("Please email bob")
    assert p["candidate_answer"].startswith("I emailed Bob")
    assert p["reference_answer"].startswith("Done, Bob knows") and p["expected_outcome"] == p["reference_answer"]
    sc = p["sidecar"]
    assert sc["scenario_id"] == "code_judge_meeting_moved" and len(sc["agent_events"]) == 3
    assert sc["matches"] and sc["judgment"]["success"] is True
    json.dumps(p)
