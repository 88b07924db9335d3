"""The one internal model: events, oracle events, scenarios and runs.

Every file format is a reader into these types (see :mod:`pytest_are_judge.readers`).
Nothing here does I/O or judging.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

MAX_TIME = 1e11
"""Latest absolute time accepted (unix seconds, about year 5138): keeps times finite and exact."""

Seconds = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0, le=MAX_TIME)]
"""A duration or a time in seconds in input files and configs: a real number (never a string,
never NaN or infinite), not negative."""
Count = Annotated[int, Field(strict=True, ge=0)]
"""A whole number in input files and configs (never a string or a bool)."""

AUI_APP = "AgentUserInterface"
AUI_SEND_TO_USER = "AgentUserInterface__send_message_to_user"
AUI_SEND_TO_AGENT = "AgentUserInterface__send_message_to_agent"


class EventType(str, enum.Enum):
    AGENT = "AGENT"
    ENV = "ENV"
    USER = "USER"
    CONDITION = "CONDITION"
    VALIDATION = "VALIDATION"
    STOP = "STOP"


class OperationType(str, enum.Enum):
    READ = "READ"
    WRITE = "WRITE"


class TimeComparator(str, enum.Enum):
    EQUAL = "EQUAL"
    LESS_THAN = "LESS_THAN"
    GREATER_THAN = "GREATER_THAN"


class _Frozenish(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=False)


class ToolCall(_Frozenish):
    """One call of an app method: ``app`` is the instance name, ``app_class`` its class."""

    app: str
    function: str
    app_class: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    operation_type: OperationType | None = None
    tool_name_override: str | None = None

    @property
    def tool_name(self) -> str:
        """``Class__function`` (ARE's tool name), or the explicit override."""
        if self.tool_name_override:
            return self.tool_name_override
        return f"{self.app_class or self.app or 'NoApp'}__{self.function or 'NoFunction'}"


class Event(_Frozenish):
    """A completed event of a run's log (agent run or oracle run)."""

    event_id: str
    event_type: EventType
    event_time: float = 0.0
    action: ToolCall | None = None
    return_value: Any = None
    exception: str | None = None

    @property
    def failed(self) -> bool:
        return self.exception is not None

    @property
    def tool_name(self) -> str:
        return self.action.tool_name if self.action else "NoApp__NoFunction"

    @property
    def args(self) -> dict[str, Any]:
        return self.action.args if self.action else {}

    @property
    def is_write(self) -> bool:
        return self.action is not None and self.action.operation_type == OperationType.WRITE

    @property
    def is_aui_message(self) -> bool:
        return self.event_type == EventType.AGENT and self.tool_name == AUI_SEND_TO_USER


class CheckSpec(_Frozenish):
    """A per-event argument check (ARE's ``ToolCheckerParam`` without the tool name)."""

    arg_name: str
    checker_type: str
    checker_args: dict[str, Any] = Field(default_factory=dict)


class OracleEvent(_Frozenish):
    """An event of the scenario definition (the DAG): USER/ENV events and expected agent actions."""

    event_id: str
    event_type: EventType
    action: ToolCall | None = None
    dependencies: list[str] = Field(default_factory=list)
    relative_time: float | None = None
    """Delay in seconds after the latest dependency (after scenario start without one)."""
    absolute_time: float | None = None
    """Absolute unix time; only used when ``relative_time`` is None."""
    comparator: TimeComparator | None = None
    checks: list[CheckSpec] = Field(default_factory=list)
    """Extra per-event checks (native scenarios); merged into ``event_id_to_checker_params``."""

    @property
    def tool_name(self) -> str:
        return self.action.tool_name if self.action else "NoApp__NoFunction"


class UserDetails(_Frozenish):
    first_name: str = ""
    last_name: str = ""
    address: str = ""

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"


class AppInfo(_Frozenish):
    name: str
    class_name: str


class Scenario(_Frozenish):
    """A scenario: its definition DAG and, when known, the oracle run's log."""

    scenario_id: str
    start_time: float = 0.0
    apps: list[AppInfo] = Field(default_factory=list)
    events: list[OracleEvent] = Field(default_factory=list)
    oracle_run: list[Event] | None = None
    """The completed events of an oracle run; derived from ``events`` when None."""
    user: UserDetails | None = None
    source: str | None = None
    judge_config: dict[str, Any] | None = None
    """Judge settings carried by the scenario file (override the session's config)."""
    metadata: dict[str, Any] = Field(default_factory=dict)

    def event_by_id(self) -> dict[str, OracleEvent]:
        return {e.event_id: e for e in self.events}


class Run(_Frozenish):
    """One agent run of a scenario: the log to judge."""

    scenario: Scenario
    events: list[Event]
    run_id: str = "run"
    source: str | None = None
    run_number: int | None = None
    expected: str | None = None
    """``"fail"`` when the run is a known-bad example (reported as xfail)."""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.scenario.scenario_id}:{self.run_id}"
