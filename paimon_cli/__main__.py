"""``python -m paimon_cli`` runs the same entry point as the ``paimon`` script."""

from paimon_cli.app import main

if __name__ == "__main__":
    main()
