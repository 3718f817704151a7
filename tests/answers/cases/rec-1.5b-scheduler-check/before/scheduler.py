"""A job queue that runs the most urgent job first, with deadlines and retries."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field


@dataclass(order=True)
class Job:
    """A unit of work. Lower `priority` numbers run first; ties run in arrival order."""

    priority: int
    sequence: int
    name: str = field(compare=False)
    deadline: float = field(default=float("inf"), compare=False)
    attempts: int = field(default=0, compare=False)

    @property
    def overdue(self) -> bool:
        return self.attempts > 0 and self.deadline < 0


class Scheduler:
    """Jobs in a heap; `now` is the clock the caller advances."""

    MAX_ATTEMPTS = 3

    def __init__(self) -> None:
        self._heap: list[Job] = []
        self._counter = 0
        self.now = 0.0
        self.failed: list[str] = []

    def submit(self, name: str, priority: int = 10, deadline: float = float("inf")) -> Job:
        job = Job(priority, self._counter, name, deadline)
        self._counter += 1
        heapq.heappush(self._heap, job)
        return job

    def __len__(self) -> int:
        return len(self._heap)

    @property
    def next_name(self) -> str | None:
        """The name of the job that would run next, without taking it."""
        return self._heap[0].name if self._heap else None

    def pop(self) -> Job | None:
        """The most urgent job whose deadline has not passed; expired jobs are dropped."""
        while self._heap:
            job = heapq.heappop(self._heap)
            if job.deadline > self.now:
                return job
            self.failed.append(job.name)
        return None

    def retry(self, job: Job) -> bool:
        """Put a failed job back once more, unless it has used up its attempts."""
        job.attempts += 1
        if job.attempts >= self.MAX_ATTEMPTS:
            self.failed.append(job.name)
            return False
        heapq.heappush(self._heap, job)
        return True

    def drain(self) -> list[str]:
        """Names of every runnable job, in the order they would run."""
        order = []
        while (job := self.pop()) is not None:
            order.append(job.name)
        return order
