"""One module per group of commands; each exposes a Typer ``app`` merged into the root app."""
