"""One test (or a few) per judging rule, on small hand-made scenarios."""

from __future__ import annotations

import pytest
from builders import a_smtu, run, scenario, smtu

from pytest_are_judge.judge import (
    GraphPerEventJudge,
    GraphPerEventJudgeConfig,
    ScriptedGraphPerEventJudgeConfig,
    ToolCheckerParam,
)
from pytest_are_judge.judgment import (
    EnvOracleMatchingFailure,
    FailureKind,
    OracleEventMatchingFailure,
    ToolCallCountsFailure,
)
from pytest_are_judge.judgment import (
    EventComparisonFailureType as FT,
)

EMAIL = "EmailClientV2.send_email"


def judge(sc, rn, **cfg):
    return GraphPerEventJudge(GraphPerEventJudgeConfig(**cfg)).judge_run(run(sc, rn) if isinstance(rn, list) else rn)


def email(eid="o_mail", after=("user_msg",), delay=2, recipients=("bob@x.com",), **kw):
    return {
        "id": eid,
        "tool": EMAIL,
        "args": {"recipients": list(recipients), "subject": "Hi", "content": "Hello"},
        "after": list(after),
        "delay": delay,
        **kw,
    }


def a_email(t, eid="a_mail", recipients=("bob@x.com",), **args):
    return {
        "id": eid,
        "tool": EMAIL,
        "args": {"recipients": list(recipients), "subject": "Hi", "content": "Hello", **args},
        "time": t,
    }


SC = scenario([email(), smtu(after=["o_mail"])])


# ---------------------------------------------------------------- counts
def test_replay_passes_and_maps_ids():
    j = judge(SC, [a_email(3), a_smtu(4)])
    assert j.success, j.render()
    assert j.agent_event_id_to_oracle_event_id == {"user_msg": "user_msg", "a_mail": "o_mail", "a_smtu": "o_smtu"}


def test_missing_call_is_a_count_failure_with_are_text():
    j = judge(SC, [a_smtu(4)])
    assert isinstance(j.failure, ToolCallCountsFailure)
    assert str(j.failure) == (
        "Failure: \nAgent and oracle counters do not match for the following tools:\n"
        "- Tool 'EmailClientV2__send_email': Agent count 0, Oracle count 1"
    )


def test_extra_call_listed_before_missing_ones():
    sc = scenario(
        [
            email(),
            {
                "id": "o_del",
                "tool": "EmailClientV2.delete_email",
                "args": {"email_id": "e1"},
                "after": ["user_msg"],
                "delay": 2,
            },
            smtu(after=["o_mail", "o_del"]),
        ]
    )
    j = judge(sc, [a_email(3), a_email(3.5, eid="a2"), a_smtu(5)])
    lines = str(j.failure).splitlines()
    assert lines[2].startswith("- Tool 'EmailClientV2__send_email': Agent count 2, Oracle count 1")
    assert lines[3].startswith("- Tool 'EmailClientV2__delete_email': Agent count 0, Oracle count 1")


def test_missing_message_to_user():
    j = judge(SC, [a_email(3)])
    assert str(j.failure) == "Failure: \nOracle sent 1 more message(s) than agent."


@pytest.mark.parametrize("extra,ok", [(0, False), (1, True)])
def test_extra_message_allowance_when_oracle_turn_has_no_message(extra, ok):
    sc = scenario([email()])
    j = judge(sc, [a_email(3), a_smtu(4)], extra_send_message_to_user_allowed=extra)
    assert j.success is ok
    if not ok:
        assert "exceeds oracle AUI count by more than 0" in str(j.failure)


def test_failed_and_read_agent_calls_are_ignored():
    bad = {**a_email(2.5, eid="failed"), "error": "SMTP down"}
    read = {"id": "r", "tool": "EmailClientV2.list_emails", "args": {}, "time": 2.6, "operation": "read"}
    j = judge(SC, [bad, read, a_email(3), a_smtu(4)])
    assert j.success, j.render()


# ---------------------------------------------------------------- env / user
def test_env_event_matched_by_id_only():
    sc = scenario(
        [
            {
                "id": "env_in",
                "type": "env",
                "tool": "EmailClientV2.send_email_to_user",
                "args": {"x": 1},
                "after": ["user_msg"],
                "delay": 1,
            },
            email(after=["env_in"], delay=2),
        ],
        apps={},
    )
    ok = judge(
        sc,
        [
            {"id": "env_in", "type": "env", "tool": "EmailClientV2.send_email_to_user", "args": {"x": 999}, "time": 2},
            a_email(4),
            a_smtu(5),
        ],
        extra_send_message_to_user_allowed=1,
    )
    assert ok.success, ok.render()
    bad = judge(
        sc,
        [
            {"id": "other", "type": "env", "tool": "EmailClientV2.send_email_to_user", "args": {"x": 1}, "time": 2},
            a_email(4),
        ],
    )
    assert isinstance(bad.failure, EnvOracleMatchingFailure)
    assert str(bad.failure) == "Failure: Oracle env/user event env_in could not be matched. This is likely a bug !"


# ---------------------------------------------------------------- arguments
def test_argument_mismatch_reports_closest_candidate_table():
    j = judge(SC, [a_email(3, recipients=["eve@x.com"]), a_smtu(4)])
    f = j.failure
    assert isinstance(f, OracleEventMatchingFailure)
    assert [a.failure_type for a in f.comparison_failures] == [FT.ALREADY_MATCHED, FT.TOOL_JUDGE_REJECT]
    assert f.closest is not None and f.closest.detail.reason == "arguments"
    row = next(r for r in f.closest.detail.args if r.arg == "recipients")
    assert (row.passed, row.actual, row.expected) == (False, ["eve@x.com"], ["bob@x.com"])
    text = j.render()
    assert "✗  recipients" in text and "unordered_list_checker" in text and "categories" not in text
    assert f.categories == ["arguments"]


def test_llm_args_ignored_without_llm_but_equal_fallback_checks_them():
    rn = [a_email(3, content="Completely different"), a_smtu(4)]
    assert judge(SC, rn).success
    j = judge(SC, rn, soft_fallback="equal")
    assert not j.success and j.failure.categories == ["soft"]
    # ARE's normalisation: case, accents, punctuation, outer whitespace
    assert judge(SC, [a_email(3, content="  héllo!! "), a_smtu(4, content="DONE.")], soft_fallback="equal").success


def test_missing_agent_argument_is_a_rejection_not_a_crash():
    ev = a_email(3)
    del ev["args"]["recipients"]
    j = judge(SC, [ev, a_smtu(4)])
    assert not j.success and not j.is_error
    assert "missing from the agent's call" in j.render()


def test_unparseable_datetime_fails_like_are_or_rejects_when_asked():
    sc = scenario(
        [
            {
                "id": "o_cal",
                "tool": "Calendar.add_calendar_event",
                "args": {
                    "title": "x",
                    "start_datetime": "2024-10-07 10:00:00",
                    "end_datetime": "2024-10-07 11:00:00",
                    "attendees": [],
                },
                "after": ["user_msg"],
                "delay": 2,
            }
        ]
    )
    agent = [
        {
            "id": "a",
            "tool": "Calendar.add_calendar_event",
            "args": {
                "title": "x",
                "start_datetime": "2024-10-07T10:00",
                "end_datetime": "2024-10-07 11:00:00",
                "attendees": [],
            },
            "time": 3,
        }
    ]
    j = judge(sc, agent)
    # ARE lets the ValueError escape: the whole judgment fails with the rationale "Exception"
    assert not j.success and not j.is_error and j.failure_kind == "checker_exception"
    assert str(j.failure) == "Exception" and j.failure.categories == ["checker_exception"]
    text = j.render()
    assert "datetime_checker check of argument 'start_datetime' raised" in text
    assert "cannot compare: expected a datetime" in text and "checker_errors='reject'" in text
    assert j.agent_event_id_to_oracle_event_id == {"user_msg": "user_msg"}  # matched before it raised
    # the opt-in: reject that candidate and explain (the other candidates are still tried)
    r = judge(sc, agent, checker_errors="reject")
    assert not r.success and r.failure_kind == "oracle_event_matching" and r.failure.categories == ["checker_error"]
    assert "cannot compare: expected a datetime" in r.render()


def test_attendees_tolerate_the_user():
    sc = scenario(
        [
            {
                "id": "o_cal",
                "tool": "Calendar.add_calendar_event",
                "args": {
                    "start_datetime": "2024-10-07 10:00:00",
                    "end_datetime": "2024-10-07 11:00:00",
                    "attendees": ["Alice Martin", "Sam Rivera"],
                },
                "after": ["user_msg"],
                "delay": 2,
            }
        ],
        user={"first_name": "Sam", "last_name": "Rivera"},
    )
    ev = {
        "id": "a",
        "tool": "Calendar.add_calendar_event",
        "args": {
            "start_datetime": "2024-10-07 10:00:00",
            "end_datetime": "2024-10-07 11:00:00",
            "attendees": ["alice martin"],
        },
        "time": 3,
    }
    assert judge(sc, [ev]).success


def test_unregistered_oracle_tool_is_an_input_error_or_eq_fallback():
    sc = scenario([{"id": "o", "tool": "MyApp.do_thing", "args": {"n": 1}, "after": ["user_msg"], "delay": 2}])
    ev = {"id": "a", "tool": "MyApp.do_thing", "args": {"n": 1}, "time": 3}
    j = judge(sc, [ev])
    assert j.is_error and j.failure.kind == FailureKind.INPUT_ERROR
    assert "MyApp__do_thing" in str(j.failure) and "event o" in str(j.failure)
    assert judge(sc, [ev], unregistered_tool="eq").success
    assert not judge(sc, [{**ev, "args": {"n": 2}}], unregistered_tool="eq").success
    assert judge(sc, [ev], per_tool_arg_to_checker_type={"MyApp__do_thing": {"n": "eq_checker"}}).success


# ---------------------------------------------------------------- scripted
def test_scripted_params_run_after_registry_checks():
    params = {
        "o_mail": [
            ToolCheckerParam(
                arg_name="content",
                checker_type="contain_any_checker",
                tool_name="EmailClientV2__send_email",
                checker_args={"targets": ["friday"]},
            )
        ]
    }
    cfg = ScriptedGraphPerEventJudgeConfig(event_id_to_checker_params=params)
    jg = GraphPerEventJudge(cfg)
    assert jg.judge_run(run(SC, [a_email(3, content="See you Friday"), a_smtu(4)])).success
    j = jg.judge_run(run(SC, [a_email(3, content="See you Monday"), a_smtu(4)]))
    assert not j.success and "contain_any_checker" in j.render()


def test_scripted_param_for_wrong_tool_is_reported():
    params = {
        "o_mail": [
            {
                "arg_name": "content",
                "checker_type": "contain_any_checker",
                "tool_name": "Mail__send_email",
                "checker_args": {"targets": ["x"]},
            }
        ]
    }
    j = GraphPerEventJudge(ScriptedGraphPerEventJudgeConfig(event_id_to_checker_params=params)).judge_run(
        run(SC, [a_email(3), a_smtu(4)])
    )
    assert j.is_error and "names tool 'Mail__send_email'" in str(j.failure)


def test_unknown_checker_in_config_is_a_clear_error():
    from pytest_are_judge.errors import InputError

    with pytest.raises(InputError, match="no_such_checker"):
        GraphPerEventJudge(GraphPerEventJudgeConfig(per_tool_arg_to_checker_type={"X__y": {"a": "no_such_checker"}}))


# ---------------------------------------------------------------- causality / order
CHAIN = scenario(
    [
        email(),
        {
            "id": "o_del",
            "tool": "EmailClientV2.delete_email",
            "args": {"email_id": "e1"},
            "after": ["o_mail"],
            "delay": 2,
        },
    ]
)


def test_child_before_parent_breaks_causality():
    j = judge(
        CHAIN,
        [
            {"id": "a_del", "tool": EMAIL.replace("send_email", "delete_email"), "args": {"email_id": "e1"}, "time": 2},
            a_email(4),
        ],
        extra_send_message_to_user_allowed=0,
    )
    f = j.failure
    assert isinstance(f, OracleEventMatchingFailure) and f.oracle_event_id == "o_del"
    caus = [a for a in f.comparison_failures if a.failure_type == FT.CAUSALITY]
    assert len(caus) == 1 and caus[0].parent_event_id == "o_mail"
    assert f.categories == ["causality"]
    assert "oracle parent o_mail is matched to agent event a_mail" in j.render()


def test_parallel_branches_may_run_in_any_order():
    sc = scenario([email(eid="o1", recipients=["a@x"]), email(eid="o2", recipients=["b@x"]), smtu(after=["o1", "o2"])])
    j = judge(sc, [a_email(3, eid="x2", recipients=["b@x"]), a_email(3.5, eid="x1", recipients=["a@x"]), a_smtu(5)])
    assert j.success and j.agent_event_id_to_oracle_event_id["x1"] == "o1"


# ---------------------------------------------------------------- time
@pytest.mark.parametrize(
    "t,ok",
    [(21, True), (1 + 20 + 25, True), (1 + 20 + 25.5, False), (1 + 20 - 10, True), (1 + 20 - 10.5, False)],
)
def test_relative_time_window(t, ok):
    # oracle: 20 s after user_msg (t=1): window [20-10, 20+25] relative to the agent's user_msg
    sc = scenario([email(delay=20)])
    j = judge(sc, [a_email(t)], extra_send_message_to_user_allowed=0)
    assert j.success is ok, j.render()
    if not ok:
        assert j.failure.categories == ["time"]
        assert "window [10s, 45s]" in j.render()


def test_small_delays_are_not_time_checked_unless_a_comparator_is_set():
    sc = scenario([email(delay=1)])
    assert judge(sc, [a_email(500)]).success  # 1 s <= threshold: not checked
    sc2 = scenario([email(delay=1, comparator="LESS_THAN")])
    assert not judge(sc2, [a_email(500)]).success


@pytest.mark.parametrize(
    "comparator,t,ok",
    [
        ("GREATER_THAN", 1 + 60 - 10, True),
        ("GREATER_THAN", 1 + 40, False),
        ("LESS_THAN", 1 + 60 + 25, True),
        ("LESS_THAN", 1 + 90, False),
        ("LESS_THAN", 2, True),
        ("EQUAL", 1 + 100, False),
    ],
)
def test_comparators(comparator, t, ok):
    sc = scenario([email(delay=60, comparator=comparator)])
    assert judge(sc, [a_email(t)]).success is ok


def test_absolute_time():
    sc = scenario([{**email(), "delay": None, "at": 1000 + 300}])
    assert judge(sc, [a_email(300 + 20)]).success
    assert not judge(sc, [a_email(300 + 30)]).success
    assert not judge(sc, [a_email(300 - 11)]).success


def test_time_reference_is_the_latest_oracle_parent():
    # o3 depends on o1 (oracle t=3) and o2 (oracle t=31, latest): measured from o2's agent time
    sc = scenario(
        [
            email(eid="o1", recipients=["a@x"], delay=2),
            email(eid="o2", recipients=["b@x"], delay=30),
            email(eid="o3", recipients=["c@x"], after=["o1", "o2"], delay=30),
        ]
    )
    rn = [
        a_email(3, eid="x1", recipients=["a@x"]),
        a_email(31, eid="x2", recipients=["b@x"]),
        a_email(61, eid="x3", recipients=["c@x"]),
    ]
    assert judge(sc, rn).success
    late = [
        a_email(3, eid="x1", recipients=["a@x"]),
        a_email(31, eid="x2", recipients=["b@x"]),
        a_email(31 + 56, eid="x3", recipients=["c@x"]),
    ]
    j = judge(sc, late)
    assert not j.success and "delay after o2" in j.render()


# ---------------------------------------------------------------- placeholders
def test_placeholder_resolved_from_matched_agent_return_value():
    sc = scenario(
        [
            {
                "id": "o_grp",
                "tool": "MessagingAppV2.create_group_conversation",
                "args": {"user_ids": ["u1", "u2"], "title": "Trip"},
                "after": ["user_msg"],
                "delay": 2,
            },
            {
                "id": "o_msg",
                "tool": "MessagingAppV2.send_message_to_group_conversation",
                "args": {"conversation_id": "{{o_grp}}", "content": "hi"},
                "after": ["o_grp"],
                "delay": 1,
            },
        ]
    )
    grp = {
        "id": "g",
        "tool": "MessagingAppV2.create_group_conversation",
        "args": {"user_ids": ["u2", "u1"], "title": "Trip"},
        "time": 3,
        "returns": "conv-42",
    }
    ok = [
        grp,
        {
            "id": "m",
            "tool": "MessagingAppV2.send_message_to_group_conversation",
            "args": {"conversation_id": "conv-42", "content": "hi", "attachment_path": None},
            "time": 4,
        },
    ]
    assert judge(sc, ok, extra_send_message_to_user_allowed=0).success
    bad = [
        grp,
        {
            "id": "m",
            "tool": "MessagingAppV2.send_message_to_group_conversation",
            "args": {"conversation_id": "conv-7", "content": "hi"},
            "time": 4,
        },
    ]
    j = judge(sc, bad)
    assert not j.success and "conv-42" in j.render()


def test_placeholder_key_path():
    sc = scenario(
        [
            {
                "id": "o_c",
                "tool": "Contacts.add_new_contact",
                "args": {"first_name": "A", "last_name": "B"},
                "after": ["user_msg"],
                "delay": 2,
            },
            {
                "id": "o_d",
                "tool": "Contacts.delete_contact",
                "args": {"contact_id": "{{o_c.id}}"},
                "after": ["o_c"],
                "delay": 1,
            },
        ]
    )
    rn = [
        {
            "id": "c",
            "tool": "Contacts.add_new_contact",
            "args": {"first_name": "A", "last_name": "B"},
            "time": 3,
            "returns": '{"id": "c-9"}',
        },
        {"id": "d", "tool": "Contacts.delete_contact", "args": {"contact_id": "c-9"}, "time": 4},
    ]
    assert judge(sc, rn).success


# ---------------------------------------------------------------- turns
MULTI = scenario(
    [
        email(),
        smtu(after=["o_mail"]),
        {
            "id": "user_msg_1",
            "type": "user",
            "tool": "AgentUserInterface.send_message_to_agent",
            "args": {"content": "now delete it"},
            "after": ["o_smtu"],
            "delay": 5,
        },
        {
            "id": "o_del",
            "tool": "EmailClientV2.delete_email",
            "args": {"email_id": "e1"},
            "after": ["user_msg_1"],
            "delay": 2,
        },
        smtu(eid="o_smtu2", after=["o_del"]),
    ]
)
TURN2 = [
    {
        "id": "user_msg_1",
        "type": "user",
        "tool": "AgentUserInterface.send_message_to_agent",
        "args": {"content": "now delete it"},
        "time": 10,
    },
    {"id": "a_del", "tool": "EmailClientV2.delete_email", "args": {"email_id": "e1"}, "time": 12},
    a_smtu(13, eid="a_smtu2"),
]


def test_multi_turn_passes_and_counts_turns():
    j = judge(MULTI, [a_email(3), a_smtu(4)] + TURN2)
    assert j.success and j.nb_turns == 2 and j.turns_judged == 2, j.render()


def test_failing_first_turn_stops_judgment():
    j = judge(MULTI, [a_email(3, recipients=["x@y"]), a_smtu(4)] + TURN2)
    assert not j.success and j.turns_judged == 1


def test_second_turn_failure_reports_turn():
    bad = [t if t["id"] != "a_del" else {**t, "args": {"email_id": "e2"}} for t in TURN2]
    j = judge(MULTI, [a_email(3), a_smtu(4)] + bad)
    assert j.turns_judged == 2 and j.failure.turn == 1


def test_online_session_judges_each_turn_when_the_message_arrives():
    from builders import run as mk

    jg = GraphPerEventJudge()
    rn = mk(MULTI, [a_email(3), a_smtu(4)] + TURN2)
    sess = jg.session(MULTI)
    verdicts = [sess.observe(e) for e in rn.events]
    turn_results = [v for v in verdicts if v is not None]
    assert len(turn_results) == 1 and turn_results[0].success and turn_results[0].turns_judged == 1
    final = sess.finish()
    assert final.success and final.turns_judged == 2


def test_online_session_stops_early_on_failure():
    from builders import run as mk

    jg = GraphPerEventJudge()
    rn = mk(MULTI, [a_email(3, recipients=["x@y"]), a_smtu(4)] + TURN2)
    sess = jg.session(MULTI)
    results = [r for r in (sess.observe(e) for e in rn.events) if r is not None]
    assert results and not results[0].success and sess.stopped


# ---------------------------------------------------------------- greedy vs exact
AMBIG = scenario(
    [
        {
            "id": "o1",
            "tool": "Calendar.add_calendar_event",
            "args": {"start_datetime": "2024-10-07 10:00:00", "end_datetime": "2024-10-07 11:00:00", "attendees": []},
            "after": ["user_msg"],
            "delay": 2,
        },
        {
            "id": "o2",
            "tool": "Calendar.add_calendar_event",
            "args": {
                "start_datetime": "2024-10-07 10:00:00",
                "end_datetime": "2024-10-07 11:00:00",
                "attendees": ["Bob"],
            },
            "after": ["user_msg"],
            "delay": 2,
        },
    ]
)
AMBIG_RUN = [
    {
        "id": "bob_event",
        "tool": "Calendar.add_calendar_event",
        "args": {"start_datetime": "2024-10-07 10:00:00", "end_datetime": "2024-10-07 11:00:00", "attendees": ["Bob"]},
        "time": 3,
    },
    {
        "id": "solo_event",
        "tool": "Calendar.add_calendar_event",
        "args": {
            "start_datetime": "2024-10-07 10:00:00",
            "end_datetime": "2024-10-07 11:00:00",
            "attendees": ["Carol"],
        },
        "time": 3.5,
    },
]


def test_greedy_misses_an_assignment_and_says_so():
    # o1 (empty attendee list = any attendees) greedily takes bob_event; o2 then has no candidate
    j = judge(AMBIG, AMBIG_RUN)
    assert not j.success
    assert "an assignment satisfying every rule exists" in j.failure.note
    assert "matching='exact'" in j.render()


def test_exact_matching_finds_it():
    j = judge(AMBIG, AMBIG_RUN, matching="exact")
    assert j.success, j.render()
    assert j.agent_event_id_to_oracle_event_id["bob_event"] == "o2"
    assert j.agent_event_id_to_oracle_event_id["solo_event"] == "o1"


def test_exact_failure_explains_no_assignment_exists():
    rn = [AMBIG_RUN[1], {**AMBIG_RUN[1], "id": "solo2", "time": 4}]
    j = judge(AMBIG, rn, matching="exact")
    assert not j.success and "no assignment" in j.failure.note


# ---------------------------------------------------------------- to_dict
def test_to_dict_is_json_ready():
    import json

    j = judge(SC, [a_email(3, recipients=["eve@x.com"]), a_smtu(4)])
    d = json.loads(json.dumps(j.to_dict()))
    assert d["success"] is False and d["failure_kind"] == "oracle_event_matching"
    assert d["failure"].startswith("Failure: Agent did not perform")
    assert d["matches"] == {"user_msg": "user_msg"}
    assert d["failure_detail"]["closest"]["detail"]["args"][0]["arg"] == "recipients"
