"""Response schemas: checked once when an action raises, then used to check answers.

A response schema must be usable on its own, inside the kernel:

- a valid JSON Schema: 2020-12 unless its ``$schema`` names draft-04, -06, -07 or 2019-09
  (draft-03, whose ``type``, ``extends`` and ``disallow`` hold schemas, is refused). Its
  subschemas are the places the draft's own meta-schema checks as schemas (``properties``,
  ``dependencies``, ``if``/``then``/``else``, ``contentSchema``...), and every rule below
  holds in each of them;
- every ``$ref`` and ``$dynamicRef`` points at a subschema of the schema itself
  (``#/$defs/...``, ``#anchor``); remote and file references are refused, so checking an
  answer never does I/O, and so is a reference into a value that is not a schema (inside
  ``const``, say). ``$recursiveRef`` is ``#``, the only value it is defined for. Only the
  root has an ``$id`` (``id`` in draft-04);
- no chain of references leads back to where it started without first checking a part
  of the answer (a property, an array item, ...): such a schema never finishes checking
  anything. A linked list (``next`` refers to its own node) is fine;
- every ``pattern`` (and ``patternProperties`` key) compiles for RE2, a regular-expression
  engine whose matching time is linear in the text: an answer cannot make the kernel
  hang (lookarounds and backreferences are not supported);
- its numbers fit a double, so its hash can be computed as the browser computes it.

Answers are checked with every `format` the browser checks (see `_formats`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any, cast

import re2
from jsonschema import (
    Draft3Validator,
    Draft4Validator,
    Draft202012Validator,
    ValidationError,
)
from jsonschema.protocols import Validator
from jsonschema.validators import extend, validator_for
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012, specification_with

from ._formats import FORMAT_CHECKER
from .errors import InvalidResolutionError, InvalidResponseSchemaError, ResolutionProblem

__all__ = ["answer_validator", "check_response_schema"]

_ROOT_URI = "urn:pausepoint:response-schema"
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
# How the drafts' meta-schemas say "a schema goes here": {"$ref": "#"} up to draft-07,
# {"$recursiveRef": "#"} in 2019-09, {"$dynamicRef": "#meta"} in 2020-12.
_META_SCHEMA_REFS = ("#", "#meta")
# The keywords that apply a subschema to the same value rather than to a part of it: a
# loop through these alone (and references) never reaches the end of the answer.
_SAME_VALUE = ("not", "if", "then", "else")
_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_MAPS = ("dependentSchemas", "dependencies")


def check_response_schema(schema: Mapping[str, Any]) -> None:
    """Raise `InvalidResponseSchemaError` naming the place when `schema` cannot be used."""
    # Checking against the meta-schema costs about a millisecond, and the same schema is
    # checked at every raise of its action and for every entry of a loaded transcript.
    try:
        key: str | None = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        key = None  # not JSON: the full check says where
    if key is not None and key in _USABLE:
        return
    _check(schema)
    if key is not None:
        if len(_USABLE) >= _USABLE_KEPT:
            _USABLE.clear()
        _USABLE[key] = None


_USABLE: dict[str, None] = {}
"""The canonical JSON of schemas that passed `_check` lately."""
_USABLE_KEPT = 256


def _check(schema: Mapping[str, Any]) -> None:
    validator_class = _draft(schema)
    root = dict(schema)
    schemas = _schemas_in(root, validator_class)
    defs = root.get("$defs")
    if isinstance(defs, dict) and "$defs" not in validator_class.META_SCHEMA.get("properties", {}):
        # Drafts up to 07 keep subschemas in `definitions`, but `$defs` (what pydantic
        # writes) is where people and tools put them too, and every draft's `$ref`
        # reaches it: its entries are checked as schemas of the same draft.
        for name, entry in defs.items():
            if isinstance(entry, dict):
                schemas |= _schemas_in(entry, validator_class, f"$.$defs[{name!r}]")
    _check_numbers(root, "$")
    resolver = _registry_of(_resource(root)).resolver(base_uri=_ROOT_URI)
    id_keyword = "id" if validator_class is Draft4Validator else "$id"
    uses_unevaluated = uses_pattern_properties = False
    for path, node in _subschemas(root, schemas):
        for keyword in _REF_KEYWORDS:
            if keyword in node:
                _check_ref(node[keyword], keyword, f"{path}.{keyword}", resolver, schemas)
        if path != "$" and isinstance(node.get(id_keyword), str):
            raise InvalidResponseSchemaError(
                f"{path}.{id_keyword}",
                f"a nested {id_keyword} is not supported; put the subschema in $defs "
                "(definitions up to draft-07).",
            )
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            _compile(pattern, f"{path}.pattern")
        properties = node.get("patternProperties")
        if isinstance(properties, dict):
            for key in properties:
                _compile(key, f"{path}.patternProperties[{key!r}]")
            uses_pattern_properties = True
        uses_unevaluated = uses_unevaluated or "unevaluatedProperties" in node
    _check_loops(root, schemas, resolver)
    if uses_unevaluated and uses_pattern_properties:
        raise InvalidResponseSchemaError(
            "$",
            "unevaluatedProperties together with patternProperties is not supported; use "
            "additionalProperties.",
        )


def _draft(schema: Mapping[str, Any]) -> Any:
    """The jsonschema class of the draft `schema` is written in (2020-12 by default)."""
    dialect = schema.get("$schema", "")
    try:
        # A `$schema` that is not a string, or not a URI, makes the lookup itself fail.
        validator_class = validator_for(schema, default=Draft202012Validator)
    except (TypeError, ValueError, AttributeError):
        raise InvalidResponseSchemaError(
            "$.$schema", f"{dialect!r} is not a URI naming a JSON Schema draft."
        ) from None
    if validator_class is Draft3Validator:
        raise InvalidResponseSchemaError(
            "$.$schema", "draft-03 is not supported; use draft-04 or later (2020-12 if you can)."
        )
    return validator_class


def _check_ref(ref: Any, keyword: str, path: str, resolver: Any, schemas: set[int]) -> None:
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise InvalidResponseSchemaError(
            path,
            f"{ref!r} points outside the schema; a response schema may only refer to "
            "itself (e.g. '#/$defs/Item'). Copy the referenced schema into $defs.",
        )
    if keyword == "$recursiveRef":
        if ref != "#":
            raise InvalidResponseSchemaError(
                path, f"{ref!r} is not '#', the only value $recursiveRef is defined for."
            )
        return
    try:
        target = resolver.lookup(ref).contents
    except Unresolvable:
        raise InvalidResponseSchemaError(
            path, f"{ref!r} points to nothing in the schema."
        ) from None
    if not isinstance(target, bool) and id(target) not in schemas:
        raise InvalidResponseSchemaError(
            path,
            f"{ref!r} points to a value that is not a schema (such as one inside `const` or "
            "`enum`, or under a keyword this draft does not know); point it at a subschema, "
            "e.g. one in $defs (definitions up to draft-07).",
        )


def answer_validator(schema: Mapping[str, Any]) -> Validator:
    """A validator for answers to `schema`: formats checked, patterns matched by RE2,
    references resolved only within the schema. Its errors point at the part of the
    answer that is wrong (see `_specific`), and a check that recurses without end is
    refused with `InvalidResolutionError` instead of a bare `RecursionError`."""
    base = validator_for(schema, default=Draft202012Validator)
    validator = _safe_class(base)(schema, registry=_registry(schema), format_checker=FORMAT_CHECKER)
    return cast(Validator, _AnswerValidator(validator))


class _AnswerValidator:
    def __init__(self, validator: Any) -> None:
        self._validator = validator

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        try:
            for error in self._validator.iter_errors(instance):
                yield from _specific(error)
        except RecursionError:
            # `check_response_schema` refuses looping schemas at the raise; this is for
            # one recorded some other way, so the person gets an error that says what
            # to do rather than a crash.
            raise InvalidResolutionError(
                [
                    ResolutionProblem(
                        "$",
                        "checking the answer against the response schema never ends: the "
                        "schema refers to itself without checking a part of the answer",
                    )
                ],
                summary="This interrupt's response schema cannot check any answer; reject "
                "it instead",
            ) from None

    def is_valid(self, instance: Any) -> bool:
        return next(self.iter_errors(instance), None) is None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._validator, name)


def _specific(error: ValidationError) -> Iterator[ValidationError]:
    """An `anyOf` / `oneOf` failure as the errors of the one branch the value took.

    When exactly one branch fails only inside the value (the value has that branch's
    shape: an object where the others want null), those errors are the ones a person can
    act on, e.g. ``$.next.next.value`` in a linked list rather than ``$.next``. When
    several branches fit as far, which one was meant is unknown: the failure stays as it is.
    """
    if error.validator in ("anyOf", "oneOf") and error.context:
        depth = len(error.absolute_path)
        branches: dict[Any, list[ValidationError]] = {}
        for inner in error.context:
            branches.setdefault(inner.relative_schema_path[0], []).append(inner)
        inside = [
            errors
            for errors in branches.values()
            if all(len(inner.absolute_path) > depth for inner in errors)
        ]
        if len(inside) == 1:
            for inner in inside[0]:
                yield from _specific(inner)
            return
    yield error


class _NoRetrieval:
    """The registry's retrieve function: nothing outside the schema is ever fetched."""

    def __call__(self, uri: str) -> Resource[Any]:
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


def _registry(schema: Mapping[str, Any]) -> Registry[Any]:
    return _registry_of(_resource(dict(schema)))


def _resource(contents: dict[str, Any]) -> Resource[Any]:
    return Resource.from_contents(contents, default_specification=DRAFT202012)


def _registry_of(resource: Resource[Any]) -> Registry[Any]:
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


def _schemas_in(root: dict[str, Any], validator_class: Any, where: str = "$") -> set[int]:
    """Check `root` against its draft's meta-schema; return the ids of its subschemas.

    A subschema is whatever the meta-schema itself checks as a schema: the drafts' own
    vocabulary, kept by jsonschema, rather than a list here that could miss a keyword.
    Raises `InvalidResponseSchemaError` where `root` does not fit the meta-schema.
    """
    meta = _noting_class(validator_class)
    meta_schemas = _meta_schemas()
    uri = validator_class.ID_OF(validator_class.META_SCHEMA).rstrip("#")
    validator = meta(
        meta_schemas.contents(uri), registry=meta_schemas, format_checker=meta.FORMAT_CHECKER
    )
    found = {id(root)}
    token = _FOUND.set(found)
    try:
        error = next(iter(validator.iter_errors(root)), None)
    finally:
        _FOUND.reset(token)
    if error is not None:
        at = where + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path)
        raise InvalidResponseSchemaError(
            at, f"it is not a valid JSON Schema: {error.message}"
        ) from None
    return found


_FOUND: ContextVar[set[int]] = ContextVar("_FOUND")
"""The ids of the values the meta-schema check running in this context found to be schemas."""


@functools.lru_cache(maxsize=16)
def _noting_class(validator_class: Any) -> Any:
    """The class checking schemas against `validator_class`'s meta-schema, noting each
    value that passes as a schema (see `_META_SCHEMA_REFS`) in `_FOUND`."""
    meta = validator_for(validator_class.META_SCHEMA, default=validator_class)
    return extend(  # type: ignore[no-untyped-call]
        meta,
        {
            keyword: _noting(meta.VALIDATORS[keyword])
            for keyword in _REF_KEYWORDS
            if keyword in meta.VALIDATORS
        },
    )


@functools.lru_cache(maxsize=1)
def _meta_schemas() -> Registry[Any]:
    """The drafts' meta-schemas without their ``$schema``: jsonschema checks a subschema
    that names its ``$schema`` with that draft's own class, which would leave the noting
    class (and its notes) behind at the first reference."""
    resources = []
    for uri in SPECIFICATIONS:
        contents = SPECIFICATIONS.contents(uri)
        specification = specification_with(contents["$schema"])
        bare = {key: value for key, value in contents.items() if key != "$schema"}
        resources.append((uri, specification.create_resource(bare)))
    return Registry().with_resources(resources).crawl()


def _noting(check: Any) -> Any:
    def noting(validator: Any, ref: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        errors = list(check(validator, ref, instance, schema))
        # A value that fails is no schema: it was tried as one branch of an `anyOf` (the
        # list form of draft-07's `items`, a property list in `dependencies`).
        if not errors and ref in _META_SCHEMA_REFS and isinstance(instance, dict):
            _FOUND.get().add(id(instance))
        yield from errors

    return noting


def _subschemas(root: dict[str, Any], schemas: set[int]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each subschema of `root` (an id in `schemas`) with its path, the root first, in the
    order they are written. A subschema's keys are keywords (``$.properties``), the keys of
    any other object are names (``$.properties['code']``)."""
    # Without recursion: a deep schema must not itself exhaust the stack.
    stack: list[tuple[str, Any]] = [("$", root)]
    while stack:
        path, node = stack.pop()
        children: list[tuple[str, Any]] = []
        if isinstance(node, dict):
            if id(node) in schemas:
                yield path, node
                children = [(f"{path}.{key}", value) for key, value in node.items()]
            else:
                children = [(f"{path}[{key!r}]", value) for key, value in node.items()]
        elif isinstance(node, list):
            children = [(f"{path}[{index}]", value) for index, value in enumerate(node)]
        stack.extend(
            (child_path, value)
            for child_path, value in reversed(children)
            if isinstance(value, dict | list)
        )


def _check_loops(root: dict[str, Any], schemas: set[int], resolver: Any) -> None:
    """Refuse a chain of references that comes back to a schema already being applied to
    the same value: checking it would recurse until the interpreter gives up."""
    paths = {id(node): path for path, node in _subschemas(root, schemas)}
    finished: set[int] = set()
    for path, node in _subschemas(root, schemas):
        if id(node) not in finished:
            _follow(node, path, resolver, paths, finished)


# (where the step is made: the path of a reference and its value, or None for a step into
# a subschema such as allOf[0]; the path of the schema it reaches; that schema)
_Step = tuple[tuple[str, str] | None, str, dict[str, Any]]


def _follow(
    start: dict[str, Any],
    path: str,
    resolver: Any,
    paths: dict[int, str],
    finished: set[int],
) -> None:
    # Depth first without recursion: a deep schema must not itself exhaust the stack.
    trail: list[tuple[int, tuple[str, str] | None, Iterator[_Step]]] = [
        (id(start), None, _same_value_steps(start, path, resolver, paths))
    ]
    on_trail = {id(start): 0}
    while trail:
        node_id, _, steps = trail[-1]
        step = next(steps, None)
        if step is None:
            trail.pop()
            del on_trail[node_id]
            finished.add(node_id)
            continue
        via, target_path, target = step
        if id(target) in on_trail:
            loop = [entered for _, entered, _ in trail[on_trail[id(target)] + 1 :]] + [via]
            refs = [ref for ref in loop if ref is not None]
            where, ref = refs[-1]
            through = (
                f" (through {' -> '.join(repr(value) for _, value in refs)})"
                if len(refs) > 1
                else ""
            )
            raise InvalidResponseSchemaError(
                where,
                f"{ref!r} leads back to a schema already checking the same value{through}, "
                "so checking any answer would never end. A schema may refer to itself only "
                "from inside `properties`, `items` or another keyword that checks a part of "
                "the answer (as a linked list's `next` does).",
            )
        if id(target) not in finished:
            on_trail[id(target)] = len(trail)
            trail.append((id(target), via, _same_value_steps(target, target_path, resolver, paths)))


def _same_value_steps(
    node: dict[str, Any], path: str, resolver: Any, paths: dict[int, str]
) -> Iterator[_Step]:
    """The schemas `node` applies to the very value it checks: references and in-place
    keywords such as allOf, not or if."""

    def reached(child: Any, fallback: str) -> Iterator[_Step]:
        if isinstance(child, dict):
            yield None, paths.get(id(child), fallback), child

    for keyword in _REF_KEYWORDS:
        ref = node.get(keyword)
        if not isinstance(ref, str):
            continue
        try:
            target = resolver.lookup(ref).contents
        except Unresolvable:
            continue  # a `$dynamicRef` to an anchor; a dangling `$ref` is refused earlier
        if isinstance(target, dict):
            yield (f"{path}.{keyword}", ref), paths.get(id(target), ref), target
    for keyword in _SAME_VALUE:
        yield from reached(node.get(keyword), f"{path}.{keyword}")
    for keyword in _SAME_VALUE_LISTS:
        if isinstance(node.get(keyword), list):
            for index, item in enumerate(node[keyword]):
                yield from reached(item, f"{path}.{keyword}[{index}]")
    for keyword in _SAME_VALUE_MAPS:
        if isinstance(node.get(keyword), dict):
            for name, item in node[keyword].items():
                yield from reached(item, f"{path}.{keyword}[{name!r}]")


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
