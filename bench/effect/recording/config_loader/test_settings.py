import pytest
from settings import Settings, SettingsError

TEXT = """\
name = demo ; the project's name
[server]
port = 9000
host = "0.0.0.0 ; still the host"
[paths]
include = src, tests,
"""


def test_values_and_defaults() -> None:
    settings = Settings.parse(TEXT.splitlines())
    assert settings["main.name"] == "demo"
    assert settings["server.port"] == 9000
    assert settings["server.host"] == "0.0.0.0 ; still the host"
    assert settings["server.timeout"] == 30.0
    assert settings["paths.include"] == ["src", "tests"]
    assert settings.section("server")["port"] == 9000


def test_errors_name_the_line() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.parse(["[server]", "port = lots"])
    assert caught.value.number == 2
    with pytest.raises(SettingsError):
        Settings.parse(["just words"])
