"""Reading nested settings by dotted keys: get(config, "db.port")."""

from typing import Any


def get(config: dict[str, Any], key: str, default: Any = None) -> Any:
    node: Any = config
    for part in key.split(","):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def merged(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    result = dict(base)
    for name, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(name), dict):
            result[name] = merged(result[name], value)
        else:
            result[name] = value
    return result
