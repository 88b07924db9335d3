"""pytest plugin entry point (``pytest11: are_judge``).

Kept thin and cheap: options, ini keys, markers and hook wiring only.  Everything that needs
pydantic, networkx or the judge lives in :mod:`pytest_are_judge._pytest` and is imported only
when an ``--are-*`` option (or ini key), a marker or a fixture of this plugin is actually used.
"""

from __future__ import annotations

from typing import Any

import pytest

# Assertion rewriting for our helper modules (must happen before they are imported).
pytest.register_assert_rewrite("pytest_are_judge._pytest.fixtures", "pytest_are_judge._pytest.helpers")

MARKERS = (
    "judge_config(**kwargs): judge settings for this test (merged over the judge_config fixture); "
    "see docs/configuration.md",
    "are_scenario(path, run=None, oracle=None, record=None): bind this test to a scenario/trace file "
    "(used by the load_scenario, are_run, agent_events, oracle_events and are_recorder fixtures)",
)


_INI_TYPES = {"paths": "paths", "bool": "bool"}


def pytest_addoption(parser: pytest.Parser) -> None:
    from .options import plugin_options

    group = parser.getgroup("are-judge", "judge agent runs against ARE scenarios (pytest-are-judge)")
    for opt in plugin_options():
        if opt.flag:
            kwargs: dict[str, Any] = {
                "dest": opt.ini or opt.key,
                "help": f"{opt.help} [ini: {opt.ini}]".replace("%", "%%"),
            }
            if opt.kind == "bool":
                kwargs.update(action="store_true", default=None)
            elif opt.kind == "paths":
                kwargs.update(action="append", metavar=opt.metavar)
            else:
                kwargs.update(metavar=opt.metavar or opt.key.upper(), choices=opt.choices or None)
            group.addoption(opt.flag, **kwargs)
        if opt.ini:
            parser.addini(opt.ini, help=opt.help, type=_INI_TYPES.get(opt.kind, "string"), default=None)  # type: ignore[arg-type]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_configure(config: pytest.Config) -> None:
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    from ._pytest import fixtures  # pytest-only imports: cheap

    config.pluginmanager.register(fixtures, "are_judge_fixtures")
    from ._pytest.settings import is_active

    if is_active(config):
        from ._pytest.session import AreJudgeSession

        config.pluginmanager.register(AreJudgeSession(config), "are_judge_session")


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> Any:
    # A scenario file named on the command line without --are-scenarios: say how to judge it
    # (pytest would otherwise report "no tests ran" or "not found").
    if file_path.suffix.lower() not in (".yaml", ".yml", ".json") or not parent.session.isinitpath(file_path):
        return None
    if parent.config.pluginmanager.has_plugin("are_judge_session"):
        return None
    from ._pytest.collection import UncollectedScenarioFile

    return UncollectedScenarioFile.from_parent(parent, path=file_path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if (
        report.failed
        and call.excinfo is not None
        and call.when == "setup"
        and getattr(item, "are_scenario_item", False)
    ):
        # pytest renders setup errors as tracebacks; ours are input errors: show the message
        report.longrepr = item.repr_failure(call.excinfo)
    elif (
        report.failed
        and call.excinfo is not None
        and isinstance(item, pytest.Function)
        and type(call.excinfo.value).__name__ == "JudgmentError"
    ):
        from ._pytest.helpers import judgment_longrepr

        longrepr = judgment_longrepr(item, call.excinfo)
        if longrepr is not None:
            report.longrepr = longrepr
    elif report.passed and call.when == "call" and hasattr(item, "are_recording"):
        from ._pytest.recording import judge_recorded

        judge_recorded(item, report)
    return report


def __getattr__(name: str) -> Any:
    # Lazy public re-exports (never touched by pluggy, which only inspects real attributes).
    if name == "JudgmentSnapshotExtension":
        from ._pytest.snapshot import JudgmentSnapshotExtension

        return JudgmentSnapshotExtension
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
