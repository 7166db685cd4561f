"""Plain command-line values without pydantic.

Typer 0.29 converts every parameter value through a pydantic ``TypeAdapter``: importing pydantic
and building the adapters costs about 0.2 s of a 0.45 s ``paimon snapshots``, and every command
in a script pays it. The parameters of this CLI are plain: ``str``, ``int`` (with ``min``/
``max``), ``bool`` flags, ``Path`` without checks, ``list[str]`` and ``Enum`` choices. For
exactly those, ``install()`` gives Typer's parameter a direct conversion (same results; errors
in click's words); any other parameter, or a Typer without the hooks this relies on, keeps
Typer's own conversion.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

_PATH_CHECKS = ("exists", "resolve_path", "allow_dash", "path_type", "writable")


def _leaf(annotation: Any, info: Any):
    """A converter ``(value, param, ctx) -> value`` for a plain annotation, else None."""
    from typer._click.exceptions import BadParameter

    if annotation is str:
        return lambda value, param, ctx: value if isinstance(value, str) else None
    if annotation is bool:  # a flag's value; text (from the environment) goes to Typer
        return lambda value, param, ctx: value if isinstance(value, bool) else None
    if annotation is int:
        low, high, clamp = info.min, info.max, info.clamp

        def to_int(value, param, ctx):
            try:
                n = (
                    value
                    if isinstance(value, int) and not isinstance(value, bool)
                    else int(str(value).strip())
                )
            except ValueError:
                raise BadParameter(f"{value!r} is not a valid integer.", ctx=ctx, param=param) from None
            if clamp:
                return max(low, n) if low is not None and n < low else min(high, n) if high is not None else n
            if (low is not None and n < low) or (high is not None and n > high):
                bounds = " and ".join(
                    b
                    for b in (
                        f"x>={low}" if low is not None else "",
                        f"x<={high}" if high is not None else "",
                    )
                    if b
                )
                raise BadParameter(f"{n} is not in the range {bounds}.", ctx=ctx, param=param)
            return n

        return to_int
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        from typer._param_types import coerce_cli_choice

        choices, case_sensitive = list(annotation), info.case_sensitive

        def to_choice(value, param, ctx):
            try:
                return coerce_cli_choice(value, choices=choices, case_sensitive=case_sensitive, ctx=ctx)
            except ValueError as e:
                raise BadParameter(str(e), ctx=ctx, param=param) from None

        return to_choice
    if annotation is Path and not any(getattr(info, k, None) for k in _PATH_CHECKS):
        if info.file_okay is False or info.dir_okay is False or info.readable is False:
            return None
        return lambda value, param, ctx: value if isinstance(value, Path) else Path(value)
    return None


def _converter(descriptor: Any):
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or getattr(info, "parser", None) is not None:
        return None
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        leaf = _leaf(item, info)
        if leaf is None:
            return None

        def to_list(value, param, ctx):
            items = [leaf(v, param, ctx) for v in (value if isinstance(value, (list, tuple)) else [value])]
            return None if any(v is None for v in items) else items

        return to_list
    return _leaf(annotation, info)


def install() -> None:
    """Give Typer's parameters of plain annotations a direct conversion (see the module doc)."""
    try:
        from typer import _coercion, core
    except ImportError:  # another Typer: its own conversion stays
        return
    parameter = getattr(core, "_TyperParameter", None)
    base = getattr(_coercion, "RuntimeParam", None)
    if parameter is None or base is None or getattr(parameter, "_paimon_plain", False):
        return
    typer_runtime_param = parameter.get_runtime_param

    class PlainRuntimeParam(base):  # type: ignore[misc, valid-type]
        """Typer's runtime parameter for one plain annotation; a value it cannot take (None from
        the converter) goes to Typer's own conversion."""

        def __init__(self, descriptor: Any, convert: Any, fallback: Any):
            object.__setattr__(self, "parameter_info", descriptor.parameter_info)
            object.__setattr__(self, "annotation", descriptor.annotation)
            object.__setattr__(self, "_convert", convert)
            object.__setattr__(self, "_fallback", fallback)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            out = self._convert(value, param, ctx)
            return self._fallback(param)._coerce_value(value, param=param, ctx=ctx) if out is None else out

    def get_runtime_param(self):
        if self._runtime_param is None:
            convert = _converter(self.type_descriptor)
            if convert is not None:
                self._runtime_param = PlainRuntimeParam(self.type_descriptor, convert, _typer_param)
        return typer_runtime_param(self)

    def _typer_param(param: Any) -> Any:
        """Typer's own conversion of ``param`` (built on first need only)."""
        return _coercion.build_runtime_param(param.type_descriptor)

    parameter.get_runtime_param = get_runtime_param
    parameter._paimon_plain = True
