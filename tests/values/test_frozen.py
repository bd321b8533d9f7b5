"""``@frozen`` against ``@dataclass(frozen=True)`` of the same declaration (``dataclass_of``), for every value class of the
house and for the odd declarations: the same constructor, repr, equality, hash, refusals and dataclasses view."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pickle
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import toolguards
from toolguards.values import dataclass_of, field, field_names, frozen, replace


def house_values() -> list[type]:
    """Every ``@frozen`` class of the house: the classes of each module whose text decorates one."""
    root = Path(toolguards.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if "\n@frozen\n" not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(root.parent).with_suffix("").parts
        module = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        found += [value for value in vars(module).values()
                  if isinstance(value, type) and "__frozen_fields__" in value.__dict__
                  and value.__module__ == module.__name__]
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


HOUSE = house_values()

#: A value of each annotation the house's fields have, by the annotation's text (its outer name).
SAMPLES: dict[str, Callable[[int], Any]] = {
    "str": lambda n: f"text {n}",
    "str | None": lambda n: f"maybe {n}",
    "int": lambda n: 3 + n,
    "int | None": lambda n: 7 + n,
    "bool": lambda n: n % 2 == 0,
    "Any": lambda n: {"any": [n]},
    "Action": lambda n: ("count", "reset", "ignore")[n % 3],
    "Literal": lambda n: ("accept", "block")[n % 2],
    "Mapping": lambda n: {"key": n},
    "tuple": lambda n: ("a", f"b{n}"),
}


def sample(annotation: str, n: int) -> Any:
    for text in (annotation, annotation.split("[", 1)[0]):
        if text in SAMPLES:
            return SAMPLES[text](n)
    return None  # another value class (``Rules``, ``Block``, ``Reminder``…): any value will do, nothing checks it


def arguments(cls: type, n: int) -> dict[str, Any]:
    return {f.name: sample(f.type, n) for f in dataclasses.fields(dataclass_of(cls))}


def same(found: Any, expected: Any) -> None:
    """An instance of the ``@frozen`` class and one of its reference hold the same fields and print alike."""
    assert vars(found) == vars(expected)
    assert repr(found) == repr(expected)


def outcome(run: Callable[[], Any]) -> Any:
    """What ``run()`` returns, or the type and message of what it raises."""
    try:
        return run()
    except Exception as exc:
        return type(exc), str(exc)


def test_the_house_has_its_values():
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in HOUSE}
    assert {"toolguards.events.ToolEvent", "toolguards.events.ContextEntry", "toolguards.events.PostToolDecision",
            "toolguards.guard.Effect", "toolguards.hooks.driver.HookRequest",
            "toolguards.kinds.repeat_tool_reminder.RepeatSettings"} <= names


@pytest.mark.parametrize("cls", HOUSE, ids=lambda cls: cls.__qualname__)
def test_a_house_value_is_its_dataclass(cls):
    reference = dataclass_of(cls)
    ours, theirs = dataclasses.fields(cls), dataclasses.fields(reference)
    assert [(f.name, f.type, f.default, f.default_factory, f.compare) for f in ours] == [
        (f.name, f.type, f.default, f.default_factory, f.compare) for f in theirs]
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__ == reference.__dataclass_params__
    assert field_names(cls) == tuple(f.name for f in theirs) == cls.__match_args__ == reference.__match_args__
    given = arguments(cls, 1)
    # By keyword, by position, with every default: the same fields (and __post_init__ run alike).
    same(cls(**given), reference(**given))
    same(cls(*given.values()), reference(*given.values()))
    required = {f.name: given[f.name] for f in theirs
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    same(cls(**required), reference(**required))
    value, other = cls(**given), cls(**arguments(cls, 2))
    assert (value == cls(**given), value == other, value != other) == (
        reference(**given) == reference(**given), reference(**given) == reference(**arguments(cls, 2)),
        reference(**given) != reference(**arguments(cls, 2)))
    assert (value == reference(**given)) is False  # another class, as two dataclasses are
    assert outcome(lambda: hash(value)) == outcome(lambda: hash(reference(**given)))
    for name in field_names(cls):
        assert outcome(lambda n=name: setattr(value, n, 1)) == outcome(lambda n=name: setattr(reference(**given), n, 1))
        assert outcome(lambda n=name: delattr(value, n)) == outcome(lambda n=name: delattr(reference(**given), n))
    changed = {name: given_value for name, given_value in arguments(cls, 2).items() if name == field_names(cls)[0]}
    same(replace(value, **changed), dataclasses.replace(reference(**given), **changed))
    same(dataclasses.replace(value, **changed), dataclasses.replace(reference(**given), **changed))
    same(copy.copy(value), value)


@pytest.mark.parametrize("call", [
    lambda cls, names: cls(),
    lambda cls, names: cls(*range(len(names) + 1)),
    lambda cls, names: cls(unknown=1),
    lambda cls, names: cls(0, **{names[0]: 1}),
], ids=["nothing", "one too many", "an unknown keyword", "a value twice"])
@pytest.mark.parametrize("cls", [cls for cls in HOUSE if cls.__name__ in ("ToolEvent", "Reminder", "TemplateUse")],
                         ids=lambda cls: cls.__qualname__)
def test_a_wrong_call_raises_what_the_dataclass_raises(cls, call):
    names = field_names(cls)
    assert outcome(lambda: call(cls, names)) == outcome(lambda: call(dataclass_of(cls), names))


@frozen
class Point:
    """A point, with a label nobody compares."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
    label: str = field(default="", compare=False)


@frozen
class Labelled(Point):
    """A point with a name; ``y`` redeclared keeps its place."""

    name: str = "p"
    y: int = 5

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name.upper())


@frozen
class Hashed:
    """A value whose hash is its own."""

    key: str

    def __hash__(self) -> int:
        return 42


@frozen
class Unhashable:
    """A value that asks for no hash."""

    key: str
    __hash__ = None  # type: ignore[assignment]


@frozen
class Shown:
    """A value with its own repr and equality."""

    key: str

    def __repr__(self) -> str:
        return "shown"

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


ODD = [Point, Labelled, Hashed, Unhashable, Shown]


@pytest.mark.parametrize(("cls", "given"), [
    (Point, {"x": 1}),
    (Point, {"x": 1, "y": 2, "tags": ("a",), "label": "l"}),
    (Labelled, {"x": 1}),
    (Labelled, {"x": 1, "y": 2, "tags": (), "label": "l", "name": "n"}),
    (Hashed, {"key": "k"}),
    (Unhashable, {"key": "k"}),
    (Shown, {"key": "k"}),
], ids=lambda given: given.__name__ if isinstance(given, type) else ",".join(given))
def test_odd_declarations_are_their_dataclasses(cls, given):
    reference = dataclass_of(cls)
    same(cls(**given), reference(**given))
    assert field_names(cls) == tuple(f.name for f in dataclasses.fields(reference))
    assert outcome(lambda: hash(cls(**given))) == outcome(lambda: hash(reference(**given)))
    assert (cls(**given) == cls(**given)) == (reference(**given) == reference(**given))
    other = {**given, "label": "another"} if "label" in given else given
    assert (cls(**given) == cls(**other)) == (reference(**given) == reference(**other))
    assert dataclasses.asdict(cls(**given)) == dataclasses.asdict(reference(**given))
    assert pickle.loads(pickle.dumps(cls(**given))) == cls(**given)
    assert cls.__dict__.get("y", "absent") == reference.__dict__.get("y", "absent")  # the default as class attribute
    assert ("tags" in cls.__dict__) == ("tags" in reference.__dict__)  # none for a factory


def test_a_dataclass_may_subclass_a_value():
    @dataclasses.dataclass(frozen=True)
    class Sub(Point):
        """A dataclass of the dataclasses module on a value class."""

        z: int = 9

    assert vars(Sub(1)) == {"x": 1, "y": 0, "tags": (), "label": "", "z": 9}
    assert replace(Sub(1), z=2) == Sub(1, z=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Sub(1).z = 3  # type: ignore[misc]


@pytest.mark.parametrize(("declare", "expected"), [
    (lambda: type("Late", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}),
     (TypeError, "non-default argument 'b' follows default argument")),
    (lambda: type("Listed", (), {"__annotations__": {"a": "list[int]"}, "a": []}),
     (ValueError, "mutable default <class 'list'> for field a is not allowed: use default_factory")),
    (lambda: type("Both", (), {"__annotations__": {"a": "int"}, "a": field(default=1, default_factory=int)}),
     (ValueError, "cannot specify both default and default_factory")),
])
def test_a_bad_declaration_is_refused_as_dataclasses_refuse_it(declare, expected):
    assert outcome(lambda: frozen(declare())) == expected
    if expected[1] != "cannot specify both default and default_factory":  # that one is our field()'s own
        assert outcome(lambda: dataclasses.dataclass(frozen=True)(declare())) == expected


@pytest.mark.parametrize(("declare", "expected"), [
    (lambda: type("Counter", (), {"__annotations__": {"n": "ClassVar[int]"}}),
     "@frozen does not take ClassVar[int] (the field 'n' of Counter)"),
    (lambda: type("Initial", (), {"__annotations__": {"n": "dataclasses.InitVar[int]"}}),
     "@frozen does not take dataclasses.InitVar[int] (the field 'n' of Initial)"),
    (lambda: dataclasses.dataclass(frozen=True)(type("Real", (), {"__annotations__": {"n": "int"}})),
     None),
])
def test_what_frozen_does_not_take_is_a_type_error(declare, expected):
    declared = declare()
    if expected is None:  # a subclass of a dataclass of the dataclasses module
        declared = type("OnReal", (declared,), {"__annotations__": {"m": "int"}})
        expected = "@frozen class OnReal cannot inherit from the dataclass Real"
    assert outcome(lambda: frozen(declared)) == (TypeError, expected)


def test_a_hook_process_never_imports_dataclasses():
    # The values of a hook are made, compared and copied with values.replace; only the dataclasses view imports it.
    script = ("import sys\nfrom toolguards.events import ToolEvent, PostToolDecision\n"
              "from toolguards.values import replace\n"
              "event = replace(ToolEvent('grep', {'q': 1}, agent='a'), call_id='c')\n"
              "assert event == ToolEvent('grep', {'q': 1}, 'a', False, 'c') and hash(PostToolDecision())\n"
              "print('dataclasses' in sys.modules, 'inspect' in sys.modules)\n"
              "import dataclasses\nprint(dataclasses.is_dataclass(event), dataclasses.asdict(event)['call_id'])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "False False\nTrue c\n"


def test_mapping_fields_keep_their_post_init():
    from toolguards.events import ContextEntry

    entry = ContextEntry("text", {"kind": "plugin"})
    assert isinstance(entry.source, MappingProxyType) and isinstance(entry.metadata, Mapping)
    assert entry == ContextEntry("text", {"kind": "plugin"}, {}) and entry.reminder is None


def test_a_value_class_made_inside_a_function_prints_its_qualified_name_as_its_dataclass_does():
    def make() -> type:
        @frozen
        class Local:
            """A value class of a function's own."""

            n: int

        return Local

    local = make()
    assert repr(local(1)) == repr(dataclass_of(local)(1)) == "test_a_value_class_made_inside_a_function_prints_its_" \
        "qualified_name_as_its_dataclass_does.<locals>.make.<locals>.Local(n=1)"
