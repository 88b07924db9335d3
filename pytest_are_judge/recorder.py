"""Record what an agent does while it runs, then judge it against a scenario.

    rec = Recorder("scenarios/booking.yaml")
    rec.user("Book me a ride to the airport")
    book = rec.record(book_ride)          # a decorator: every call is recorded (sync or async)
    book(destination="CDG")               # -> a tool event with its arguments and result
    rec.reply("Your ride is booked.")
    rec.judge().success                   # the same judgment as any run
    rec.save("recordings/booking.json")   # replay it offline: runs: [{id: live, file: ...}]

Times come from ``clock`` (default: ``time.monotonic``), counted from the first event and placed
after the scenario's start; pass (or assign, before the first event) your own clock for
deterministic tests.  Tool names
and arguments go through the scenario's ``tool_map`` (or the one given), like adapted logs.
"""

from __future__ import annotations

import functools
import inspect
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from .judgment.result import Judgment
from .model import EventType, Run, Scenario

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Recorder"]


class Recorder:
    """Events of one live run of an agent, in the native run format."""

    def __init__(
        self,
        scenario: Scenario | str | Path,
        *,
        tool_map: dict[str, Any] | None = None,
        clock: Callable[[], float] | None = None,
        run_id: str = "recorded",
    ) -> None:
        from .readers import adapters

        raw_tool_map = None
        if not isinstance(scenario, Scenario):
            scenario, raw_tool_map = _load_scenario(Path(scenario))
        self.scenario = scenario
        self.tool_map = adapters.check_tool_map(
            tool_map if tool_map is not None else raw_tool_map, file=scenario.source or ""
        )
        self.run_id = run_id
        self.clock: Callable[[], float] = clock or time.monotonic
        """Where times come from; may be replaced before the first event (e.g. in a test)."""
        self._t0: float | None = None
        self._users = [e.event_id for e in scenario.events if e.event_type == EventType.USER]
        self._apps = {
            e.action.app: e.action.app_class for e in scenario.events if e.action is not None and e.action.app_class
        }
        self.steps: list[dict[str, Any]] = []
        """What happened, in the agent's own naming (the steps a log reader sees)."""

    @property
    def events(self) -> list[dict[str, Any]]:
        """The recorded run as native agent events (``tool``, ``args``, ``time``...), made exactly
        as from an agent log (:func:`~.readers.adapters.events_from_steps`)."""
        from .readers.adapters import events_from_steps

        return events_from_steps(
            self.steps,
            self.tool_map,
            timed=True,
            start_time=0.0,
            file=self.scenario.source or "",
            apps=self._apps,
            user_ids=self._users,
        )

    # ------------------------------------------------------------ recording
    def _now(self) -> float:
        if self._t0 is None:  # times count from the first event's clock reading
            self._t0 = self.clock()
        return round(self.clock() - self._t0, 6)

    def user(self, text: str) -> None:
        """The user's message to the agent (takes the id of the scenario's next user event)."""
        self.steps.append({"kind": "user", "text": text, "time": self._now()})

    def reply(self, text: str) -> None:
        """The agent's message to the user (``send_message_to_user``: it closes a turn)."""
        self.steps.append({"kind": "reply", "text": text, "time": self._now()})

    def tool(
        self, name: str, args: dict[str, Any] | None = None, result: Any = None, *, error: str | None = None
    ) -> None:
        """A tool call the agent made (``name`` in the agent's own naming; see ``tool_map``)."""
        self.steps.append(
            {
                "kind": "tool",
                "name": name,
                "args": _jsonable(dict(args or {})),
                "result": _jsonable(result),
                "error": error,
                "time": self._now(),
            }
        )

    def record(self, func: F | None = None, *, name: str | None = None) -> Any:
        """Decorate a tool function (sync or async): each call is recorded with its arguments
        (by parameter name), its result, or the exception it raised (which is re-raised)."""

        def wrap(f: F) -> F:
            tool_name = name or f.__name__
            sig = inspect.signature(f)

            def bound(*a: Any, **kw: Any) -> dict[str, Any]:
                ba = sig.bind(*a, **kw)
                ba.apply_defaults()
                return {k: v for k, v in ba.arguments.items() if k not in ("self", "cls")}

            if inspect.iscoroutinefunction(f):

                @functools.wraps(f)
                async def awrapper(*a: Any, **kw: Any) -> Any:
                    args = bound(*a, **kw)
                    try:
                        result = await f(*a, **kw)
                    except Exception as exc:
                        self.tool(tool_name, args, error=f"{type(exc).__name__}: {exc}")
                        raise
                    self.tool(tool_name, args, result)
                    return result

                return awrapper  # type: ignore[return-value]

            @functools.wraps(f)
            def wrapper(*a: Any, **kw: Any) -> Any:
                args = bound(*a, **kw)
                try:
                    result = f(*a, **kw)
                except Exception as exc:
                    self.tool(tool_name, args, error=f"{type(exc).__name__}: {exc}")
                    raise
                self.tool(tool_name, args, result)
                return result

            return wrapper  # type: ignore[return-value]

        return wrap(func) if func is not None else wrap

    # ------------------------------------------------------------ judging
    def run(self) -> Run:
        """The recorded run (times after the scenario's start)."""
        from .readers.native import NativeAgentEvent, agent_events_from_native

        start = self.scenario.start_time
        items = [NativeAgentEvent.model_validate(e) for e in self.events]
        events = agent_events_from_native(
            items, start_time=start, apps={"AgentUserInterface": "AgentUserInterface", **self._apps}
        )
        return Run(
            scenario=self.scenario,
            events=events,
            run_id=self.run_id,
            source=self.scenario.source,
            metadata={"format": "recorded"},
        )

    def judge(self, config: Any = None, **overrides: Any) -> Judgment:
        """The judgment of the recorded run (the scenario's own ``judge_config`` applies)."""
        from .pipeline import Pipeline, config_from_overrides

        return Pipeline(config_from_overrides(config, **overrides)).judge_run(self.run())

    def save(self, path: str | Path) -> Path:
        """Write the run as a native agent log (``runs: [{id: ..., file: <path>}]`` replays it)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"events": self.events}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return p


def _load_scenario(path: Path) -> tuple[Scenario, Any]:
    """The scenario of a native file (its runs are not read: the recording may not exist yet) or
    of an ARE export, and the file's ``tool_map``."""
    from ._files import read_document
    from .readers.are_json import is_are_export, read_export
    from .readers.native import scenario_from_native, validate_native

    data = read_document(path)
    if is_are_export(data):
        return read_export(data, file=str(path)).scenario, None
    doc = validate_native(data, file=str(path))
    return scenario_from_native(doc, file=str(path)), doc.tool_map


def _jsonable(value: Any) -> Any:
    """A value as it would be written to a run file (so a replay sees what the live run saw)."""
    return json.loads(json.dumps(value, default=str))
