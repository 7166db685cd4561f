"""Progress of Spark jobs: the completed fraction of the tasks of one job group, reported as
bytes to a ``progress(step)`` callback from a daemon thread (best effort; off on Connect)."""

from __future__ import annotations

import threading

from paimon_core.engines.spark.frames import is_connect


class JobProgress:
    """Feeds ``progress(bytes)`` from Spark's task counts of the jobs in one job group."""

    def __init__(self, spark, group: str, total: int, progress):
        self.spark, self.group, self.total, self.progress = spark, group, total, progress
        self.reported = 0
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        if self.progress and not is_connect(self.spark):
            self.spark.sparkContext.setJobGroup(self.group, "paimon", interruptOnCancel=True)
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _fraction(self) -> float:
        tracker = self.spark.sparkContext.statusTracker()
        stages = (
            set()
        )  # a stage shared by several jobs (AQE runs shuffle stages as jobs of their own) counts once
        for jid in tracker.getJobIdsForGroup(self.group):
            job = tracker.getJobInfo(jid)
            stages.update(job.stageIds if job else ())
        done = total = 0
        for sid in stages:
            st = tracker.getStageInfo(sid)
            if st:
                done += st.numCompletedTasks
                total += st.numTasks
        return done / total if total else 0.0

    def _report(self, upto: int) -> None:
        step = min(upto, self.total) - self.reported
        if step > 0 and self.progress:
            self.reported += step
            self.progress(step)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self._report(int(self.total * self._fraction()))
            except Exception:  # noqa: BLE001 - progress is best effort
                pass

    def __exit__(self, exc_type, exc, tb):
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        if not is_connect(self.spark) and self.progress:
            self.spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        if exc is None:
            self._report(self.total)
