"""TypeScript types from pydantic models, for the page's side of the protocol.

`typescript_of(types)` reads the JSON Schema pydantic makes of `types` (validation mode:
a field with a default may be left out) and writes one exported TypeScript type per named
schema: an `interface` per object, a `type` per union or enumeration. It understands the
part of JSON Schema those models use: `$ref` into `$defs`, `type` (one or several),
`const`, `enum`, `anyOf` / `oneOf`, `properties` with `required`, `additionalProperties`,
`items` and `prefixItems`; an empty schema (`JsonValue`) is `Json`. Anything else is
refused rather than guessed at, so a new kind of field fails here and not in the page.

`python -m pausepoint.widget._typescript` prints the page's types of the protocol and of
the traits (`protocol.EXPORTED`, `traits.EXPORTED`); `make protocol` writes them to
js/src/generated/protocol.ts.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import TypeAdapter

__all__ = [
    "PROTOCOL_SOURCE",
    "UnsupportedSchema",
    "protocol_typescript",
    "typescript_of",
    "typescript_of_schema",
]

PROTOCOL_SOURCE = "src/pausepoint/widget/protocol.py and traits.py"

_WIDTH = 160  # js/biome.json's lineWidth: the output is what `biome format` leaves alone
_PROSE = 100  # comments wrap sooner, to be read
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_JSON = "Json"
_JSON_TYPE = (
    "export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };"
)
_SCALARS = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
_IGNORED = frozenset(
    {
        "title",
        "description",
        "default",
        "discriminator",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
    }
)


_UNDERSTOOD = _IGNORED | {
    "$ref",
    "const",
    "enum",
    "anyOf",
    "oneOf",
    "type",
    "items",
    "prefixItems",
    "properties",
    "required",
    "additionalProperties",
}


class UnsupportedSchema(ValueError):
    """A schema this generator does not translate; extend `_type_of` to cover it."""


def typescript_of(types: Iterable[Any], *, source: str) -> str:
    """The TypeScript module declaring `types` (pydantic models or type aliases) and every
    schema they name; `source` is where the header says they come from."""
    together: Any = tuple[tuple(types)]  # type: ignore[misc]
    schema = TypeAdapter(together).json_schema(mode="validation")
    return typescript_of_schema(schema.get("$defs", {}), source=source)


def typescript_of_schema(definitions: Mapping[str, Any], *, source: str) -> str:
    """The TypeScript module declaring each of `definitions` (JSON Schemas by name)."""
    blocks = [
        f"// Generated from {source} by `make protocol`; do not edit.",
        "",
        "/** Any JSON value. */",
        _JSON_TYPE,
    ]
    for name in sorted(definitions):
        schema = definitions[name]
        if not _meaningful(schema):
            continue  # `JsonValue`: written as `Json` wherever it is used
        blocks += ["", *_doc(schema.get("description"), ""), _declaration(name, schema)]
    return "\n".join(blocks) + "\n"


def _meaningful(schema: Mapping[str, Any]) -> bool:
    return any(key not in _IGNORED for key in schema)


def _doc(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    lines = " ".join(text.split()).replace("*/", "*\\/")
    if len(indent) + len(lines) + 7 <= _PROSE:
        return [f"{indent}/** {lines} */"]
    wrapped = _wrap(lines, _PROSE - len(indent) - 3)
    return [f"{indent}/**", *(f"{indent} * {line}" for line in wrapped), f"{indent} */"]


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def _declaration(name: str, schema: Mapping[str, Any]) -> str:
    unknown = set(schema) - _UNDERSTOOD
    if unknown:
        raise UnsupportedSchema(
            f"No TypeScript for {name}'s keywords {', '.join(sorted(unknown))}."
        )
    if schema.get("type") == "object" and "properties" in schema:
        return _interface(name, schema)
    head = f"export type {name} = "
    members = _members(schema)
    if members is not None and len(head) + len(" | ".join(members)) + 1 > _WIDTH:
        return head.rstrip() + "".join(f"\n  | {m}" for m in members) + ";"
    return f"{head}{_type_of(schema)};"


def _interface(name: str, schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required", ()))
    lines = [f"export interface {name} {{"]
    for key, field in schema["properties"].items():
        lines += _doc(field.get("description"), "  ")
        optional = "" if key in required else "?"
        lines.append(f"  {_key(key)}{optional}: {_type_of(field)};")
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        lines.append(f"  [key: string]: {_type_of(extra)};")
    lines.append("}")
    return "\n".join(lines)


def _key(name: str) -> str:
    return name if _IDENTIFIER.match(name) else json.dumps(name)


def _members(schema: Mapping[str, Any]) -> list[str] | None:
    """The members of a union schema, each as a type (None: not a union)."""
    union = schema.get("anyOf") or schema.get("oneOf")
    if union is not None:
        return _unique(_type_of(member, nested=True) for member in union)
    if "enum" in schema:
        return _unique(json.dumps(value) for value in schema["enum"])
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return _unique(_scalar(kind) for kind in kinds)
    return None


def _unique(types: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(types))


def _type_of(schema: Mapping[str, Any], *, nested: bool = False) -> str:
    """`schema` as a TypeScript type; `nested`: as a member of a union or an array."""
    unknown = set(schema) - _UNDERSTOOD
    if unknown:
        raise UnsupportedSchema(
            f"No TypeScript for the schema keywords {', '.join(sorted(unknown))}."
        )
    ref = schema.get("$ref")
    if ref is not None:
        return _named(ref)
    if "const" in schema:
        return json.dumps(schema["const"])
    members = _members(schema)
    if members is not None:
        union = " | ".join(members)
        return f"({union})" if nested and len(members) > 1 else union
    kind = schema.get("type")
    if kind == "array":
        return _array(schema)
    if kind == "object":
        return _object(schema)
    if isinstance(kind, str):
        return _scalar(kind)
    if not _meaningful(schema):
        return _JSON
    raise UnsupportedSchema(f"No TypeScript for the schema {json.dumps(schema)[:200]}.")


def _named(ref: str) -> str:
    prefix = "#/$defs/"
    if not ref.startswith(prefix):
        raise UnsupportedSchema(f"Only references into $defs are translated, not {ref!r}.")
    name = ref[len(prefix) :]
    return _JSON if name == "JsonValue" else name


def _scalar(kind: str) -> str:
    try:
        return _SCALARS[kind]
    except KeyError:
        raise UnsupportedSchema(f"No TypeScript for JSON Schema type {kind!r}.") from None


def _array(schema: Mapping[str, Any]) -> str:
    if "prefixItems" in schema:
        return "[" + ", ".join(_type_of(item) for item in schema["prefixItems"]) + "]"
    items = schema.get("items")
    item = _JSON if items is None else _type_of(items, nested=True)
    return f"{item}[]"


def _object(schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required", ()))
    fields = [
        f"{_key(key)}{'' if key in required else '?'}: {_type_of(field)}"
        for key, field in schema.get("properties", {}).items()
    ]
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        fields.append(f"[key: string]: {_type_of(extra)}")
    elif extra is None and not fields:
        fields.append(f"[key: string]: {_JSON}")
    return "{ " + "; ".join(fields) + " }" if fields else "Record<string, never>"


def protocol_typescript() -> str:
    """The page's types of the kernel's protocol (js/src/generated/protocol.ts)."""
    from . import protocol, traits

    return typescript_of(protocol.EXPORTED + traits.EXPORTED, source=PROTOCOL_SOURCE)


if __name__ == "__main__":
    sys.stdout.write(protocol_typescript())
