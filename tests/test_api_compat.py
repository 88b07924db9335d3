"""Code written against ARE's judge API works with only the import changed."""

from __future__ import annotations

import json

import pytest
from builders import a_smtu, run, scenario, smtu

from pytest_are_judge import (
    CheckerType,
    GraphPerEventJudge,
    GraphPerEventJudgeConfig,
    JudgeFactory,
    Judgment,
    ScriptedGraphPerEventJudge,
    ScriptedGraphPerEventJudgeConfig,
    SoftCheckerType,
    ToolCheckerParam,
    load_config,
)

SC = scenario(
    [
        {
            "id": "o_msg",
            "tool": "MessagingAppV2.send_message",
            "args": {"user_id": "u1", "content": "See you Friday at 5"},
            "after": ["user_msg"],
            "delay": 2,
        },
        smtu(after=["o_msg"]),
    ]
)
RUN = [
    {
        "id": "a",
        "tool": "MessagingAppV2.send_message",
        "args": {"user_id": "u1", "content": "friday 5pm works", "attachment_path": None},
        "time": 3,
    },
    a_smtu(4),
]


def test_are_style_scripted_config():
    cfg = ScriptedGraphPerEventJudgeConfig(
        extra_send_message_to_user_allowed=0,
        event_id_to_checker_params={
            "o_msg": [
                ToolCheckerParam(
                    arg_name="content",
                    checker_type=CheckerType.contain_all_checker,
                    tool_name="MessagingAppV2__send_message",
                    checker_args={"targets": ["friday", "5"]},
                )
            ]
        },
    )
    judge = JudgeFactory()(cfg)
    assert isinstance(judge, ScriptedGraphPerEventJudge)
    judgment = judge(run(SC, RUN))
    assert isinstance(judgment, Judgment)
    assert judgment.success is True and judgment.failure is None
    assert judgment.agent_event_id_to_oracle_event_id["a"] == "o_msg"


def test_scripted_config_refuses_none():
    with pytest.raises(ValueError):
        ScriptedGraphPerEventJudgeConfig(event_id_to_checker_params=None)


def test_enum_members_and_registry_override():
    assert CheckerType.eq_checker.value == "eq_checker" and CheckerType.eq_checker.is_hard()
    assert SoftCheckerType.email_checker.value == "email_checker"
    cfg = GraphPerEventJudgeConfig(
        per_tool_arg_to_checker_type={
            "MessagingAppV2__send_message": {"user_id": CheckerType.eq_checker, "content": CheckerType.eq_checker}
        }
    )
    judge = JudgeFactory()(cfg)
    assert type(judge) is GraphPerEventJudge
    j = judge(run(SC, RUN))
    assert not j.success and "content" in j.render()


def test_default_config_matches_are_code_defaults():
    c = GraphPerEventJudgeConfig()
    assert (
        c.check_time_threshold_seconds,
        c.pre_event_tolerance_seconds,
        c.post_event_tolerance_seconds,
        c.extra_send_message_to_user_allowed,
    ) == (1.0, 10.0, 25.0, 1)
    assert c.event_id_to_checker_params is None and c.matching == "greedy" and not c.llm


@pytest.mark.parametrize(
    "suffix,text",
    [
        (".json", json.dumps({"pre_event_tolerance_seconds": 3, "matching": "exact"})),
        (".yaml", "pre_event_tolerance_seconds: 3\nmatching: exact\n"),
        (".toml", "pre_event_tolerance_seconds = 3\nmatching = 'exact'\n"),
        (".toml", "[tool.are_judge]\npre_event_tolerance_seconds = 3\nmatching = 'exact'\n"),
    ],
)
def test_config_files(tmp_path, suffix, text):
    p = tmp_path / f"judge{suffix}"
    p.write_text(text)
    c = load_config(p)
    assert c.pre_event_tolerance_seconds == 3 and c.matching == "exact"


def test_config_file_with_scripted_params_gives_scripted_config(tmp_path):
    p = tmp_path / "judge.yaml"
    p.write_text(
        "event_id_to_checker_params:\n  o_msg:\n    - {arg_name: content, checker_type: contain_any_checker, checker_args: {targets: [friday]}}\n"
    )
    c = load_config(p)
    assert isinstance(c, ScriptedGraphPerEventJudgeConfig)
    assert JudgeFactory()(c)(run(SC, RUN)).success


def test_bad_config_file_names_the_field(tmp_path):
    from pytest_are_judge import InputError

    p = tmp_path / "judge.json"
    p.write_text(json.dumps({"pre_event_tolerance_seconds": "ten"}))
    with pytest.raises(InputError) as ei:
        load_config(p)
    assert "pre_event_tolerance_seconds" in str(ei.value) and "judge.json" in str(ei.value)


def test_package_import_is_light():
    import subprocess
    import sys

    code = "import sys, pytest_are_judge; print(','.join(m for m in ('pydantic','networkx','litellm','datasets','yaml') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
