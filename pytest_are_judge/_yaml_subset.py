"""A fast reader for the plain subset of YAML that scenario files are written in.

PyYAML spends most of a small file's load time creating one Python object per event or node,
even with libyaml.  This reader translates the subset into JSON text instead (line by line for
block collections, with one regular-expression call per line for flow collections, plain
scalars through a memo) and lets the C JSON decoder build the data and check the flow syntax.
It reads block mappings and sequences (compact ``- key: v`` items and indentless sequences
included), flow collections (over several lines too), single-line plain, single-quoted and
escape-free double-quoted scalars, and comments.  Plain scalars are resolved by the caller
(:mod:`._yaml` uses PyYAML's own resolver table and constructors).

Anything outside that subset, or anything it is not sure PyYAML would read the same way (tabs,
anchors, tags, block scalars, multi-line scalars, timestamps, merge keys, keys that are not
strings, a ``:``, ``?`` or ``#`` inside a flow plain scalar, odd indentation, document markers
other than one leading ``---``...), raises :class:`Unsupported`, and the caller hands the text
to PyYAML: results and error messages stay PyYAML's.  ``tests/test_yaml.py`` checks that, on
fixed documents and on random and mutated ones, this reader either gives up or returns exactly
what PyYAML returns.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterator

__all__ = ["NOT_PLAIN", "SubsetReader", "Unsupported"]


class Unsupported(Exception):
    """The text is outside the subset (or not valid YAML): let PyYAML read it."""


NOT_PLAIN = object()
"""What ``plain_value`` returns for a plain scalar this reader does not build (a timestamp...)."""

# printable characters other than tabs, CR, NEL, LS, PS and the BOM (libyaml's printable set
# minus what PyYAML treats as breaks or special): a text with any other is left to PyYAML
_OUTSIDE = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")

# a block mapping key: a plain scalar on one line, then ':' and a blank or the line's end.
# Kept narrow: no indicator as first character, no ':', '#', quotes or flow characters inside.
_KEY = re.compile(r"([^\s\-?:,\[\]{}#&*!|>'\"%@`][^:#,\[\]{}'\"]*?) *:(?: +|$)")

# flow collections without quotes: split at the indicators (the blanks and line breaks after
# them dropped; a piece keeps those before the next indicator, stripped when it is read).  The
# pattern starts with its indicator so that the regular-expression engine can skip to it.
_FLOW_SPLIT = re.compile(r"([\[\]{},]|:(?= ))[ \n]*")
# what no flow text of the quick path may hold: quotes, backslashes, '#' (comments are cut
# before), '?' (PyYAML's pure-Python scanner ends a flow plain scalar there, libyaml does not),
# ':' without a blank after it.  The pieces are checked one by one (_flow_piece_json).
_FLOW_REFUSED = re.compile(r"[\"'#?\\]|:(?! )")
# a quoted scalar in flow text (single line, no escapes)
_QUOTED = re.compile(r"(\"[^\"\\\n]*\"|'(?:[^'\n]|'')*')")
_NL_COLON = re.compile(r"\n[ \n]*:")
_DQ_LINE = re.compile(r'"([^"\\]*)"(?: +#.*)?')
_SQ_LINE = re.compile(r"'((?:[^']|'')*)'(?: +#.*)?")
_MAX_KEY = 128
"""Longer implicit keys are left to PyYAML (libyaml limits simple keys to 1,024 characters)."""
_MEMO_MAX = 50_000
_STRUCTURE = {"[": "[", "]": "]", "{": "{", "}": "}", ",": ",", ": ": ":", ":": ":", "": ""}


def _plain_start(text: str) -> bool:
    """Can a plain scalar start like ``text`` (no indicator first, no lone '-')?"""
    first = text[0]
    return not (first in "?:,[]{}#&*!|>%@`'\"" or (first == "-" and (len(text) == 1 or text[1] in " \n")))


def _remember(memo: dict[str, str], key: str, value: str) -> str:
    if len(memo) < _MEMO_MAX:
        memo[key] = value
    return value


def _is_dash(content: str) -> bool:
    return content[0] == "-" and (len(content) == 1 or content[1] == " ")


class SubsetReader:
    """Reads texts of the subset; ``plain_value(text)`` gives a plain scalar's value
    (:data:`NOT_PLAIN` when its tag is not one of str, int, float, bool, null)."""

    def __init__(self, plain_value: Callable[[str], Any]) -> None:
        self.plain_value = plain_value
        self.block_memo: dict[str, str] = {}  # block plain scalar -> JSON
        self.key_memo: dict[str, str] = {}  # block mapping key -> JSON string
        self.flow_memo: dict[str, str] = dict(_STRUCTURE)  # flow piece -> JSON

    def read(self, text: str) -> Any:
        """The document ``text`` as PyYAML's safe loader would build it, or :class:`Unsupported`."""
        if _OUTSIDE.search(text):
            raise Unsupported
        lines: list[list[Any]] = []
        for raw in text.split("\n"):
            content = raw.lstrip(" ")
            if not content or content[0] == "#":
                continue
            indent = len(raw) - len(content)
            if indent == 0:
                if content[0] == "%":
                    raise Unsupported  # a directive
                if content[:3] in ("---", "...") and content[3:4] in ("", " "):
                    if lines or content.rstrip(" ") != "---":
                        raise Unsupported  # a document marker other than one leading '---'
                    lines.append([0, ""])  # the marker, dropped below
                    continue
            lines.append([indent, content.rstrip(" ")])
        if lines and lines[0][1] == "":
            del lines[0]
        if not lines:
            return None
        doc = _Document(self, lines)
        out = doc.block()
        if doc.i != len(lines):
            raise Unsupported  # lines left over: bad indentation, or text after the document
        try:
            return json.loads(out)
        except ValueError:
            raise Unsupported from None  # flow syntax JSON does not take (PyYAML decides)

    # ------------------------------------------------------------- scalars
    def plain_json(self, text: str) -> str:
        value = self.plain_value(text)
        if type(value) is str and '"' not in value and "\\" not in value:
            return '"' + value + '"'  # no control characters (refused before): JSON as it is
        if value is NOT_PLAIN:
            raise Unsupported  # timestamps, merge keys, '=' values: PyYAML's constructor
        return json.dumps(value)

    def key_json(self, text: str) -> str:
        out = self.key_memo.get(text)
        if out is None:
            if len(text) > _MAX_KEY:
                raise Unsupported
            out = self.plain_json(text)
            if out[0] != '"':
                raise Unsupported  # a key that is not a string: JSON has none
            _remember(self.key_memo, text, out)
        return out

    def block_plain_json(self, text: str) -> str:
        out = self.block_memo.get(text)
        if out is None:
            if not _plain_start(text) or ": " in text or text[-1] == ":" or " #" in text:
                raise Unsupported  # an indicator; a mapping where none can start (comments are cut before)
            out = _remember(self.block_memo, text, self.plain_json(text))
        return out

    def flow_piece_json(self, piece: str) -> str:
        """A flow plain scalar (no quotes, ':', '?' or '#' inside), blanks after it included."""
        out = self.flow_memo.get(piece)
        if out is None:
            text = piece.rstrip(" \n")
            if not text or not _plain_start(text) or "\n" in text:
                raise Unsupported  # an indicator, a lone '-', a scalar over two lines
            out = _remember(self.flow_memo, piece, self.plain_json(text))
        return out

    def flow_json(self, text: str) -> str:
        """One complete flow collection (comments cut, line breaks kept) as JSON text."""
        if "\n" in text and _NL_COLON.search(text):
            raise Unsupported  # a key and its ':' on two lines (libyaml drops the key)
        if '"' in text or "'" in text:
            # quoted scalars (single line, no escapes) cut out; what is between them is read
            # like a flow text without quotes
            pieces: list[str] = []
            for k, chunk in enumerate(_QUOTED.split(text)):
                if k % 2:
                    pieces.append(chunk if chunk[0] == '"' else json.dumps(chunk[1:-1].replace("''", "'")))
                else:
                    chunk = chunk.lstrip(" \n") if k else chunk  # blanks after a quoted scalar
                    if chunk:
                        pieces += self.unquoted(chunk)
        else:
            pieces = self.unquoted(text)
        if len(text) > _MAX_KEY:
            _check_keys(pieces, ":")
        return "".join(pieces)

    def unquoted(self, text: str) -> list[str]:
        """JSON pieces of flow text without quotes: indicators and plain scalars."""
        if _FLOW_REFUSED.search(text):
            raise Unsupported
        parts = _FLOW_SPLIT.split(text)
        out = list(map(self.flow_memo.get, parts))
        if None in out:
            for k, piece in enumerate(out):
                if piece is None:
                    out[k] = self.flow_piece_json(parts[k])
        return out  # type: ignore[return-value]


class _Document:
    """One document's lines, read into JSON text."""

    __slots__ = ("r", "lines", "i", "n")

    def __init__(self, reader: SubsetReader, lines: list[list[Any]]) -> None:
        self.r = reader
        self.lines = lines
        self.i = 0
        self.n = len(lines)

    def block(self) -> str:
        """The block collection starting at the current line."""
        indent, content = self.lines[self.i]
        if _is_dash(content):
            return self.sequence(indent)
        if _KEY.match(content):
            return self.mapping(indent)
        raise Unsupported  # a bare scalar, a flow collection or something else on its own line

    def nested(self, indent: int, *, indentless: bool) -> str:
        """The value of an entry with nothing after its indicator: a deeper block, an indentless
        sequence (mapping values only), or null."""
        if self.i >= self.n:
            return "null"
        next_indent, content = self.lines[self.i]
        if next_indent > indent:
            return self.block()
        if indentless and next_indent == indent and _is_dash(content):
            return self.sequence(indent)
        return "null"

    def at(self, indent: int) -> Iterator[list[Any]]:
        """The lines of a block at ``indent``, from the current one (the caller moves past each):
        ends at a shallower line, refuses a deeper one (it would continue an entry that ended)."""
        lines = self.lines
        while self.i < self.n:
            line = lines[self.i]
            if line[0] != indent:
                if line[0] > indent:
                    raise Unsupported
                return
            yield line

    def sequence(self, indent: int) -> str:
        out: list[str] = []
        for line in self.at(indent):
            content = line[1]
            if content[:2] != "- " and content != "-":
                break  # the end of an indentless sequence, or an error (left over)
            rest = content[2:].lstrip(" ")
            first = rest[:1]
            if first == "[" or first == "{" or first == '"' or first == "'":
                out.append(self.inline(rest, indent))
            elif not rest or first == "#":
                self.i += 1
                out.append(self.nested(indent, indentless=False))
            elif rest[:2] == "- " or rest == "-" or _KEY.match(rest):
                # a compact collection: read on as if it started on its own line, at its column
                line[0], line[1] = indent + len(content) - len(rest), rest
                out.append(self.block())
            else:
                out.append(self.inline(rest, indent))
        return "[" + ",".join(out) + "]"

    def mapping(self, indent: int) -> str:
        out: list[str] = []
        key_json = self.r.key_json
        for line in self.at(indent):
            content = line[1]
            m = _KEY.match(content)
            if m is None:
                if _is_dash(content):
                    break  # an indentless sequence's owner ends here; else an error (left over)
                raise Unsupported
            key = key_json(m.group(1))
            rest = content[m.end() :]
            if not rest or rest[0] == "#":
                self.i += 1
                out.append(key + ":" + self.nested(indent, indentless=True))
            else:
                out.append(key + ":" + self.inline(rest, indent))
        return "{" + ",".join(out) + "}"

    def inline(self, text: str, indent: int) -> str:
        """The value after ``key: `` or ``- `` on the current line (a flow collection may go on
        over deeper lines), as JSON; moves past its lines."""
        first = text[0]
        if first == "[" or first == "{":
            out = self.flow(text, indent)
        elif first == '"':
            m = _DQ_LINE.fullmatch(text)
            if m is None:
                raise Unsupported  # escapes, not closed on this line, or text after it
            out = '"' + m.group(1) + '"'
        elif first == "'":
            m = _SQ_LINE.fullmatch(text)
            if m is None:
                raise Unsupported
            out = json.dumps(m.group(1).replace("''", "'"))
        else:
            cut = text.find(" #")
            if cut >= 0:
                text = text[:cut].rstrip(" ")
            out = self.r.block_plain_json(text)
        self.i += 1  # a deeper line next would continue the value: the caller's loop refuses it
        return out

    def flow(self, text: str, indent: int) -> str:
        """A flow collection starting ``text``, continued over the following lines (each deeper
        than ``indent``) until its brackets balance; comments cut."""
        last = text[-1]
        if (last == "]" or last == "}") and "#" not in text:
            # closed on its line, as far as the caller needs to know: were the brackets not
            # balanced after all, the JSON decoder refuses the document
            return self.r.flow_json(text)
        parts = []
        depth = 0
        j = self.i
        while True:
            if "#" in text:
                text = _cut_comment(text)
            parts.append(text)
            depth += _depth(text)
            if depth <= 0:
                break
            j += 1
            if j >= self.n or self.lines[j][0] <= indent:
                raise Unsupported  # not closed
            text = self.lines[j][1]
        self.i = j
        return self.r.flow_json("\n".join(parts) if len(parts) > 1 else parts[0])


def _check_keys(parts: list[str], colon: str) -> None:
    """Refuses a flow key longer than libyaml's simple keys may be (and than _MAX_KEY)."""
    if max(map(len, parts)) > _MAX_KEY:
        for k, part in enumerate(parts[:-1]):
            if len(part) > _MAX_KEY and parts[k + 1] == colon:
                raise Unsupported


def _depth(text: str) -> int:
    """Brackets opened minus brackets closed, outside quoted scalars."""
    chunks = _QUOTED.split(text)[::2] if "'" in text or '"' in text else (text,)
    return sum(c.count("[") + c.count("{") - c.count("]") - c.count("}") for c in chunks)


def _cut_comment(line: str) -> str:
    """``line`` without its comment: a '#' after a blank, outside quoted scalars.  A '#'
    anywhere else (inside a plain scalar) is refused."""
    pos = 0
    for k, chunk in enumerate(_QUOTED.split(line) if "'" in line or '"' in line else (line,)):
        cut = chunk.find("#") if k % 2 == 0 else -1
        if cut >= 0:
            start = pos + cut
            if start == 0 or line[start - 1] != " ":
                raise Unsupported
            return line[:start].rstrip(" ")
        pos += len(chunk)
    return line
