"""A small reader for DiskSim 4.0's parameter syntax (``.parv``, ``.diskspecs``, ``.model``).

Written from the format description in ``shared/notes/disksim-formats.md``;
no DiskSim code is used. The syntax, in short::

    # a comment to the end of the line
    source other.diskspecs                 # include, relative to this file
    disksim_disk NAME {                    # a block: TYPE NAME { ... }
       Parameter name with spaces = 12,    # name = value, comma separated
       Model = source NAME.model,          # a value read from another file
       Mechanical Model = dm_mech_g1 {     # a nested block: name = TYPE { ... }
          Seek type = extracted,
       },
       Zones = [ dm_layout_g1_zone { ... }, dm_layout_g1_zone { ... } ],
    }
    instantiate [ disk0 .. disk3 ] as NAME
    topology disksim_iodriver driver0 [ disksim_bus bus0 [ disksim_disk disk0 [] ] ]

The reader returns plain :class:`Block` and :class:`Param` records that
remember the file and line of everything, so the importer can name them in
its errors. It knows nothing of what the parameters mean.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ProfileError

_DELIMS = set(",{}[]=#\"")
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def syntax_error(path: str, line: int, field: str, message: str) -> ProfileError:
    """A ProfileError that names the file, the line and the parameter."""
    return ProfileError(path, field, f"line {line}: {message}")


class PList(list):
    """A list value ``[ a, b, ... ]``; ``lines[i]`` is the line of item ``i``."""

    def __init__(self, items=(), lines=()):
        super().__init__(items)
        self.lines = list(lines)


@dataclass
class Param:
    """One ``Name = value`` with the file and line it came from."""

    name: str
    value: Any  # int | float | str | PList | Block
    path: str
    line: int


@dataclass
class Block:
    """A ``TYPE [NAME] { ... }`` block: its parameters in file order."""

    type: str
    name: str | None
    path: str
    line: int
    params: list[Param] = field(default_factory=list)

    def get(self, name: str) -> Param | None:
        """The parameter called ``name`` (the last one if it is given twice)."""
        found = None
        for p in self.params:
            if p.name == name:
                found = p
        return found

    @property
    def label(self) -> str:
        return f"{self.type} {self.name}" if self.name else self.type


@dataclass
class TopologyNode:
    type: str
    name: str
    line: int
    children: list[TopologyNode] = field(default_factory=list)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


@dataclass
class Document:
    """Everything one file and the files it sources define."""

    path: str
    blocks: list[Block] = field(default_factory=list)
    instances: dict[str, str] = field(default_factory=dict)  # instance name -> block name
    topology: list[TopologyNode] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def blocks_of(self, type_: str) -> list[Block]:
        return [b for b in self.blocks if b.type == type_]

    def find(self, name: str) -> Block | None:
        for b in self.blocks:
            if b.name == name:
                return b
        return None

    def merge(self, other: Document) -> None:
        self.blocks.extend(other.blocks)
        self.instances.update(other.instances)
        self.topology.extend(other.topology)
        self.files.extend(f for f in other.files if f not in self.files)
        self.warnings.extend(other.warnings)


def parse_file(path: str | Path, _stack: tuple[str, ...] = ()) -> Document:
    """Parse a DiskSim parameter file and everything it sources."""
    p = Path(path)
    key = str(p.resolve())
    if key in _stack:
        raise ProfileError(str(p), "source", "sources itself (directly or through another "
                           "file): " + " -> ".join(Path(s).name for s in (*_stack, key)))
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ProfileError(str(p), "(file)", f"cannot read the file: {exc.strerror}") from None
    return _Parser(text, str(p), (*_stack, key)).document()


def parse_text(text: str, path: str = "<text>") -> Document:
    """Parse DiskSim parameters from a string (``source`` lines resolve from the cwd)."""
    return _Parser(text, path, ()).document()


class _Parser:
    def __init__(self, text: str, path: str, stack: tuple[str, ...]):
        self.text, self.path, self.stack = text, path, stack
        self.pos, self.line = 0, 1
        self.doc = Document(path, files=[path])

    # -- characters ---------------------------------------------------------
    def _err(self, field: str, message: str, line: int | None = None) -> ProfileError:
        return syntax_error(self.path, self.line if line is None else line, field, message)

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _skip(self) -> None:
        """Skip whitespace and comments, counting lines."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            c = text[self.pos]
            if c == "\n":
                self.line += 1
                self.pos += 1
            elif c.isspace():
                self.pos += 1
            elif c == "#":
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            else:
                break

    def _skip_inline(self) -> bool:
        """Skip spaces and a comment on this line; True if a newline (or the end) follows."""
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] in " \t\r":
            self.pos += 1
        if self.pos < n and text[self.pos] == "#":
            end = text.find("\n", self.pos)
            self.pos = n if end < 0 else end
        return self.pos >= n or text[self.pos] == "\n"

    def _word(self, field: str, what: str) -> str:
        """A run of characters up to whitespace or a delimiter."""
        if self._peek() == '"':
            return self._quoted(field)
        start = self.pos
        text, n = self.text, len(self.text)
        while self.pos < n and not text[self.pos].isspace() and text[self.pos] not in _DELIMS:
            self.pos += 1
        if self.pos == start:
            got = self._peek()
            raise self._err(field, f"expected {what}, found "
                            + (f"'{got}'" if got else "the end of the file"))
        return text[start:self.pos]

    def _quoted(self, field: str) -> str:
        end = self.text.find('"', self.pos + 1)
        nl = self.text.find("\n", self.pos + 1)
        if end < 0 or (0 <= nl < end):
            raise self._err(field, "a quoted string is not closed on its line")
        s = self.text[self.pos + 1:end]
        self.pos = end + 1
        return s

    def _expect(self, ch: str, field: str, what: str, opened: int | None = None) -> None:
        self._skip()
        got = self._peek()
        if got != ch:
            if not got and opened is not None:
                raise self._err(field, f"{what} opened on line {opened} is never closed: "
                                f"missing '{ch}' before the end of the file")
            raise self._err(field, f"expected '{ch}' {what}, found "
                            + (f"'{got}'" if got else "the end of the file"))
        self.pos += 1

    # -- top level ------------------------------------------------------------
    def document(self) -> Document:
        while True:
            self._skip()
            if not self._peek():
                return self.doc
            line = self.line
            if self._peek() in _DELIMS:
                raise self._err("(syntax)", f"unexpected '{self._peek()}' at the top level; "
                                "expected a block (TYPE NAME { ... }), 'source', "
                                "'instantiate' or 'topology'")
            word = self._word("(syntax)", "a block type")
            if word == "source":
                self._source(line)
            elif word == "instantiate":
                self._instantiate(line)
            elif word == "topology":
                self._skip()
                self.doc.topology.append(self._node())
            else:
                self.doc.blocks.append(self._block_after_type(word, line, top=True))

    def _include(self, line: int, field: str) -> Document:
        self._skip()
        name = self._word(field, "a file name after 'source'")
        target = Path(self.path).parent / name
        if str(target.resolve()) in self.stack:
            raise syntax_error(self.path, line, field,
                               f"'source {name}' includes a file that is already being read "
                               "(a file cannot source itself, directly or through another)")
        if not target.exists():
            raise syntax_error(self.path, line, field,
                               f"source file '{name}' not found (looked for {target}); "
                               "a sourced file is found relative to the file that sources it")
        return parse_file(target, self.stack)

    def _source(self, line: int) -> None:
        self.doc.merge(self._include(line, "source"))

    def _instantiate(self, line: int) -> None:
        self._skip()
        if self._peek() != "[":
            raise self._err("instantiate", "expected '[ name, ... ]' after 'instantiate'")
        names = self._list("instantiate")
        self._skip()
        if self._word("instantiate", "'as'") != "as":
            raise self._err("instantiate", "expected 'as TYPE' after the list of names")
        self._skip()
        target = self._word("instantiate", "the name of the block to instantiate")
        for inst in _expand(names, self.path, line):
            self.doc.instances[inst] = target

    def _node(self) -> TopologyNode:
        line = self.line
        type_ = self._word("topology", "a component type")
        self._skip()
        name = self._word("topology", "a component name")
        node = TopologyNode(type_, name, line)
        self._expect("[", "topology", f"after '{type_} {name}'")
        while True:
            self._skip()
            c = self._peek()
            if not c:
                raise self._err("topology", f"'[' opened on line {line} is never closed: "
                                "missing ']' before the end of the file")
            if c == "]":
                self.pos += 1
                return node
            if c == ",":
                self.pos += 1
                continue
            node.children.append(self._node())

    # -- blocks and values ------------------------------------------------------
    def _block_after_type(self, type_: str, line: int, top: bool = False) -> Block:
        self._skip()
        name = None
        if self._peek() != "{":
            if not top:
                raise self._err(type_, f"expected '{{' after block type '{type_}'")
            name = self._word(type_, "a block name or '{'")
        self._expect("{", name or type_, f"to open block '{type_}'")
        block = Block(type_, name, self.path, line)
        self._body(block)
        return block

    def _body(self, block: Block) -> None:
        opened = block.line
        where = block.name or block.type
        while True:
            self._skip()
            c = self._peek()
            if not c:
                raise syntax_error(self.path, self.line, where,
                                   f"block '{block.label}' opened on line {opened} is never "
                                   "closed: missing '}' before the end of the file")
            if c == "}":
                self.pos += 1
                return
            if c == ",":
                self.pos += 1
                continue
            if c == "]":
                raise self._err(where, f"found ']' inside block '{block.label}' opened on "
                                f"line {opened}: is the '}}' closing that block missing?")
            line = self.line
            name = self._name(block)
            value = self._value(name)
            block.params.append(Param(name, value, self.path, line))
            # after a value: ',' or '}' or (leniently) a new line with the next parameter
            newline = self._skip_inline()
            c = self._peek()
            if c in (",", "}") or newline:
                continue
            raise self._err(name, f"expected ',' or '}}' after the value of '{name}', "
                            f"found '{c}'")

    def _name(self, block: Block) -> str:
        start, text, n = self.pos, self.text, len(self.text)
        while self.pos < n and text[self.pos] not in "={}[],#\n":
            self.pos += 1
        raw = " ".join(text[start:self.pos].split())
        if self._peek() != "=":
            shown = raw or self._peek() or "the end of the file"
            raise self._err(raw or block.label,
                            f"expected 'Parameter name = value' in block '{block.label}', "
                            f"found '{shown}'")
        if not raw:
            raise self._err(block.label, "a parameter has no name before '='")
        self.pos += 1
        return raw

    def _value(self, name: str) -> Any:
        self._skip()
        c = self._peek()
        if not c or c in ",}]=":
            raise self._err(name, f"'{name}' has no value after '='")
        if c == "[":
            return self._list(name)
        if c == "{":
            raise self._err(name, f"'{name}' needs a block type before '{{' (TYPE {{ ... }})")
        line = self.line
        word = self._word(name, "a value")
        if word == "source" and not self._skip_inline():
            sub = self._include(line, name)
            if len(sub.blocks) != 1:
                raise syntax_error(self.path, line, name,
                                   f"the sourced file holds {len(sub.blocks)} blocks; "
                                   "a parameter value needs exactly one")
            self.doc.merge(sub)
            return sub.blocks[0]
        mark = (self.pos, self.line)
        self._skip()
        if self._peek() == "{":
            return self._block_after_type(word, line)
        self.pos, self.line = mark  # not a block: leave what follows to the caller
        return scalar(word)

    def _list(self, name: str) -> PList:
        opened = self.line
        self.pos += 1  # '['
        out = PList()
        while True:
            self._skip()
            c = self._peek()
            if not c:
                raise self._err(name, f"list opened on line {opened} is never closed: "
                                "missing ']' before the end of the file")
            if c == "]":
                self.pos += 1
                return out
            if c == ",":
                self.pos += 1
                continue
            if c in "{}=":
                raise self._err(name, f"unexpected '{c}' in the list of '{name}' opened on "
                                f"line {opened}: is its ']' missing?")
            line = self.line
            out.append(self._list(name) if c == "[" else self._value(name))
            out.lines.append(line)


def scalar(word: str) -> int | float | str:
    """A number if the word is one, else the word itself."""
    if _INT.match(word):
        return int(word)
    if _FLOAT.match(word):
        return float(word)
    return word


def _expand(names: PList, path: str, line: int) -> list[str]:
    """Names of an ``instantiate`` list, with ``disk0 .. disk3`` ranges spelled out."""
    out: list[str] = []
    items = [str(x) for x in names]
    i = 0
    while i < len(items):
        if i + 2 < len(items) and items[i + 1] == "..":
            a, b = re.match(r"^(.*?)(\d+)$", items[i]), re.match(r"^(.*?)(\d+)$", items[i + 2])
            if not a or not b or a.group(1) != b.group(1):
                raise syntax_error(path, line, "instantiate",
                                   f"cannot expand the range '{items[i]} .. {items[i + 2]}'")
            out.extend(f"{a.group(1)}{k}" for k in range(int(a.group(2)), int(b.group(2)) + 1))
            i += 3
        else:
            out.append(items[i])
            i += 1
    return out
