"""The plugin is inert and cheap unless used."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

HEAVY = ("pydantic", "litellm", "networkx", "datasets", "yaml")


def _imported(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", line)
        if m:
            names.add(m.group(1).split(".")[0])
    return names


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    # only our plugin: other installed plugins (langsmith's imports pydantic) must not mask it
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "pytest",
            "-p",
            "pytest_are_judge.plugin",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_unused_plugin_imports_nothing_heavy(tmp_path) -> None:
    (tmp_path / "test_trivial.py").write_text("def test_a():\n    assert 1\n")
    proc = _run(tmp_path, "--co", "-q")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    imported = _imported(proc.stderr)
    assert "pytest_are_judge" in imported  # the plugin was loaded...
    assert not imported & set(HEAVY), imported & set(HEAVY)  # ...and cost nothing heavy
    proc = _run(tmp_path, "-q", "-s")  # running (not only collecting) too
    assert proc.returncode == 0
    assert not _imported(proc.stderr) & set(HEAVY)


def test_used_plugin_does_import_the_judge(tmp_path) -> None:
    """Guards the test above: the detection works when the judge is really used."""
    (tmp_path / "test_trivial.py").write_text("def test_a(are_judge):\n    assert are_judge.config\n")
    proc = _run(tmp_path, "-q", "-s")  # -s: imports during the test are not captured away
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pydantic" in _imported(proc.stderr)


@pytest.mark.parametrize("marker", ["judge_config", "are_scenario"])
def test_markers_registered(pytester: pytest.Pytester, marker: str) -> None:
    pytester.makepyfile(test_m=f"import pytest\n@pytest.mark.{marker}\ndef test_a():\n    pass\n")
    pytester.runpytest_subprocess("--strict-markers", "-p", "no:xdist").assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess("--markers")
    result.stdout.fnmatch_lines([f"@pytest.mark.{marker}(*"])
