"""The `real` corpus's loader (bench/effect/real_bugs.py) on a tiny dataset in ConDefects'
layout (fake_condefects.py): what it selects, what it leaves out and why, that the tasks it
writes pass the bench's soundness check, and that an arm runs on them end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.effect import real_bugs
from bench.effect.arms import BLIND, Endpoint
from bench.effect.bench import attempt, choose_tasks
from bench.effect.corpus import Task, check_task, is_fixed, load_corpus, make_workspace
from bench.effect.proxy import CountingProxy
from bench.run import main as bench_main
from tests.doubles.model_double import ModelDouble, Reply
from tests.doubles.replies import RecordedRequest
from tests.effect_bench.fake_condefects import make_dataset


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return make_dataset(tmp_path / "ConDefects")


@pytest.fixture
def built(dataset: Path, tmp_path: Path) -> real_bugs.Built:
    return real_bugs.build(dataset, tmp_path / "built")


def test_one_task_per_atcoder_task_and_every_other_submission_is_accounted_for(
    built: real_bugs.Built,
) -> None:
    assert len(built.tasks) == 2
    assert {name.split("_", 1)[1].rsplit("_", 1)[0] for name in built.tasks} == {
        "abc900_a",
        "abc900_b",
    }
    assert set(built.skipped.values()) == {
        "its AtCoder task already has one",
        "not Python 3",
        "1 lines",
        "fails no case tried",
        "no cases",
    }
    assert len(built.skipped) == 5


def test_the_tasks_load_as_a_corpus_pointed_at_the_program_and_are_sound(
    built: real_bugs.Built,
) -> None:
    tasks = load_corpus("real", built.root)
    assert [t.name for t in tasks] == list(built.tasks)
    for task in tasks:
        assert (task.program, task.target, task.test) == ("prog.py", "prog.py", "test_prog.py")
        assert task.instruction is None  # each arm's own blind message
        assert task.kind == "real" and task.bug.startswith("ConDefects abc900_")
        assert task.workspace_files()[-2:] == ["prog.py", "test_prog.py"]
    # The task whose failing case is not its smallest (each check is two pytest runs).
    assert check_task(_task(built, "abc900_b")).sound


def test_the_selection_is_seeded_and_repeatable(dataset: Path, tmp_path: Path) -> None:
    first = real_bugs.build(dataset, tmp_path / "one", count=1, seed=5)
    again = real_bugs.build(dataset, tmp_path / "two", count=1, seed=5)
    assert len(first.tasks) == 1 and first.tasks == again.tasks
    meta = json.loads((tmp_path / "one" / first.tasks[0] / "task.json").read_text())
    assert meta["target"] == meta["program"] == "prog.py"


def test_the_failing_case_joins_the_smallest_when_they_all_pass(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(real_bugs, "SMALLEST_CASES", 1)
    made = real_bugs.build(dataset, tmp_path / "built")
    largest = next(n for n in made.tasks if "abc900_b" in n)
    kept = sorted(p.name for p in (tmp_path / "built" / largest / "ws" / "cases").iterdir())
    assert kept == ["sample_02.in", "sample_02.out", "zz_negative.in", "zz_negative.out"]


def test_an_agent_that_edits_the_expected_output_has_fixed_nothing(
    built: real_bugs.Built, tmp_path: Path
) -> None:
    task = _task(built, "abc900_a")
    workspace = make_workspace(task, tmp_path / "ws")
    assert not is_fixed(task, workspace)
    (workspace / "cases" / "sample_01.out").write_text("1\n", encoding="utf-8")  # its output
    assert not is_fixed(task, workspace)
    (workspace / "prog.py").write_text(task.source("reference.py"), encoding="utf-8")
    assert is_fixed(task, workspace)


def test_a_checkout_without_its_cases_is_a_clear_error(dataset: Path, tmp_path: Path) -> None:
    (dataset / "Test").rename(tmp_path / "elsewhere")
    with pytest.raises(real_bugs.DatasetError, match=r"no Test/: unpack ConDefects' Test\.zip"):
        real_bugs.build(dataset, tmp_path / "built")
    with pytest.raises(real_bugs.DatasetError, match="no Code/"):
        real_bugs.submissions(tmp_path)


def test_the_bench_says_what_is_missing_before_starting_a_server(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (dataset / "Test").rename(tmp_path / "elsewhere")
    argv = ["--only", "effect", "--corpus", "real", "--real-bugs-dir", str(dataset), "--no-doc"]
    assert bench_main(argv) == 2
    assert "has no Test/: unpack ConDefects' Test.zip there" in capsys.readouterr().err


def test_the_real_corpus_needs_its_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["--only", "effect", "--corpus", "real", "--no-doc"]) == 2
    assert "--corpus real needs --real-bugs-dir" in capsys.readouterr().err
    with pytest.raises(ValueError, match="--real-bugs-dir"):
        load_corpus("real")


@pytest.fixture
def double(built: real_bugs.Built) -> Iterator[ModelDouble]:
    """Answers with the accepted version for abc900_a's program, and with the program as it is
    for any other: one task fixed, one not."""
    fixes = {t.buggy: t.source("reference.py") for t in _tasks_with_files(built)}

    def answer(request: RecordedRequest) -> Reply:
        shown = json.dumps(request.body["messages"])
        for faulty, fixed in fixes.items():
            if json.dumps(faulty)[1:-1] in shown:
                text = fixed if "x % 2 == 1" in faulty else faulty
                return Reply(text=f"```python\n{text}```")
        return Reply(text="I cannot tell.")

    with ModelDouble(serve_any_model=True, responder=answer) as running:
        yield running


def test_the_blind_arm_runs_end_to_end_on_two_real_tasks(
    built: real_bugs.Built, double: ModelDouble, tmp_path: Path
) -> None:
    tasks = choose_tasks(2, corpus="real", built=built.root)
    kept = tmp_path / "kept"
    with CountingProxy(double.ollama_url) as proxy:
        endpoint = Endpoint(proxy.base_url, "coder")
        done = {
            t.name: attempt("rune_blind", t, endpoint, proxy, Path("aider"), kept) for t in tasks
        }

    fixed = {name: a.fixed for name, a in done.items()}
    assert fixed == {_task(built, "abc900_a").name: True, _task(built, "abc900_b").name: False}
    assert all(a.requests >= 1 for a in done.values())
    first = json.dumps(double.chat_requests[0].body["messages"])
    assert BLIND in first
    # --keep: each attempt's log and rune's state (receipt, transcript) outlive its scratch.
    for task in tasks:
        into = kept / "rune_blind" / task.name
        assert (into / "agent.log").read_text(encoding="utf-8").strip()
        assert list((into / "state").rglob("*.json")), f"no receipt kept for {task.name}"


def _tasks_with_files(built: real_bugs.Built) -> tuple[Task, ...]:
    return load_corpus("real", built.root)


def _task(built: real_bugs.Built, atcoder: str) -> Task:
    return next(t for t in _tasks_with_files(built) if atcoder in t.name)
