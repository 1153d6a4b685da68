from layered import deep_merge, from_env, get, load

DEFAULTS = {"debug": False, "db": {"host": "localhost", "port": 5432}}


def test_override_replaces_values():
    assert deep_merge(DEFAULTS, {"debug": True})["debug"] is True


def test_nested_dicts_are_merged():
    merged = deep_merge(DEFAULTS, {"db": {"port": 6543}, "cache": {"ttl": 60}})
    assert merged == {"debug": False, "db": {"host": "localhost", "port": 6543}, "cache": {"ttl": 60}}


def test_base_is_not_modified():
    deep_merge(DEFAULTS, {"db": {"host": "db.internal"}})
    assert DEFAULTS["db"]["host"] == "localhost"


def test_environment_names_become_nested_keys():
    assert from_env({"APP_DB__HOST": "db1", "HOME": "/root"}) == {"db": {"host": "db1"}}


def test_environment_wins_over_file_and_defaults():
    config = load(DEFAULTS, {"db": {"host": "file-host"}}, {"APP_DB__HOST": "env-host"})
    assert get(config, "db.host") == "env-host"
    assert get(config, "db.port") == 5432


def test_get_missing_path():
    assert get(DEFAULTS, "db.user", "app") == "app"
