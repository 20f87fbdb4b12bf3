"""The small subset of JSON Schema the MCP tools declare, checked by hand
(the core imports only the standard library): objects with ``properties``,
``required`` and ``additionalProperties: false``; strings (``minLength``,
``maxLength``, ``enum``); integers and numbers (``minimum``, ``maximum``);
booleans; arrays (``items``, ``maxItems``). A value that breaks its schema
is a ``SchemaError`` naming the argument, so a model can correct its call."""

from __future__ import annotations

import math
from typing import Any

from regrag.errors import InputError


class SchemaError(InputError):
    """A tool's arguments do not satisfy its input schema."""


def check(value: Any, schema: dict[str, Any], where: str = "arguments") -> None:
    """``SchemaError`` naming ``where`` (e.g. ``arguments.k``) when ``value`` breaks ``schema``."""
    kind = schema.get("type")
    if kind == "object":
        _check_object(value, schema, where)
    elif kind == "string":
        _check_string(value, schema, where)
    elif kind in ("integer", "number"):
        _check_number(value, schema, where, kind)
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise SchemaError(f"{where} must be true or false, got {_shown(value)}")
    elif kind == "array":
        _check_array(value, schema, where)
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(f"{where} must be one of {', '.join(map(repr, schema['enum']))}, got {_shown(value)}")


def _check_object(value: Any, schema: dict[str, Any], where: str) -> None:
    if not isinstance(value, dict):
        raise SchemaError(f"{where} must be an object, got {_shown(value)}")
    properties = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in value:
            raise SchemaError(f"{where}.{name} is required")
    if schema.get("additionalProperties") is False:
        unknown = sorted(name for name in value if name not in properties)
        if unknown:
            raise SchemaError(f"{where}: unknown argument(s) {', '.join(map(repr, unknown))}; "
                              f"expected {', '.join(sorted(properties))}")
    for name in sorted(value):
        if name in properties:
            check(value[name], properties[name], f"{where}.{name}")


def _check_string(value: Any, schema: dict[str, Any], where: str) -> None:
    if not isinstance(value, str):
        raise SchemaError(f"{where} must be a string, got {_shown(value)}")
    if len(value) < schema.get("minLength", 0):
        raise SchemaError(f"{where} must have at least {schema['minLength']} character(s)")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        raise SchemaError(f"{where} has {len(value):,} characters; at most {schema['maxLength']:,} are allowed")


def _check_number(value: Any, schema: dict[str, Any], where: str, kind: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind == "integer" and not isinstance(value, int)):
        raise SchemaError(f"{where} must be {'an integer' if kind == 'integer' else 'a number'}, got {_shown(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(f"{where} must be a finite number, got {_shown(value)}")
    if "minimum" in schema and value < schema["minimum"]:
        raise SchemaError(f"{where} must be at least {schema['minimum']}, got {_shown(value)}")
    if "maximum" in schema and value > schema["maximum"]:
        raise SchemaError(f"{where} must be at most {schema['maximum']:,}, got {_shown(value)}")


def _check_array(value: Any, schema: dict[str, Any], where: str) -> None:
    if not isinstance(value, list):
        raise SchemaError(f"{where} must be an array, got {_shown(value)}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise SchemaError(f"{where} has {len(value):,} items; at most {schema['maxItems']:,} are allowed")
    items = schema.get("items")
    if items is not None:
        for number, item in enumerate(value):
            check(item, items, f"{where}[{number}]")


def _shown(value: Any) -> str:
    """A value as an error message shows it: its JSON type and at most 60 characters of it."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
