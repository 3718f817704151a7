"""The docs that state facts about the code are kept true by it.

The configuration reference is generated from the settings model and must be current; the
interface page (docs/interface.md) is hand-written and checked against what the code registers.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path
from typing import get_args

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]


def test_configuration_reference_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_config_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    current = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert current == module.render(), "run: .venv/bin/python scripts/gen_config_docs.py"


# --- docs/interface.md: the public interface, checked against the code ----------------------

INTERFACE = ROOT / "docs" / "interface.md"


def interface() -> str:
    return INTERFACE.read_text(encoding="utf-8")


def section(title: str, level: int = 2) -> str:
    """The text under the heading `title` up to the next heading of the same level or above."""
    lines = interface().splitlines()
    start = lines.index(f"{'#' * level} {title}") + 1
    end = next(
        (i for i in range(start, len(lines)) if re.match(rf"#{{1,{level}}} ", lines[i])),
        len(lines),
    )
    return "\n".join(lines[start:end])


def first_column(text: str) -> list[str]:
    """The code span that starts each table row (`| `name` | ...`)."""
    return re.findall(r"^\| `([^`]+)`", text, flags=re.MULTILINE)


def code_spans(text: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def registered_commands() -> set[str]:
    from rune_lsp.server import create_server

    return set(create_server().protocol.fm.commands)


def setting_keys() -> dict[str, str]:
    from rune_lsp.settings import Settings

    return {field.alias or name: name for name, field in Settings.model_fields.items()}


def test_the_commands_table_lists_every_command_the_server_registers() -> None:
    assert sorted(first_column(section("Commands"))) == sorted(registered_commands())


def test_the_settings_table_lists_every_setting_with_its_environment_variable() -> None:
    from rune_lsp.settings import ENV_OVERRIDES

    rows = re.findall(r"^\| `(\w+)` \| (?:`(RUNE_\w+)`)? *\|", section("Settings"), re.MULTILINE)
    keys = setting_keys()
    assert sorted(key for key, _ in rows) == sorted(keys)
    assert {key: env for key, env in rows if env} == {
        key: ENV_OVERRIDES[name] for key, name in keys.items() if name in ENV_OVERRIDES
    }


def test_the_run_result_table_matches_the_result_model() -> None:
    from rune_lsp.loop.records import EditRecord, RunResult, ToolCallSummary

    def keys(model: type[BaseModel], prefix: str = "") -> set[str]:
        return {prefix + (field.alias or name) for name, field in model.model_fields.items()}

    text = section("Run result")
    expected = (
        keys(RunResult) | keys(EditRecord, "edits[].") | keys(ToolCallSummary, "toolCalls[].")
    )
    assert sorted(first_column(text)) == sorted(expected)
    example = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0].replace("…", "x"))
    assert set(example) == keys(RunResult)
    assert RunResult.model_validate(example).model_dump(by_alias=True, mode="json") == example


def test_the_run_result_table_names_every_status() -> None:
    from rune_lsp.loop.records import Outcome
    from rune_lsp.loop.statuses import EditStatus, ToolStatus

    rows = {
        match[0]: code_spans(match[1])
        for match in re.findall(r"^\| `([^`]+)` \| (.*) \|$", section("Run result"), re.MULTILINE)
    }
    assert set(get_args(Outcome)) <= rows["outcome"]
    assert set(get_args(EditStatus)) <= rows["edits[].status"]
    assert set(get_args(ToolStatus)) <= rows["toolCalls[].status"]
    stops = {outcome for outcome in code_spans(section("Stop conditions", 3))}
    assert set(get_args(Outcome)) <= stops


def test_the_executables_section_matches_the_command_line() -> None:
    from rune_lsp.__main__ import build_parser
    from rune_lsp.cli.options import setting_flags

    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    text = section("Executables")
    known = set(parser._option_string_actions)
    settings = {flag.flag for flag in setting_flags()}
    for name, subparser in commands.choices.items():
        assert f"`rune-lsp {name}" in text
        own = set(subparser._option_string_actions) - settings - {"-h", "--help"}
        assert own <= code_spans(text) | known, f"{name}: options missing from the doc"
        known |= set(subparser._option_string_actions)
    mentioned = {span for span in code_spans(text) if span.startswith("-")}
    assert {span.split()[0] for span in mentioned} <= known | {"--kebab-case"}


def test_review_mode_b_names_its_diagnostic_and_code_actions() -> None:
    from lsprotocol import types

    from rune_lsp.interface import DIAGNOSTIC_SOURCE
    from rune_lsp.review import review_code_actions

    text = section("Mode B", 3)
    diagnostic = types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), message=""
    )
    for action in review_code_actions("e1", diagnostic):
        assert action.command is not None
        assert f"`{action.title}` (`{action.command.command}`)" in text
    assert f"source `{DIAGNOSTIC_SOURCE}`" in text


def test_the_system_guidance_is_quoted_exactly() -> None:
    from rune_lsp.answers.table import GUIDANCE_TAIL

    assert f'"{GUIDANCE_TAIL}"' in section("System guidance", 3)


def test_planned_names_are_not_built_yet() -> None:
    """When one is built, move it from Planned into its table (the tests above then hold it)."""

    leading = re.findall(r"^- ((?:`[^`]+`[ /]*)+)", section("Planned"), re.MULTILINE)
    planned = code_spans(" ".join(leading))  # what each item names, not what it mentions
    assert planned.isdisjoint(registered_commands())
    assert planned.isdisjoint(setting_keys())


def test_every_link_to_the_interface_names_a_heading_there() -> None:
    anchors = {slug(line.lstrip("#")) for line in interface().splitlines() if line.startswith("#")}
    cited: dict[str, set[str]] = {}
    sources = [*ROOT.glob("rune_lsp/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("docs/*.md")]
    sources += [*ROOT.glob("client-vscode/src/**/*.ts"), ROOT / "README.md"]
    for path in sources:
        for anchor in re.findall(r"interface\.md#([\w-]+)", path.read_text(encoding="utf-8")):
            cited.setdefault(anchor, set()).add(str(path.relative_to(ROOT)))
    assert cited, "nothing links to docs/interface.md"
    for anchor in re.findall(r"\]\(#([\w-]+)\)", interface()):
        cited.setdefault(anchor, set()).add("docs/interface.md")
    assert {anchor: files for anchor, files in cited.items() if anchor not in anchors} == {}


def test_the_readme_links_the_interface() -> None:
    assert "(docs/interface.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
