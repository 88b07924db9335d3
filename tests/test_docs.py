"""The reference docs follow the code: every option, config field and module is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_are_judge.judge.config import GraphPerEventJudgeConfig
from pytest_are_judge.options import OPTIONS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def table_cells(path: Path) -> set[str]:
    """Every `code span` in the table rows of a Markdown file."""
    rows = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    return {m for row in rows for m in re.findall(r"`([^`]+)`", row)}


@pytest.mark.parametrize("opt", [o for o in OPTIONS if o.flag or o.ini], ids=lambda o: o.key)
def test_every_plugin_option_is_in_the_configuration_table(opt) -> None:
    cells = table_cells(DOCS / "configuration.md")
    if opt.flag:
        assert any(c == opt.flag or c.startswith(opt.flag + "=") for c in cells), opt.flag
    if opt.ini:
        assert opt.ini in cells, opt.ini


@pytest.mark.parametrize("opt", [o for o in OPTIONS if o.cli], ids=lambda o: o.key)
def test_every_cli_option_is_in_cli_md_with_its_help(opt) -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    row = next((line for line in text.splitlines() if line.startswith(f"| `{opt.cli}")), None)
    assert row is not None, f"no row for {opt.cli} in docs/cli.md"
    assert row.rstrip(" |").endswith(opt.help.replace("|", "\\|")), row


@pytest.mark.parametrize("name", sorted(GraphPerEventJudgeConfig.model_fields))
def test_every_judge_config_field_is_in_the_configuration_table(name: str) -> None:
    assert name in table_cells(DOCS / "configuration.md")


@pytest.mark.parametrize(
    "module",
    sorted(str(p.relative_to(ROOT / "pytest_are_judge")) for p in (ROOT / "pytest_are_judge").rglob("*.py")),
)
def test_every_module_is_in_the_architecture_doc(module: str) -> None:
    if module.endswith("__init__.py") and module != "__init__.py":
        return  # a package's __init__ is its package's row
    assert f"`{module}`" in (DOCS / "architecture.md").read_text(encoding="utf-8") or any(
        module in cell for cell in table_cells(DOCS / "architecture.md")
    ), module
