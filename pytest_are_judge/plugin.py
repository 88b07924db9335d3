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

# (flag, ini key, ini type, help).  Every option has an ini twin with the same meaning; the
# command line wins.  Resolution lives in ``_pytest/settings.py``.
OPTIONS: list[tuple[str, str, str, dict[str, Any], str]] = [
    (
        "--are-scenarios",
        "are_scenarios",
        "paths",
        {"action": "append", "metavar": "PATH"},
        "collect every ARE trace and native scenario under PATH as test items (repeatable)",
    ),
    (
        "--are-limit",
        "are_limit",
        "string",
        {"type": int, "metavar": "N"},
        "judge at most N collected runs (the first N in collection order)",
    ),
    (
        "--are-matching",
        "are_matching",
        "string",
        {"choices": ("greedy", "exact")},
        "matching mode: greedy (ARE's first-fit, default) or exact",
    ),
    (
        "--are-config",
        "are_config",
        "string",
        {"metavar": "FILE"},
        "judge config (JSON/YAML/TOML) for collected scenarios and fixtures; a scenario file's own judge_config overrides it",
    ),
    (
        "--are-min-pass-rate",
        "are_min_pass_rate",
        "string",
        {"metavar": "R"},
        "fail the session when the judged pass rate is below R (0..1 or a percentage like 90%)",
    ),
    (
        "--are-baseline",
        "are_baseline",
        "string",
        {"metavar": "FILE"},
        "compare with a saved baseline: fail only on regressions, report improvements",
    ),
    (
        "--are-save-baseline",
        "are_save_baseline",
        "string",
        {"metavar": "FILE"},
        "write every run's verdict to FILE (for --are-baseline)",
    ),
    (
        "--are-report",
        "are_report",
        "string",
        {"metavar": "FILE"},
        "write a JSON report of every verdict and failure to FILE",
    ),
    (
        "--are-hf",
        "are_hf",
        "string",
        {"metavar": "DATASET"},
        "oracle scenarios from a Hugging Face dataset (local folder/file or cached name), paired with the "
        "collected runs by scenario id (needs the [hf] extra)",
    ),
    (
        "--are-hf-split",
        "are_hf_split",
        "string",
        {"metavar": "SPLIT"},
        "split of the --are-hf dataset (e.g. validation)",
    ),
    (
        "--are-hf-config",
        "are_hf_config",
        "string",
        {"metavar": "NAME"},
        "config of the --are-hf dataset (Gaia2: execution, search...)",
    ),
    (
        "--are-k",
        "are_k",
        "string",
        {"type": int, "metavar": "K"},
        "k for pass@k / pass^k over repeated runs of a scenario (default: the smallest run count among "
        "scenarios with two runs or more)",
    ),
    (
        "--are-min-pass-hat-k",
        "are_min_pass_hat_k",
        "string",
        {"metavar": "R"},
        "fail the session when the overall pass^k of repeated runs is below R (0..1 or a percentage like 80%)",
    ),
    (
        "--are-html",
        "are_html",
        "string",
        {"metavar": "FILE"},
        "write a self-contained HTML report (oracle graphs, timelines, failures) of every judged run to FILE",
    ),
    (
        "--are-md-summary",
        "are_md_summary",
        "string",
        {"metavar": "FILE"},
        "write a Markdown summary (failing runs with Mermaid graphs) to FILE; also appended to $GITHUB_STEP_SUMMARY when set",
    ),
    (
        "--are-llm",
        "are_llm",
        "bool",
        {"action": "store_true", "default": None},
        "judge LLM-checked arguments with an LLM (config llm=True)",
    ),
    ("--judge-model", "judge_model", "string", {"metavar": "MODEL"}, "LLM judge model (config judge_model)"),
    ("--judge-provider", "judge_provider", "string", {"metavar": "NAME"}, "LLM judge provider (config judge_provider)"),
    ("--judge-endpoint", "judge_endpoint", "string", {"metavar": "URL"}, "LLM judge endpoint (config judge_endpoint)"),
    ("--are-llm-cache", "are_llm_cache", "string", {"metavar": "PATH"}, "LLM answer cache (llm_options.cache_path)"),
    (
        "--are-llm-replay-only",
        "are_llm_replay_only",
        "bool",
        {"action": "store_true", "default": None},
        "never call the LLM, only replay the cache (llm_options.replay_only)",
    ),
    (
        "--are-llm-concurrency",
        "are_llm_concurrency",
        "string",
        {"type": int, "metavar": "N"},
        "parallel LLM requests (llm_options.concurrency)",
    ),
    (
        "--are-judge-votes",
        "are_judge_votes",
        "string",
        {"type": int, "metavar": "N"},
        "LLM votes per soft check (config judge_votes)",
    ),
]

INI_ONLY: list[tuple[str, str, Any, str]] = [
    ("are_xfail_strict", "bool", True, "an expected-fail run that passes fails the session (default true)"),
]

MARKERS = (
    "judge_config(**kwargs): judge settings for this test (merged over the judge_config fixture); "
    "see docs/configuration.md",
    "are_scenario(path, run=None, oracle=None): bind this test to a scenario/trace file "
    "(used by the load_scenario, are_run, agent_events and oracle_events fixtures)",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("are-judge", "judge agent runs against ARE scenarios (pytest-are-judge)")
    for flag, ini, ini_type, kwargs, help_text in OPTIONS:
        group.addoption(flag, dest=ini, help=f"{help_text} [ini: {ini}]".replace("%", "%%"), **kwargs)
        parser.addini(ini, help=help_text, type=ini_type)  # type: ignore[arg-type]
    for ini, ini_type, default, help_text in INI_ONLY:
        parser.addini(ini, help=help_text, type=ini_type, default=default)  # type: ignore[arg-type]


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    report = yield
    if (
        report.failed
        and call.excinfo is not None
        and isinstance(item, pytest.Function)
        and type(call.excinfo.value).__name__ == "JudgmentError"
    ):
        from ._pytest.helpers import judgment_longrepr

        longrepr = judgment_longrepr(item, call.excinfo)
        if longrepr is not None:
            report.longrepr = longrepr
    return report


def __getattr__(name: str) -> Any:
    # Lazy public re-exports (never touched by pluggy, which only inspects real attributes).
    if name == "JudgmentSnapshotExtension":
        from ._pytest.snapshot import JudgmentSnapshotExtension

        return JudgmentSnapshotExtension
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
