"""A catalog function as Paimon's REST catalog describes it (Java's ``FunctionImpl``): parameters,
return type, determinism, and definitions by name (a file with a class, SQL, or a lambda); the
changes ``alter_function`` takes (Java's ``FunctionChange``); and both as the spec's JSON.

Invariants: ``Function.from_json(f.to_json()) == f``; the JSON is the spec's
``CreateFunctionRequest`` (``GetFunctionResponse`` without audit fields), which is also what the
JDBC store keeps; a function name matches Java's ``RESTFunctionValidator`` pattern;
``apply_function_changes`` is pure and refuses a whole list that names a definition wrongly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from paimon_core.catalog.object_changes import apply_changes, change_args
from paimon_core.catalog.views import fields_from_json
from paimon_core.data.types import DataField
from paimon_core.errors import DefinitionAlreadyExists, DefinitionNotFound, InvalidInput

FUNCTION_NAME = re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9._-]+$")  # Java's RESTFunctionValidator
DEFINITION_TYPES = ("file", "sql", "lambda")


def check_function_name(name: str) -> str:
    """``name`` when Java would accept it as a function name, else InvalidInput naming it."""
    if not isinstance(name, str) or not FUNCTION_NAME.match(name):
        raise InvalidInput(
            f"bad function name {name!r}: letters, digits, '.', '_' or '-', with at least one letter"
        )
    return name


@dataclass(frozen=True)
class FunctionDefinition:
    """One definition of a function. ``type`` ``sql``: ``definition`` (the SQL body); ``lambda``:
    ``definition`` and ``language``; ``file``: ``file_resources`` (``(resourceType, uri)`` pairs),
    ``language``, ``class_name`` and ``function_name``."""

    type: str
    definition: str | None = None
    language: str | None = None
    file_resources: tuple[tuple[str, str], ...] = ()
    class_name: str | None = None
    function_name: str | None = None

    @staticmethod
    def sql(definition: str) -> FunctionDefinition:
        return FunctionDefinition("sql", definition=definition)

    @staticmethod
    def lambda_(definition: str, language: str) -> FunctionDefinition:
        return FunctionDefinition("lambda", definition=definition, language=language)

    @staticmethod
    def file(
        resources: list[tuple[str, str]], language: str, class_name: str, function_name: str | None = None
    ) -> FunctionDefinition:
        return FunctionDefinition(
            "file",
            language=language,
            file_resources=tuple(resources),
            class_name=class_name,
            function_name=function_name,
        )

    def to_json(self) -> dict:
        if self.type == "sql":
            return {"type": "sql", "definition": self.definition}
        if self.type == "lambda":
            out = {"type": "lambda", "definition": self.definition, "language": self.language}
        else:
            out = {
                "type": "file",
                "fileResources": [{"resourceType": t, "uri": u} for t, u in self.file_resources],
                "language": self.language,
                "className": self.class_name,
                "functionName": self.function_name,
            }
        return {k: v for k, v in out.items() if v is not None}  # the spec's strings are not nullable

    @staticmethod
    def from_json(value: Any) -> FunctionDefinition:
        if not isinstance(value, dict) or value.get("type") not in DEFINITION_TYPES:
            raise InvalidInput(
                f"malformed function definition: 'type' must be one of {', '.join(DEFINITION_TYPES)}"
            )

        def text(key: str, required: bool = True) -> str | None:
            v = value.get(key)
            if v is None and not required:
                return None
            if not isinstance(v, str):
                raise InvalidInput(f"malformed {value['type']} function definition: '{key}' must be a string")
            return v

        kind = value["type"]
        if kind == "sql":
            return FunctionDefinition.sql(text("definition") or "")
        if kind == "lambda":
            return FunctionDefinition(
                "lambda", definition=text("definition"), language=text("language", False)
            )
        resources = value.get("fileResources") or []
        if not isinstance(resources, list) or not all(
            isinstance(r, dict) and isinstance(r.get("uri"), str) for r in resources
        ):
            raise InvalidInput(
                "malformed file function definition: 'fileResources' must list {resourceType, uri}"
            )
        return FunctionDefinition(
            "file",
            language=text("language", False),
            file_resources=tuple((str(r.get("resourceType") or ""), r["uri"]) for r in resources),
            class_name=text("className", False),
            function_name=text("functionName", False),
        )


@dataclass(frozen=True)
class Function:
    """A function of a database: ``name`` (its object name), parameters and return parameters
    (None: not given, as Java's optional lists), ``deterministic``, ``definitions`` by name."""

    name: str
    input_params: tuple[DataField, ...] | None = None
    return_params: tuple[DataField, ...] | None = None
    deterministic: bool = False
    definitions: dict[str, FunctionDefinition] = field(default_factory=dict)
    comment: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        out: dict[str, Any] = {"name": self.name}
        if self.input_params is not None:
            out["inputParams"] = [f.to_json() for f in self.input_params]
        if self.return_params is not None:
            out["returnParams"] = [f.to_json() for f in self.return_params]
        out["deterministic"] = self.deterministic
        out["definitions"] = {k: d.to_json() for k, d in self.definitions.items()}
        if self.comment is not None:
            out["comment"] = self.comment
        out["options"] = dict(self.options)
        return out

    @staticmethod
    def from_json(value: Any, name: str | None = None) -> Function:
        """The spec's ``CreateFunctionRequest`` (``name`` given: the name to use when the body
        has none)."""
        if not isinstance(value, dict):
            raise InvalidInput("malformed function: a JSON object")
        fname = check_function_name(value.get("name") or name or "")
        definitions = value.get("definitions") or {}
        if not isinstance(definitions, dict):
            raise InvalidInput("malformed function: 'definitions' must map names to definitions")
        options = value.get("options") or {}
        if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
            raise InvalidInput("malformed function: 'options' must map names to strings")
        comment = value.get("comment")
        if comment is not None and not isinstance(comment, str):
            raise InvalidInput("malformed function: 'comment' must be a string")
        deterministic = value.get("deterministic", False)
        if not isinstance(deterministic, bool):
            raise InvalidInput("malformed function: 'deterministic' must be true or false")
        ins, outs = value.get("inputParams"), value.get("returnParams")
        return Function(
            name=fname,
            input_params=None if ins is None else fields_from_json(ins, "inputParams"),
            return_params=None if outs is None else fields_from_json(outs, "returnParams"),
            deterministic=deterministic,
            definitions={str(k): FunctionDefinition.from_json(d) for k, d in definitions.items()},
            comment=comment,
            options=dict(options),
        )


@dataclass(frozen=True)
class FunctionChange:
    """One change of ``alter_function``: ``action`` is Java's (``setOption``, ``removeOption``,
    ``updateComment``, ``addDefinition``, ``updateDefinition``, ``dropDefinition``)."""

    action: str
    key: str | None = None
    value: str | None = None
    comment: str | None = None
    name: str | None = None
    definition: FunctionDefinition | None = None

    @staticmethod
    def set_option(key: str, value: str) -> FunctionChange:
        return FunctionChange("setOption", key=key, value=value)

    @staticmethod
    def remove_option(key: str) -> FunctionChange:
        return FunctionChange("removeOption", key=key)

    @staticmethod
    def update_comment(comment: str | None) -> FunctionChange:
        return FunctionChange("updateComment", comment=comment)

    @staticmethod
    def add_definition(name: str, definition: FunctionDefinition) -> FunctionChange:
        return FunctionChange("addDefinition", name=name, definition=definition)

    @staticmethod
    def update_definition(name: str, definition: FunctionDefinition) -> FunctionChange:
        return FunctionChange("updateDefinition", name=name, definition=definition)

    @staticmethod
    def drop_definition(name: str) -> FunctionChange:
        return FunctionChange("dropDefinition", name=name)

    def to_json(self) -> dict:
        out: dict[str, Any] = {"action": self.action}
        for k in _FUNCTION_CHANGE_KEYS[self.action]:
            v = getattr(self, k)
            out[k] = v.to_json() if isinstance(v, FunctionDefinition) else v
        return out

    @staticmethod
    def from_json(value: Any) -> FunctionChange:
        action, args = change_args(
            value, _FUNCTION_CHANGE_KEYS, "function", {"definition": FunctionDefinition.from_json}
        )
        return FunctionChange(action, **args)


_FUNCTION_CHANGE_KEYS: dict[str, tuple[str, ...]] = {
    "setOption": ("key", "value"),
    "removeOption": ("key",),
    "updateComment": ("comment",),
    "addDefinition": ("name", "definition"),
    "updateDefinition": ("name", "definition"),
    "dropDefinition": ("name",),
}


def apply_function_changes(ident: str, function: Function, changes: list[FunctionChange]) -> Function:
    """``function`` with ``changes`` applied in order, as Java's REST server applies them."""
    options, comment, definitions = apply_changes(
        changes,
        function.options,
        function.comment,
        function.definitions,
        "Definition",
        lambda c: (c.name or "", c.definition or FunctionDefinition.sql("")),
        lambda d: DefinitionAlreadyExists(ident, d),
        lambda d: DefinitionNotFound(ident, d),
        "function",
    )
    return replace(function, options=options, definitions=definitions, comment=comment)
