"""Collecting a whole scenario folder without a node per file (pytest >= 8).

pytest gives every file a collector node of its own, and building, collecting and reporting that
node costs more than reading and judging a small scenario.  A folder under ``--are-scenarios``
that is collected as a whole is therefore collected by :class:`ScenarioDir`: the runs of its
scenario files become items of the folder directly, with the node ids they would have under a
file node (``<file>::<scenario>[<run>]``), so ``-k``, ``--deselect``, ``--lf`` and reports see
no difference.  It walks the folder as pytest's own ``Dir`` does: same order, same
``pytest_ignore_collect`` calls (``--ignore``, ``collect_ignore``...), sub-folders through
``pytest_collect_directory``, every other file through ``pytest_collect_file``.

A folder keeps pytest's usual collection when the command line names something inside it
(``pytest sc/a.yaml::x[run]`` needs the file's node to find the item), when it is a Python
package, or when it lies outside the rootdir.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

import pytest

from .collection import ScenarioIndex, _rel_to, scenario_items


def _entries(path: Path) -> list[os.DirEntry[str]]:
    """The folder's entries sorted by name, broken ones (symlink loops...) left out, as pytest's
    own directory collector lists them."""
    out = []
    try:
        it = os.scandir(path)
    except FileNotFoundError:
        return []
    with it:
        for entry in it:
            try:
                entry.is_file()
            except OSError:
                continue
            out.append(entry)
    out.sort(key=lambda e: e.name)
    return out


class ScenarioDir(pytest.Directory):
    """A folder under a scenario root, collected as a whole: its scenario files' runs are its items."""

    index: ScenarioIndex

    def collect(self) -> Iterable[Any]:
        config = self.config
        ihook = self.ihook
        session = self.session
        root = str(config.rootpath)
        for entry in _entries(self.path):
            path = Path(entry.path)
            if entry.is_dir():
                if not session.isinitpath(path, with_parents=True) and ihook.pytest_ignore_collect(collection_path=path, config=config):
                    continue
                col = ihook.pytest_collect_directory(path=path, parent=self)
                if col is not None:
                    yield col
            elif entry.is_file():
                if not session.isinitpath(path) and ihook.pytest_ignore_collect(collection_path=path, config=config):
                    continue
                if self.index.wants(path):
                    # the node id a file node would have: the path relative to the rootdir
                    for item in scenario_items(self, path, self.index, _rel_to(root, entry.path)):
                        item.extra_keyword_matches.add(entry.name)  # -k matches file names, as with a file node
                        yield item
                else:
                    yield from ihook.pytest_collect_file(file_path=path, parent=self)


class FolderPolicy:
    """Which folders :class:`ScenarioDir` collects (decided once per folder)."""

    def __init__(self, config: pytest.Config, index: ScenarioIndex) -> None:
        self.index = index
        root = str(config.rootpath)
        self.rootdir = root.rstrip(os.sep) + os.sep
        self.enabled = not getattr(config.option, "pyargs", False)
        # every folder holding a path named on the command line: collected the usual way, so
        # that pytest can walk down to the named file (and to the item after '::')
        self.holding_args: set[str] = set()
        for arg in config.args:
            p = Path(os.path.abspath(Path(config.invocation_params.dir, arg.split("::")[0])))
            self.holding_args.update(str(parent) for parent in p.parents)

    def wants(self, path: Path) -> bool:
        p = str(path)
        return (
            self.enabled
            and self.index.root_of(path) is not None
            and (p.startswith(self.rootdir) or p + os.sep == self.rootdir)
            and p not in self.holding_args
            and not os.path.exists(os.path.join(p, "__init__.py"))
        )


def scenario_dir(parent: pytest.Collector, path: Path, policy: FolderPolicy) -> ScenarioDir | None:
    if not policy.wants(path):
        return None
    node = ScenarioDir.from_parent(parent, path=path)
    node.index = policy.index
    return node
