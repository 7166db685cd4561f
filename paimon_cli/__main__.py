"""``python -m paimon_cli`` runs the same entry point as the ``paimon`` script (Ctrl-C while the
CLI is still importing is an interruption too: exit 130, no traceback)."""

from paimon_cli import interrupt

interrupt.watch()
try:
    from paimon_cli.app import main
except KeyboardInterrupt:
    interrupt.exit_before_command()

if __name__ == "__main__":
    main()
