"""Suite-wide settings: Hypothesis profiles and the seed of a run.

* ``CI`` set: the ``ci`` profile, derandomized (every run draws the same examples) with a fixed
  default example count, so a CI failure is reproducible as is.
* otherwise the ``dev`` profile: random examples from one seed per run, printed in the header
  and after failures; ``pytest --hypothesis-seed=N`` replays a run.
Both print the ``@reproduce_failure`` blob of a failing example.
"""

from __future__ import annotations

import random

from hypothesis import settings

from tests.infra import in_ci

settings.register_profile("ci", derandomize=True, max_examples=50, deadline=None, print_blob=True, database=None)
settings.register_profile("dev", deadline=None, print_blob=True)
_SEED: int | None = None


def pytest_configure(config):
    global _SEED
    settings.load_profile("ci" if in_ci() else "dev")
    if in_ci():
        return
    given = config.getoption("hypothesis_seed", None)
    if given is None:
        from hypothesis import core

        _SEED = random.randrange(2**32)
        core.global_force_seed = _SEED  # what --hypothesis-seed sets
    else:
        _SEED = int(given)


def pytest_report_header(config):
    if in_ci():
        return "hypothesis: profile ci (derandomized)"
    return f"hypothesis: profile dev, seed {_SEED} (replay: --hypothesis-seed={_SEED})"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if terminalreporter.stats.get("failed") and not in_ci():
        terminalreporter.write_line(f"hypothesis seed of this run: {_SEED} (replay: --hypothesis-seed={_SEED})")
