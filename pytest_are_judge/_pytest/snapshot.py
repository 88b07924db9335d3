"""syrupy support: snapshot a judgment's stable rendering (syrupy is imported only here)."""

from __future__ import annotations

from typing import Any

from syrupy.extensions.amber import AmberSnapshotExtension


def stable_rendering(judgment: Any) -> str:
    """Verdict, ids, matches and ARE's failure text: nothing that depends on paths or timing."""
    lines = [
        f"verdict: {'ERROR' if judgment.is_error else ('PASS' if judgment.success else 'FAIL')}",
        f"scenario: {judgment.scenario_id}",
        f"run: {judgment.run_id}",
        f"matching: {judgment.matching}",
        f"failure_kind: {judgment.failure_kind}",
        f"categories: {', '.join(judgment.failure.categories) if judgment.failure is not None else ''}",
        "matches:",
    ]
    matches = judgment.agent_event_id_to_oracle_event_id
    lines += [f"  {agent} -> {oracle}" for agent, oracle in sorted(matches.items())] or ["  (none)"]
    lines.append("failure:")
    text = str(judgment.failure) if judgment.failure is not None else "None"
    lines += [f"  {line}".rstrip() for line in text.splitlines()]
    return "\n".join(lines) + "\n"


class JudgmentSnapshotExtension(AmberSnapshotExtension):
    """``snapshot.use_extension(JudgmentSnapshotExtension)``: a Judgment is stored as its stable
    rendering (see :func:`stable_rendering`); anything else as syrupy's amber format."""

    def serialize(self, data: Any, **kwargs: Any) -> Any:
        from ..judgment.result import Judgment

        if isinstance(data, Judgment):
            data = stable_rendering(data)
        elif isinstance(data, list) and data and all(isinstance(d, Judgment) for d in data):
            data = [stable_rendering(d) for d in data]
        return super().serialize(data, **kwargs)
