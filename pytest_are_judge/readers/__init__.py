"""Readers: every file format becomes the one internal model (:mod:`pytest_are_judge.model`).

- ARE export JSON (``are_simulation_v1``) — :mod:`.are_json`
- native YAML/JSON scenarios with agent runs — :mod:`.native`
- Hugging Face ``datasets`` rows — :mod:`.hf` (extra ``[hf]``)
"""

from __future__ import annotations

from ._load import LoadedFile, RunIndex, discover, load_file, load_run_file, load_runs

__all__ = ["LoadedFile", "RunIndex", "discover", "load_file", "load_run_file", "load_runs"]
