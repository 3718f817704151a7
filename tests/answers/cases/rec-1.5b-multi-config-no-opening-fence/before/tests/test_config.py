from settings.config import get, merged

CONFIG = {"db": {"host": "localhost", "port": 5432}, "debug": True}


def test_top_level_key():
    assert get(CONFIG, "debug") is True


def test_dotted_key():
    assert get(CONFIG, "db.port") == 5432


def test_missing_key_gives_the_default():
    assert get(CONFIG, "db.user", "admin") == "admin"


def test_merged():
    assert merged(CONFIG, {"db": {"port": 1}})["db"] == {"host": "localhost", "port": 1}
