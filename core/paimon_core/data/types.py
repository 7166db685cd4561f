"""Paimon data types: parsing and printing type strings, the schema-file JSON form, and Arrow mapping.

Type strings follow Paimon's grammar as the schema file writes it: ``INT NOT NULL``,
``DECIMAL(10, 2)``, ``STRING`` (= ``VARCHAR(2147483647)``), ``BYTES``, ``TIMESTAMP(6)``,
``TIMESTAMP(6) WITH LOCAL TIME ZONE`` (also accepted: ``TIMESTAMP_LTZ(6)``), ``ARRAY<INT>``,
``MAP<STRING, INT>``, ``MULTISET<STRING>``, ``ROW<a INT, b STRING>``. Nested types are written
to JSON as objects. A MULTISET is a map from element to its count (Arrow ``map<T, int32 not
null>``, stored in Parquet as a map, as Java does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import pyarrow as pa

from paimon_core.errors import TypeStringError, UnsupportedFeature

MAX_LENGTH = 2147483647

# Root names of atomic types, in the spelling Paimon prints.
ATOMIC_ROOTS = {
    "BOOLEAN",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL",
    "CHAR",
    "VARCHAR",
    "BINARY",
    "VARBINARY",
    "BLOB",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP_LTZ",
}
INTEGER_ROOTS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
STRING_ROOTS = ("CHAR", "VARCHAR")
BINARY_ROOTS = ("BINARY", "VARBINARY")


@dataclass(frozen=True)
class DataType:
    """Base of all types. ``nullable`` is part of the type, as in Paimon."""

    nullable: bool = True

    def with_nullable(self, nullable: bool) -> DataType:
        return replace(self, nullable=nullable)

    def _suffix(self) -> str:
        return "" if self.nullable else " NOT NULL"

    def to_json(self) -> str | dict:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True)
class AtomicType(DataType):
    """A non-nested type. ``length`` for CHAR/VARCHAR/BINARY/VARBINARY, ``precision``/``scale``
    for DECIMAL, ``precision`` for TIME/TIMESTAMP/TIMESTAMP_LTZ."""

    root: str = "INT"
    length: int | None = None
    precision: int | None = None
    scale: int | None = None

    def base_string(self) -> str:
        r = self.root
        if r == "VARCHAR" and self.length == MAX_LENGTH:
            return "STRING"
        if r == "VARBINARY" and self.length == MAX_LENGTH:
            return "BYTES"
        if r in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
            return f"{r}({self.length})"
        if r == "DECIMAL":
            return f"DECIMAL({self.precision}, {self.scale})"
        if r in ("TIME", "TIMESTAMP"):
            return f"{r}({self.precision})"
        if r == "TIMESTAMP_LTZ":
            return f"TIMESTAMP({self.precision}) WITH LOCAL TIME ZONE"
        return r

    def __str__(self) -> str:
        return self.base_string() + self._suffix()

    def to_json(self) -> str:
        return str(self)

    @property
    def declared_length(self) -> int:
        """``length``, which every CHAR/VARCHAR/BINARY/VARBINARY has."""
        return self._declared("length", self.length)

    @property
    def declared_precision(self) -> int:
        """``precision``, which every DECIMAL/TIME/TIMESTAMP/TIMESTAMP_LTZ has."""
        return self._declared("precision", self.precision)

    @property
    def declared_scale(self) -> int:
        """``scale``, which every DECIMAL has."""
        return self._declared("scale", self.scale)

    def _declared(self, what: str, value: int | None) -> int:
        if value is None:
            raise TypeStringError(f"type {self} has no {what}")
        return value

    @property
    def is_string(self) -> bool:
        return self.root in STRING_ROOTS

    @property
    def is_binary(self) -> bool:
        return self.root in BINARY_ROOTS


@dataclass(frozen=True)
class ArrayType(DataType):
    element: DataType = field(default_factory=AtomicType)

    def __str__(self) -> str:
        return f"ARRAY<{self.element}>{self._suffix()}"

    def to_json(self) -> dict:
        return {"type": "ARRAY" + self._suffix(), "element": self.element.to_json()}


@dataclass(frozen=True)
class MapType(DataType):
    key: DataType = field(default_factory=AtomicType)
    value: DataType = field(default_factory=AtomicType)

    def __str__(self) -> str:
        return f"MAP<{self.key}, {self.value}>{self._suffix()}"

    def to_json(self) -> dict:
        return {"type": "MAP" + self._suffix(), "key": self.key.to_json(), "value": self.value.to_json()}


@dataclass(frozen=True)
class MultisetType(DataType):
    element: DataType = field(default_factory=AtomicType)

    def __str__(self) -> str:
        return f"MULTISET<{self.element}>{self._suffix()}"

    def to_json(self) -> dict:
        return {"type": "MULTISET" + self._suffix(), "element": self.element.to_json()}


@dataclass(frozen=True)
class DataField:
    """A named column with a field id that never changes (renames keep it)."""

    id: int
    name: str
    type: DataType
    description: str | None = None
    default_value: str | None = None  # Paimon 1.2+ ``defaultValue``: kept; writers refuse it (features.py)

    def to_json(self) -> dict:
        out = {"id": self.id, "name": self.name, "type": self.type.to_json()}
        if self.description is not None:
            out["description"] = self.description
        if self.default_value is not None:
            out["defaultValue"] = self.default_value
        return out

    @staticmethod
    def from_json(obj: dict) -> DataField:
        return DataField(
            int(obj["id"]),
            obj["name"],
            type_from_json(obj["type"]),
            obj.get("description"),
            obj.get("defaultValue"),
        )


@dataclass(frozen=True)
class RowType(DataType):
    fields: tuple[DataField, ...] = ()

    def __str__(self) -> str:
        inner = ", ".join(f"{_quote_name(f.name)} {f.type}" for f in self.fields)
        return f"ROW<{inner}>{self._suffix()}"

    def to_json(self) -> dict:
        return {"type": "ROW" + self._suffix(), "fields": [f.to_json() for f in self.fields]}


def _quote_name(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else "`" + name.replace("`", "``") + "`"


# ----------------------------------------------------------------------------------------------
# Constructors


def atomic(root: str, nullable: bool = True, **kw) -> AtomicType:
    return AtomicType(nullable=nullable, root=root, **kw)


def string_type(nullable: bool = True) -> AtomicType:
    return AtomicType(nullable=nullable, root="VARCHAR", length=MAX_LENGTH)


def bytes_type(nullable: bool = True) -> AtomicType:
    return AtomicType(nullable=nullable, root="VARBINARY", length=MAX_LENGTH)


# ----------------------------------------------------------------------------------------------
# Parsing


_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|([<>(),]))")


class _Tokens:
    def __init__(self, text: str):
        self.text = text
        self.items: list[str] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                raise TypeStringError(f"cannot parse type '{text}': unexpected '{text[pos:].strip()[:10]}'")
            tok = m.group(1) or m.group(2) or m.group(3) or m.group(4)
            self.items.append(tok)
            pos = m.end()
        self.i = 0

    def peek(self, upper: bool = True) -> str | None:
        if self.i >= len(self.items):
            return None
        t = self.items[self.i]
        return t.upper() if upper and not t.startswith("`") else t

    def take(self) -> str:
        if self.i >= len(self.items):
            raise TypeStringError(f"cannot parse type '{self.text}': it ends too early")
        t = self.items[self.i]
        self.i += 1
        return t

    def expect(self, tok: str) -> None:
        t = self.take()
        if t.upper() != tok:
            raise TypeStringError(f"cannot parse type '{self.text}': expected '{tok}' but found '{t}'")

    def accept(self, tok: str) -> bool:
        if self.peek() == tok:
            self.i += 1
            return True
        return False

    def integer(self) -> int:
        t = self.take()
        if not t.isdigit():
            raise TypeStringError(f"cannot parse type '{self.text}': expected a number but found '{t}'")
        return int(t)


def parse_type(text: str) -> DataType:
    """Parse a Paimon type string; raises TypeStringError with a one-line message."""
    toks = _Tokens(text)
    t = _parse(toks)
    if toks.peek() is not None:
        raise TypeStringError(f"cannot parse type '{text}': unexpected '{toks.peek(False)}'")
    return t


def _opt_args(toks: _Tokens) -> list[int]:
    args: list[int] = []
    if toks.accept("("):
        args.append(toks.integer())
        while toks.accept(","):
            args.append(toks.integer())
        toks.expect(")")
    return args


_NEWER_TYPES = {"VARIANT": "1.1", "VECTOR": "1.4"}


def _refuse_newer(word: str) -> None:
    if word in _NEWER_TYPES:
        raise UnsupportedFeature(f"{word} columns (Paimon {_NEWER_TYPES[word]}+) are not supported")


def _parse(toks: _Tokens) -> DataType:
    word = toks.take().upper()
    _refuse_newer(word)
    t: DataType
    if word in ("BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE"):
        t = AtomicType(root=word)
    elif word == "INTEGER":
        t = AtomicType(root="INT")
    elif word == "BOOL":
        t = AtomicType(root="BOOLEAN")
    elif word == "STRING":
        t = string_type()
    elif word == "BYTES":
        t = bytes_type()
    elif word == "BLOB":  # Paimon 1.4: bytes kept in .blob files (fileformat/blob.py)
        t = AtomicType(root="BLOB")
    elif word in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        args = _opt_args(toks)
        length = args[0] if args else 1
        if len(args) > 1 or length < 1:
            raise TypeStringError(f"cannot parse type '{toks.text}': bad length for {word}")
        t = AtomicType(root=word, length=length)
    elif word in ("DECIMAL", "DEC", "NUMERIC"):
        args = _opt_args(toks)
        p = args[0] if args else 10
        s = args[1] if len(args) > 1 else 0
        if not (1 <= p <= 38) or not (0 <= s <= p) or len(args) > 2:
            raise TypeStringError(
                f"cannot parse type '{toks.text}': DECIMAL precision must be 1..38 and scale 0..precision"
            )
        t = AtomicType(root="DECIMAL", precision=p, scale=s)
    elif word == "TIME":
        args = _opt_args(toks)
        p = args[0] if args else 0
        if not 0 <= p <= 9:
            raise TypeStringError(f"cannot parse type '{toks.text}': TIME precision must be 0..9")
        t = AtomicType(root="TIME", precision=p)
    elif word in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        args = _opt_args(toks)
        p = args[0] if args else 6
        if not 0 <= p <= 9:
            raise TypeStringError(f"cannot parse type '{toks.text}': TIMESTAMP precision must be 0..9")
        root = word
        if word == "TIMESTAMP" and toks.peek() == "WITH":
            toks.take()
            toks.expect("LOCAL")
            toks.expect("TIME")
            toks.expect("ZONE")
            root = "TIMESTAMP_LTZ"
        elif word == "TIMESTAMP" and toks.peek() == "WITHOUT":
            toks.take()
            toks.expect("TIME")
            toks.expect("ZONE")
        t = AtomicType(root=root, precision=p)
    elif word == "ARRAY":
        toks.expect("<")
        el = _parse(toks)
        toks.expect(">")
        t = ArrayType(element=el)
    elif word == "MULTISET":
        toks.expect("<")
        el = _parse(toks)
        toks.expect(">")
        t = MultisetType(element=el)
    elif word == "MAP":
        toks.expect("<")
        k = _parse(toks)
        toks.expect(",")
        v = _parse(toks)
        toks.expect(">")
        t = MapType(key=k, value=v)
    elif word == "ROW":
        toks.expect("<")
        fields = []
        while True:
            name = toks.take()
            if name.startswith("`"):
                name = name[1:-1].replace("``", "`")
            ftype = _parse(toks)
            fields.append(DataField(-1, name, ftype))
            if toks.accept(">"):
                break
            toks.expect(",")
        t = RowType(fields=tuple(fields))
    else:
        raise TypeStringError(f"unknown type '{word}' in '{toks.text}'")
    if toks.peek() == "NOT":
        toks.take()
        toks.expect("NULL")
        t = t.with_nullable(False)
    elif toks.peek() == "NULL":
        toks.take()
    return t


def assign_field_ids(t: DataType, last_id: int) -> tuple[DataType, int]:
    """Give ROW sub-fields (at any depth) fresh ids after ``last_id``, depth-first, each field before
    its children (as Paimon's schema builder does); returns the type and the highest id used."""
    if isinstance(t, RowType):
        fields = []
        for f in t.fields:
            fid = last_id + 1
            sub, last_id = assign_field_ids(f.type, fid)
            fields.append(DataField(fid, f.name, sub, f.description))
        return replace(t, fields=tuple(fields)), last_id
    if isinstance(t, (ArrayType, MultisetType)):
        el, last_id = assign_field_ids(t.element, last_id)
        return replace(t, element=el), last_id
    if isinstance(t, MapType):
        k, last_id = assign_field_ids(t.key, last_id)
        v, last_id = assign_field_ids(t.value, last_id)
        return replace(t, key=k, value=v), last_id
    return t, last_id


def highest_field_id(t: DataType) -> int:
    """The largest id of a ROW sub-field inside ``t`` (-1 when there is none)."""
    if isinstance(t, RowType):
        return max([-1] + [max(f.id, highest_field_id(f.type)) for f in t.fields])
    if isinstance(t, (ArrayType, MultisetType)):
        return highest_field_id(t.element)
    if isinstance(t, MapType):
        return max(highest_field_id(t.key), highest_field_id(t.value))
    return -1


def type_from_json(obj: str | dict) -> DataType:
    """Read a type as the schema file stores it: a string, or an object for nested types."""
    if isinstance(obj, str):
        return parse_type(obj)
    if not isinstance(obj, dict) or "type" not in obj:
        raise TypeStringError(f"bad type in schema JSON: {obj!r}")
    head = obj["type"].strip().upper()
    nullable = not head.endswith("NOT NULL")
    root = head.split()[0].split("<")[0]
    _refuse_newer(root)
    if root == "ARRAY":
        return ArrayType(nullable=nullable, element=type_from_json(obj["element"]))
    if root == "MULTISET":
        return MultisetType(nullable=nullable, element=type_from_json(obj["element"]))
    if root == "MAP":
        return MapType(nullable=nullable, key=type_from_json(obj["key"]), value=type_from_json(obj["value"]))
    if root == "ROW":
        return RowType(nullable=nullable, fields=tuple(DataField.from_json(f) for f in obj["fields"]))
    raise TypeStringError(f"unsupported nested type {obj['type']!r}")


# ----------------------------------------------------------------------------------------------
# Arrow mapping


def timestamp_unit(precision: int) -> str:
    """Arrow unit that holds a TIME/TIMESTAMP of this precision without loss."""
    return "ms" if precision <= 3 else "us" if precision <= 6 else "ns"


def to_arrow_type(t: DataType) -> pa.DataType:
    if isinstance(t, ArrayType):
        return pa.list_(pa.field("element", to_arrow_type(t.element), nullable=t.element.nullable))
    if isinstance(t, MapType):
        return pa.map_(
            pa.field("key", to_arrow_type(t.key), nullable=False),
            pa.field("value", to_arrow_type(t.value), nullable=t.value.nullable),
        )
    if isinstance(t, MultisetType):
        return pa.map_(
            pa.field("key", to_arrow_type(t.element), nullable=False),
            pa.field("value", pa.int32(), nullable=False),
        )
    if isinstance(t, RowType):
        return pa.struct([to_arrow_field(f) for f in t.fields])
    assert isinstance(t, AtomicType)
    r = t.root
    simple = {
        "BOOLEAN": pa.bool_(),
        "TINYINT": pa.int8(),
        "SMALLINT": pa.int16(),
        "INT": pa.int32(),
        "BIGINT": pa.int64(),
        "FLOAT": pa.float32(),
        "DOUBLE": pa.float64(),
        "DATE": pa.date32(),
        "CHAR": pa.string(),
        "VARCHAR": pa.string(),
        "BINARY": pa.binary(),
        "VARBINARY": pa.binary(),
        "BLOB": pa.binary(),
    }
    if r in simple:
        return simple[r]
    if r == "DECIMAL":
        return pa.decimal128(t.declared_precision, t.declared_scale)
    if r == "TIME":
        return pa.time32("ms")  # Paimon stores TIME as milliseconds of the day
    if r == "TIMESTAMP":
        return pa.timestamp(timestamp_unit(t.declared_precision))
    if r == "TIMESTAMP_LTZ":
        return pa.timestamp(timestamp_unit(t.declared_precision), tz="UTC")
    raise TypeStringError(f"no Arrow type for {t}")


def to_arrow_field(f: DataField) -> pa.Field:
    return pa.field(f.name, to_arrow_type(f.type), nullable=f.type.nullable)


def to_arrow_schema(fields: Iterable[DataField]) -> pa.Schema:
    return pa.schema([to_arrow_field(f) for f in fields])


def from_arrow_type(t: pa.DataType, nullable: bool = True) -> DataType:
    """Paimon type for an Arrow type (used by ``create-table --like``)."""
    if pa.types.is_boolean(t):
        return AtomicType(nullable, "BOOLEAN")
    for arrow_pred, root in (
        (pa.types.is_int8, "TINYINT"),
        (pa.types.is_int16, "SMALLINT"),
        (pa.types.is_int32, "INT"),
        (pa.types.is_int64, "BIGINT"),
        (pa.types.is_uint8, "SMALLINT"),
        (pa.types.is_uint16, "INT"),
        (pa.types.is_uint32, "BIGINT"),
        (pa.types.is_float16, "FLOAT"),
        (pa.types.is_float32, "FLOAT"),
        (pa.types.is_float64, "DOUBLE"),
        (pa.types.is_date, "DATE"),
    ):
        if arrow_pred(t):
            return AtomicType(nullable, root)
    if pa.types.is_uint64(t):
        return AtomicType(nullable, "DECIMAL", precision=20, scale=0)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return string_type(nullable)
    if pa.types.is_fixed_size_binary(t):
        return AtomicType(nullable, "BINARY", length=t.byte_width)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return bytes_type(nullable)
    if pa.types.is_decimal(t):
        if t.precision > 38:
            raise TypeStringError(f"DECIMAL precision {t.precision} is above Paimon's 38")
        return AtomicType(nullable, "DECIMAL", precision=t.precision, scale=t.scale)
    if pa.types.is_time(t):
        return AtomicType(nullable, "TIME", precision={"s": 0, "ms": 3, "us": 3, "ns": 3}[t.unit])
    if pa.types.is_timestamp(t):
        p = {"s": 0, "ms": 3, "us": 6, "ns": 9}[t.unit]
        return AtomicType(nullable, "TIMESTAMP_LTZ" if t.tz else "TIMESTAMP", precision=p)
    if pa.types.is_dictionary(t):
        return from_arrow_type(t.value_type, nullable)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return ArrayType(nullable, from_arrow_type(t.value_type, t.value_field.nullable))
    if pa.types.is_map(t):
        return MapType(
            nullable, from_arrow_type(t.key_type), from_arrow_type(t.item_type, t.item_field.nullable)
        )
    if pa.types.is_struct(t):
        return RowType(
            nullable,
            tuple(
                DataField(-1, t.field(i).name, from_arrow_type(t.field(i).type, t.field(i).nullable))
                for i in range(t.num_fields)
            ),
        )
    if pa.types.is_null(t):
        return string_type(True)
    raise TypeStringError(f"Arrow type {t} has no Paimon equivalent")


# ----------------------------------------------------------------------------------------------
# Paimon's implicit casting (widening) rules, used when input data is fitted to a table.

_INT_RANK = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}
_INT_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}


def implicitly_castable(src: DataType, dst: DataType) -> bool:
    """True when every value of ``src`` fits ``dst`` without loss (Paimon's implicit widening)."""
    if isinstance(src, (ArrayType, MapType, RowType, MultisetType)) or isinstance(
        dst, (ArrayType, MapType, RowType, MultisetType)
    ):
        if type(src) is not type(dst):
            return False
        if isinstance(src, (ArrayType, MultisetType)) and isinstance(dst, (ArrayType, MultisetType)):
            return implicitly_castable(src.element, dst.element)
        if isinstance(src, MapType) and isinstance(dst, MapType):
            return implicitly_castable(src.key, dst.key) and implicitly_castable(src.value, dst.value)
        assert isinstance(src, RowType) and isinstance(dst, RowType)  # the same nested class
        return len(src.fields) == len(dst.fields) and all(
            implicitly_castable(a.type, b.type) for a, b in zip(src.fields, dst.fields)
        )
    assert isinstance(src, AtomicType) and isinstance(dst, AtomicType)  # DataType itself is abstract
    s, d = src.root, dst.root
    if s == d:
        if s in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
            return (dst.length or 0) >= (src.length or 0)
        if s == "DECIMAL":
            return (
                dst.declared_scale >= src.declared_scale
                and dst.declared_precision - dst.declared_scale >= src.declared_precision - src.declared_scale
            )
        if s in ("TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
            return dst.declared_precision >= src.declared_precision
        return True
    if s in _INT_RANK:
        if d in _INT_RANK:
            return _INT_RANK[d] >= _INT_RANK[s]
        if d in ("FLOAT", "DOUBLE"):
            return True
        if d == "DECIMAL":
            return dst.declared_precision - dst.declared_scale >= _INT_DIGITS[s]
        return False
    if s == "FLOAT":
        return d == "DOUBLE"
    if s == "DECIMAL":
        return d in ("FLOAT", "DOUBLE")
    if s == "CHAR":
        return d == "VARCHAR" and dst.declared_length >= src.declared_length
    if s == "BINARY":
        return d == "VARBINARY" and dst.declared_length >= src.declared_length
    if s == "DATE":
        return d in ("TIMESTAMP", "TIMESTAMP_LTZ")
    if s == "TIMESTAMP":
        return d == "TIMESTAMP_LTZ" and dst.declared_precision >= src.declared_precision
    if s == "TIMESTAMP_LTZ":
        return d == "TIMESTAMP" and dst.declared_precision >= src.declared_precision
    return False
