"""Scenario folders collected as a whole (no node per file): same items, ids, order and selection
as with a node per file; pytest's usual collection wherever the command line needs it."""

from __future__ import annotations

import textwrap

import pytest
from test_plugin_collection import GOOD, write_cases

OTHER = GOOD.replace("scenario_id: mail", "scenario_id: other")


def make_tree(root) -> None:
    sc = root / "sc"
    (sc / "sub").mkdir(parents=True)
    (sc / "mail.yaml").write_text(GOOD)
    (sc / "sub" / "other.yaml").write_text(OTHER)
    write_cases(sc)


def node_ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines if "::" in line and not line.startswith(("=", "-"))]


def test_folder_items_match_file_nodes(pytester: pytest.Pytester, run_pytest) -> None:
    make_tree(pytester.path)
    whole = run_pytest("--are-scenarios=sc", "--co", "-q")
    files = sorted(str(p.relative_to(pytester.path)) for p in (pytester.path / "sc").rglob("*.*") if p.name != "oracle.json")
    # naming the files keeps a node per file (the folder holds command-line paths)
    named = run_pytest("--are-scenarios=sc", "--co", "-q", *files)
    assert node_ids(whole) == node_ids(named)
    assert len(node_ids(whole)) == 8  # 3 + 3 native runs, 2 ARE agent runs
    tree = run_pytest("--are-scenarios=sc", "--co")
    tree.stdout.fnmatch_lines(["*<ScenarioDir sc>*", "*<ScenarioDir sub>*", "*<ScenarioItem other[[]ok[]]>*"])
    assert "<ScenarioFile" not in tree.stdout.str()
    assert "<ScenarioFile" in run_pytest("--are-scenarios=sc", "--co", *files).stdout.str()


def test_folder_runs_judge_like_file_nodes(pytester: pytest.Pytester, run_pytest) -> None:
    make_tree(pytester.path)
    result = run_pytest("--are-scenarios=sc", "-rA")
    # per native file: ok passes, wrong is an expected failure, bad fails; of the ARE runs, the
    # one that dropped the ride fails (ARE's verdict)
    result.assert_outcomes(passed=3, failed=3, xfailed=2)
    for line in (  # each on its own: under xdist the summary lists them in completion order
        "PASSED sc/traces/cab__arg__oracle_order__locations_other/agent.json::hx_cab[[]agent[]]*",
        "FAILED sc/mail.yaml::mail[[]bad[]]*",
        "FAILED sc/sub/other.yaml::other[[]bad[]]*",
        "FAILED sc/traces/cab__drop__oracle_order/agent.json::hx_cab[[]agent[]]*",
    ):
        result.stdout.fnmatch_lines([line])


def test_file_and_item_arguments_inside_a_scenario_folder(pytester: pytest.Pytester, run_pytest) -> None:
    make_tree(pytester.path)
    # a node id inside the folder: the folder keeps a node per file, so pytest finds the item
    # (named paths add to the scenario roots: the whole folder runs, each item once)
    tree = run_pytest("--are-scenarios=sc", "sc/mail.yaml::mail[ok]", "--co")
    tree.stdout.fnmatch_lines(["*<ScenarioFile mail.yaml>*", "*<ScenarioItem mail[[]ok[]]>*", "*<ScenarioDir sub>*"])
    assert "<ScenarioDir sc>" not in tree.stdout.str()
    result = run_pytest("--are-scenarios=sc", "sc/mail.yaml::mail[ok]", "-rA")
    result.assert_outcomes(passed=3, failed=3, xfailed=2)
    result.stdout.fnmatch_lines(["PASSED sc/mail.yaml::mail[[]ok[]]*"])
    # a sub-folder named on its own is collected as a whole, and only it
    result = run_pytest("--are-scenarios=sc/sub", "-rA")
    result.assert_outcomes(passed=1, failed=1, xfailed=1)
    result.stdout.fnmatch_lines(["FAILED sc/sub/other.yaml::other[[]bad[]]*"])


def test_keywords_ignore_options_and_conftest_ignores(pytester: pytest.Pytester, run_pytest) -> None:
    make_tree(pytester.path)
    # -k sees the file name although there is no file node
    result = run_pytest("--are-scenarios=sc", "-k", "mail.yaml and ok", "-rA")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["PASSED sc/mail.yaml::mail[[]ok[]]*"])
    result = run_pytest("--are-scenarios=sc", "-k", "sub", "--co", "-q")
    assert all(i.startswith("sc/sub/") for i in node_ids(result)) and len(node_ids(result)) == 3
    # --ignore and a conftest's collect_ignore are honoured inside the folder
    result = run_pytest("--are-scenarios=sc", "--ignore=sc/sub", "--co", "-q")
    assert not any("other.yaml" in i for i in node_ids(result)) and len(node_ids(result)) == 5
    (pytester.path / "sc" / "conftest.py").write_text('collect_ignore = ["mail.yaml"]\n')
    result = run_pytest("--are-scenarios=sc", "--co", "-q")
    assert not any("mail.yaml" in i for i in node_ids(result)) and len(node_ids(result)) == 5


def test_python_tests_conftests_and_packages_in_a_scenario_folder(pytester: pytest.Pytester, run_pytest) -> None:
    make_tree(pytester.path)
    sc = pytester.path / "sc"
    # a conftest in the folder is loaded: its fixture serves a test module next to the scenarios
    (sc / "conftest.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.fixture
            def answer():
                return 42
            """
        )
    )
    (sc / "test_here.py").write_text("def test_here(answer):\n    assert answer == 42\n")
    # a Python package keeps pytest's Package (and a node per file)
    pkg = sc / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "third.yaml").write_text(GOOD.replace("scenario_id: mail", "scenario_id: third"))
    result = run_pytest("--are-scenarios=sc", "--co", "-q")
    ids = node_ids(result)
    assert "sc/test_here.py::test_here" in ids
    assert "sc/pkg/third.yaml::third[ok]" in ids
    assert len(ids) == 8 + 1 + 3
    tree = run_pytest("--are-scenarios=sc", "--co")
    tree.stdout.fnmatch_lines(["*<Package pkg>*", "*<ScenarioFile third.yaml>*"])
    result = run_pytest("--are-scenarios=sc", "-k", "here or pkg")
    result.assert_outcomes(passed=2, failed=1, xfailed=1)
