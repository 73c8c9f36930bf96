"""Response schemas: checked once when an action raises, then used to check answers.

A response schema must be usable on its own, inside the kernel:

- a valid JSON Schema (2020-12 unless its ``$schema`` names another draft);
- every ``$ref`` points inside the schema itself (``#/$defs/...``, ``#anchor``) and
  resolves; remote and file references are refused, so checking an answer never does I/O;
- every ``pattern`` (and ``patternProperties`` key) compiles for RE2, a regular-expression
  engine whose matching time is linear in the text: an answer cannot make the kernel
  hang (lookarounds and backreferences are not supported);
- its numbers fit a double, so its hash can be computed as the browser computes it.

Answers are checked with every `format` the browser checks (see `_formats`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any, cast

import re2
from jsonschema import Draft202012Validator, SchemaError, ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend, validator_for
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

from ._formats import FORMAT_CHECKER
from .errors import InvalidResponseSchemaError

__all__ = ["answer_validator", "check_response_schema"]

_ROOT_URI = "urn:pausepoint:response-schema"
_SCHEMA_VALUED = (
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


def check_response_schema(schema: Mapping[str, Any]) -> None:
    """Raise `InvalidResponseSchemaError` naming the place when `schema` cannot be used."""
    validator_class = validator_for(schema, default=Draft202012Validator)
    try:
        validator_class.check_schema(dict(schema))
    except SchemaError as exc:
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in exc.path)
        raise InvalidResponseSchemaError(
            where, f"it is not a valid JSON Schema: {exc.message}"
        ) from None
    _check_numbers(schema, "$")
    resolver = _registry(schema).resolver(base_uri=_ROOT_URI)
    uses_unevaluated = False
    for path, node in _subschemas(schema, "$", root=True):
        for keyword in _REF_KEYWORDS:
            ref = node.get(keyword)
            if ref is None:
                continue
            if not isinstance(ref, str) or not ref.startswith("#"):
                raise InvalidResponseSchemaError(
                    f"{path}.{keyword}",
                    f"{ref!r} points outside the schema; a response schema may only refer to "
                    "itself (e.g. '#/$defs/Item'). Copy the referenced schema into $defs.",
                )
            if keyword == "$ref":
                try:
                    resolver.lookup(ref)
                except Unresolvable:
                    raise InvalidResponseSchemaError(
                        f"{path}.$ref", f"{ref!r} points to nothing in the schema."
                    ) from None
        if path != "$" and isinstance(node.get("$id"), str):
            raise InvalidResponseSchemaError(
                f"{path}.$id", "a nested $id is not supported; put the subschema in $defs."
            )
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            _compile(pattern, f"{path}.pattern")
        properties = node.get("patternProperties")
        if isinstance(properties, dict):
            for key in properties:
                _compile(key, f"{path}.patternProperties")
        uses_unevaluated = uses_unevaluated or "unevaluatedProperties" in node
    if uses_unevaluated and any(
        "patternProperties" in node for _, node in _subschemas(schema, "$", root=True)
    ):
        raise InvalidResponseSchemaError(
            "$",
            "unevaluatedProperties together with patternProperties is not supported; use "
            "additionalProperties.",
        )


def answer_validator(schema: Mapping[str, Any]) -> Validator:
    """A validator for answers to `schema`: formats checked, patterns matched by RE2,
    references resolved only within the schema."""
    base = validator_for(schema, default=Draft202012Validator)
    return cast(
        Validator,
        _safe_class(base)(schema, registry=_registry(schema), format_checker=FORMAT_CHECKER),
    )


class _NoRetrieval:
    """The registry's retrieve function: nothing outside the schema is ever fetched."""

    def __call__(self, uri: str) -> Resource[Any]:
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


def _registry(schema: Mapping[str, Any]) -> Registry[Any]:
    resource: Resource[Any] = Resource.from_contents(
        dict(schema), default_specification=DRAFT202012
    )
    registry: Registry[Any] = Registry(retrieve=_NoRetrieval())  # type: ignore[call-arg]
    return registry.with_resource(_ROOT_URI, resource)  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=256)
def _engine(pattern: str) -> Any:
    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options)


def _compile(pattern: str, path: str) -> None:
    try:
        _engine(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise InvalidResponseSchemaError(
            path,
            f"the pattern {pattern!r} is not supported ({reason}); patterns are matched "
            "in linear time, without lookarounds or backreferences.",
        ) from None


def _search(pattern: str, text: str) -> bool:
    return _engine(pattern).search(text) is not None


def _subschemas(
    node: Any, path: str, *, root: bool = False
) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    yield path, node
    for keyword in _SCHEMA_VALUED:
        if isinstance(node.get(keyword), dict):
            yield from _subschemas(node[keyword], f"{path}.{keyword}")
    for keyword in _SCHEMA_LISTS:
        if isinstance(node.get(keyword), list):
            for index, item in enumerate(node[keyword]):
                yield from _subschemas(item, f"{path}.{keyword}[{index}]")
    for keyword in _SCHEMA_MAPS:
        if isinstance(node.get(keyword), dict):
            for name, item in node[keyword].items():
                yield from _subschemas(item, f"{path}.{keyword}[{name!r}]")


def _check_numbers(node: Any, path: str) -> None:
    if isinstance(node, int) and not isinstance(node, bool):
        try:
            float(node)
        except OverflowError:
            raise InvalidResponseSchemaError(
                path, "a number too large for a double (about 1.8e308)."
            ) from None
    elif isinstance(node, dict):
        for key, item in node.items():
            _check_numbers(item, f"{path}[{key!r}]")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _check_numbers(item, f"{path}[{index}]")


# -- the keywords that match regular expressions, with RE2 --------------------------------


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"String should match pattern '{pattern}'")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [
        key
        for key in instance
        if key not in known and not any(_search(pattern, key) for pattern in patterns)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras))
        verb = "was" if len(extras) == 1 else "were"
        yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


@functools.lru_cache(maxsize=16)
def _safe_class(base: type[Any]) -> type[Any]:
    return extend(  # type: ignore[no-any-return,no-untyped-call]
        base,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )
