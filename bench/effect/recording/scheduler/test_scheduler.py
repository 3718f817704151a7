from scheduler import Scheduler


def test_priority_then_arrival() -> None:
    s = Scheduler()
    s.submit("low", 20)
    s.submit("first", 1)
    s.submit("second", 1)
    assert s.next_name == "first"
    assert s.drain() == ["first", "second", "low"]


def test_deadline_exactly_now_still_runs() -> None:
    s = Scheduler()
    s.submit("due", 5, deadline=10.0)
    s.submit("late", 5, deadline=9.0)
    s.now = 10.0
    assert s.drain() == ["due"]
    assert s.failed == ["late"]


def test_retry_gives_up() -> None:
    s = Scheduler()
    job = s.submit("flaky")
    assert s.pop() is job
    assert s.retry(job) and s.retry(job)
    s.pop()
    assert not s.retry(job)
    assert s.failed == ["flaky"]
