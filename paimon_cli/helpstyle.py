"""Help text as people write it: ``paimon ingest [OPTIONS] FILES...``, flags without a
``<bool>`` type, arguments without ``<list[str]>``.

Typer renders a required argument as ``{NAME}...``, the Python type of every parameter
(``<bool>`` on a flag) and arguments' types next to their metavars. ``tidy_command`` adjusts
the parameters of a command (and of the commands of a group, as they are looked up) once,
on the objects Typer built; choices (``<table|json|csv>``) and metavars stay as they are.
"""

from __future__ import annotations

_DONE = "_paimon_tidy"


def tidy_param(param) -> None:
    if getattr(param, _DONE, False):
        return
    setattr(param, _DONE, True)
    if param.param_type_name == "option" and getattr(param, "is_flag", False):
        param.display_type_rich = lambda ctx: None
    elif param.param_type_name == "argument":
        param.display_type_rich = lambda ctx: None
        name = param.metavar or (param.name or "").upper()
        if param.nargs != 1 and not name.endswith("..."):
            name += "..."
        usage = name if param.required else f"[{name}]"
        param.get_usage_pieces = lambda ctx: [usage]


def tidy_command(cmd):
    """``cmd`` (a command or group, or None) with tidy help; returns it."""
    if cmd is None or getattr(cmd, _DONE, False):
        return cmd
    setattr(cmd, _DONE, True)
    get_params = cmd.get_params

    def tidy_params(ctx):
        params = get_params(ctx)
        for p in params:
            tidy_param(p)
        return params

    cmd.get_params = tidy_params
    if hasattr(cmd, "get_command"):
        get_command = cmd.get_command
        cmd.get_command = lambda ctx, name: tidy_command(get_command(ctx, name))
    return cmd
