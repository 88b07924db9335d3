"""Hooks of pytest-are-judge (all in one place).

Implement them in a ``conftest.py`` or a plugin, like any pytest hook::

    def pytest_are_judge_register_checkers(register):
        register("iban_checker", lambda agent, oracle, **kw: agent.replace(" ", "") == oracle.replace(" ", ""))

    def pytest_are_judge_adjust_config(scenario, config):
        if scenario.scenario_id.startswith("slow_"):
            return {"post_event_tolerance_seconds": 60}

    def pytest_are_judge_judgment(item, run, judgment):
        item.user_properties.append(("failure_kind", judgment.failure_kind))

See docs/hooks.md for the full contract.
"""

from __future__ import annotations

from typing import Any

import pluggy
import pytest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_are_judge_register_checkers(register: Any) -> None:
    """Register custom argument checkers before the first run is judged (once per process,
    so once per xdist worker too).

    ``register`` is :func:`pytest_are_judge.checkers.register_checker`:
    ``register(name, func, kind="hard"|"scripted")``.  A hard checker is called as
    ``func(agent_value, oracle_value, **checker_args)``, a scripted one as
    ``func(agent_value, **checker_args)``; both return a bool.  Refer to the new checker by
    ``name`` in ``per_tool_arg_to_checker_type`` or in per-event ``checks``.
    """


@hookspec
def pytest_are_judge_adjust_config(scenario: Any, config: Any) -> Any:
    """Adjust the judge config of one scenario.

    Called for every judged run (collected scenario items and fixture-based judging) with the
    :class:`~pytest_are_judge.model.Scenario` and the effective
    :class:`~pytest_are_judge.GraphPerEventJudgeConfig` (session config, then the scenario
    file's own ``judge_config``, then fixture/marker settings).  Return ``None`` (no change),
    a mapping of fields to override, or a whole new config.  When several implementations
    return something, the results are applied in hook-call order (later wins per field).
    Do not mutate ``config`` in place: it is shared.
    """


@hookspec
def pytest_are_judge_judgment(item: pytest.Item, run: Any, judgment: Any) -> None:
    """Observe every judgment: ``item`` is the test item (a collected scenario item, or the
    test function that used the ``are_judge``/``are_judgment`` fixtures), ``run`` the
    :class:`~pytest_are_judge.model.Run`, ``judgment`` the
    :class:`~pytest_are_judge.Judgment`.  Called in the process that judged (an xdist worker
    under ``-n``); to aggregate, attach data to ``item.user_properties``.
    """
