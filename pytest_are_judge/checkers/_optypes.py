"""Operation types (read/write) of tools, needed when an oracle run is derived from a definition.

ARE learns them from its app classes; we are standalone, so we use, in order: what a completed
event in the same file says, the checker registry (every registered tool is a write), the
AUI message tools, and a name rule for read-style method names.  Unknown tools are writes, so
they are judged rather than silently dropped.
"""

from __future__ import annotations

import re

from ..model import OperationType

_READ_NAME = re.compile(
    r"^(get|list|search|read|find|lookup|check|is|has|count|show|view|open_app|cat|ls|exists|info|tree|"
    r"current|wait|display|browse|query|fetch|preview|load|describe)(_|$)"
)
_KNOWN_READS = {
    "AgentUserInterface__send_message_to_agent",  # a USER tool; its events are USER typed anyway
    "CabApp__get_quotation",
    "SystemApp__get_current_time",
    "SystemApp__wait_for_notification",
}
_KNOWN_WRITES = {"AgentUserInterface__send_message_to_user"}


def infer_operation_type(tool_name: str, function: str, registry: frozenset[str] | set[str]) -> OperationType:
    if tool_name in _KNOWN_WRITES or tool_name in registry:
        return OperationType.WRITE
    if tool_name in _KNOWN_READS or _READ_NAME.match(function):
        return OperationType.READ
    return OperationType.WRITE
