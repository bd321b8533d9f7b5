"""Frozen value types without ``dataclasses``' import-time cost: ``@frozen``, ``field`` and ``replace``.

``@frozen`` makes of a class of annotated fields what ``@dataclass(frozen=True)`` makes of it: the same ``__init__``
(positional or keyword arguments, defaults, ``field(default_factory=…)``, then ``__post_init__`` where the class has
one), ``__repr__``, ``__eq__`` (an instance of the very same class, the fields compared as a tuple, ``compare=False``
fields left out), ``__hash__`` of that tuple (a class that sets ``__hash__`` itself keeps its own), ``__match_args__``,
and every assignment or deletion of a field refused with ``dataclasses.FrozenInstanceError``; a method the class body
defines itself is kept, as dataclasses keep it. Fields are inherited from ``@frozen`` bases in the same order. What it
does not take it refuses with a TypeError: ``ClassVar``, ``InitVar`` and ``KW_ONLY`` annotations, and a base that is a
dataclass of the ``dataclasses`` module. A class without a docstring keeps none (dataclasses write its signature).

To the ``dataclasses`` module they are dataclasses all the same: ``dataclasses.fields``, ``replace``, ``asdict`` and
``is_dataclass`` read the ``Field`` objects of ``dataclass_of(cls)``, which is ``@dataclass(frozen=True)`` of the same
declaration, made (``dataclasses`` imported) on first use. ``replace`` and ``field_names`` here are
``dataclasses.replace`` and the names of ``dataclasses.fields`` without that import.

Why not ``@dataclass`` itself: importing ``dataclasses`` imports ``inspect`` (and ``ast``, ``dis``, ``tokenize``), and
each class it makes compiles six functions: together about half of what a bare interpreter costs to start, in a hook
process that handles one event and exits (``benchmarks/bench_hook.py``). ``@frozen`` compiles only ``__init__``, on
the class's first instance, and shares the rest. The values a hook process builds use it (``toolguards.events``, the
guards' ``Effect``, the kinds' settings and reminders, the hook driver's request); the rest of the house keeps
``@dataclass``. A test holds every ``@frozen`` class of the house against its ``dataclass_of``.
"""

from __future__ import annotations

import abc
import sys
from itertools import pairwise
from reprlib import recursive_repr  # collections imports reprlib: every interpreter here has it loaded already

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:
    def dataclass_transform(**options: object) -> Callable[[T], T]:
        """What tells type checkers that ``frozen`` makes dataclasses; nothing at run time."""
        return lambda function: function

__all__ = ["dataclass_of", "field", "field_names", "frozen", "replace"]

#: The class attribute holding a value class's ``_Field``s, inherited ones first, in ``__init__`` order.
_FIELDS = "__frozen_fields__"
#: The class attribute holding the class body as written (the declaration ``dataclass_of`` decorates).
_BODY = "__frozen_body__"
_MISSING: Any = object()


class _Factory:
    """The default of a parameter whose field has a default factory (``<factory>``, as dataclasses show it)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()


class _Field:
    """A field as declared: its default or default factory, and whether ``==`` and ``hash`` see it."""

    __slots__ = ("compare", "default", "default_factory", "name")

    def __init__(self, default: Any, default_factory: Any, compare: bool, name: str = "") -> None:
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.name = name

    def defaulted(self) -> bool:
        return self.default is not _MISSING or self.default_factory is not _MISSING


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] = _MISSING, compare: bool = True) -> Any:
    """A field with a default or a default factory, or one that ``==`` and ``hash`` leave out."""
    return _Field(default, default_factory, compare)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[T]) -> type[T]:
    """The class as a frozen value type (see the module docstring)."""
    _make(cls)
    return cls


def _make(cls: type) -> None:
    body = dict(cls.__dict__)
    fields: dict[str, _Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        if "__dataclass_fields__" in base.__dict__ and _FIELDS not in base.__dict__:
            raise TypeError(f"@frozen class {cls.__qualname__} cannot inherit from the dataclass {base.__qualname__}")
        fields.update((f.name, f) for f in base.__dict__.get(_FIELDS, ()))
    for name, annotation in body.get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))
        if text.split("[", 1)[0].rpartition(".")[2] in ("ClassVar", "InitVar", "KW_ONLY"):
            raise TypeError(f"@frozen does not take {text} (the field {name!r} of {cls.__qualname__})")
        declared = getattr(cls, name, _MISSING)  # an inherited class attribute is a default too, as in dataclasses
        spec = declared if isinstance(declared, _Field) else _Field(declared, _MISSING, True)
        if spec.default is not _MISSING and type(spec.default).__hash__ is None:
            raise ValueError(f"mutable default {type(spec.default)} for field {name} is not allowed: use "
                             "default_factory")
        fields[name] = _Field(spec.default, spec.default_factory, spec.compare, name)  # a base's keeps its place
        if spec.default is not _MISSING:  # the class attribute is the plain default, as dataclasses leave it
            setattr(cls, name, spec.default)
        elif name in body:
            delattr(cls, name)
    ordered = tuple(fields.values())
    for before, after in pairwise(ordered):
        if before.defaulted() and not after.defaulted():
            raise TypeError(f"non-default argument {after.name!r} follows default argument")
    names = tuple(f.name for f in ordered)
    compared = tuple(f.name for f in ordered if f.compare)
    # A __hash__ of the body's own is kept; None is the body's own only where it defines no __eq__ (Python writes
    # __hash__ = None beside an __eq__ by itself).
    explicit_hash = "__hash__" in body and not (body["__hash__"] is None and "__eq__" in body)
    kept = {"__init__": _lazy_init(cls, ordered), "__repr__": _repr(names), "__eq__": _eq(compared),
            "__match_args__": names}  # each unless the body defines it
    made: dict[str, Any] = {name: value for name, value in kept.items() if name not in body}
    for name, method in (("__setattr__", _setattr(cls, frozenset(names))),
                         ("__delattr__", _delattr(cls, frozenset(names)))):
        if name in body:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        made[name] = method
    if not explicit_hash:
        made["__hash__"] = _hash(compared)
    if sys.version_info >= (3, 13):  # where copy.replace() is, dataclasses give every class its __replace__
        made["__replace__"] = replace
    made[_FIELDS], made[_BODY] = ordered, body
    made["__dataclass_fields__"] = _DataclassView(cls, "__dataclass_fields__")
    made["__dataclass_params__"] = _DataclassView(cls, "__dataclass_params__")
    for name, value in made.items():
        setattr(cls, name, value)
    abc.update_abstractmethods(cls)


def _lazy_init(cls: type, fields: tuple[_Field, ...]) -> Callable[..., None]:
    """An ``__init__`` that compiles the class's own on the first call and puts it in its place: compiling costs a
    fifth of a millisecond, and a process that handles one hook event makes only a few of its value classes."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _init(cls, fields)
        type.__setattr__(cls, "__init__", init)
        init(self, *args, **kwargs)

    return __init__


def _init(cls: type, fields: tuple[_Field, ...]) -> Callable[..., None]:
    """``__init__`` compiled for the class, as dataclasses compile theirs (a loop over the fields would cost each value
    more); it fills ``__dict__`` directly, which is what ``object.__setattr__`` does for these classes."""
    namespace: dict[str, Any] = {"_HAS_FACTORY": _HAS_FACTORY}
    parameters, lines = ["self"], ["    d = self.__dict__"]
    for n, f in enumerate(fields):
        if f.default_factory is not _MISSING:
            namespace[f"_factory{n}"] = f.default_factory
            parameters.append(f"{f.name}=_HAS_FACTORY")
            lines.append(f"    d[{f.name!r}] = _factory{n}() if {f.name} is _HAS_FACTORY else {f.name}")
            continue
        if f.default is not _MISSING:
            namespace[f"_default{n}"] = f.default
        parameters.append(f.name if f.default is _MISSING else f"{f.name}=_default{n}")
        lines.append(f"    d[{f.name!r}] = {f.name}")
    if hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    source = f"def __init__({', '.join(parameters)}):\n" + "\n".join(lines) + "\n"
    exec(compile(source, f"<@frozen {cls.__qualname__}>", "exec"), namespace)  # our own text, made above
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    @recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)
        return NotImplemented

    return __eq__


def _hash(names: tuple[str, ...]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, n) for n in names))

    return __hash__


def _frozen_error(message: str) -> Exception:
    # The error dataclasses raise: an assignment to a frozen value is a bug, so importing it then costs nothing.
    from dataclasses import FrozenInstanceError  # noqa: PLC0415

    return FrozenInstanceError(message)


def _setattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _delattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


class _DataclassView:
    """A value class's ``__dataclass_fields__`` or ``__dataclass_params__``: its ``dataclass_of``'s, made on first use
    and then set on the class in place of this descriptor."""

    def __init__(self, home: type, attribute: str) -> None:
        self.home = home
        self.attribute = attribute

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        reference = dataclass_of(self.home)
        for attribute in ("__dataclass_fields__", "__dataclass_params__"):
            type.__setattr__(self.home, attribute, getattr(reference, attribute))
        return getattr(reference, self.attribute)


_REFERENCES: dict[type, type] = {}


def dataclass_of(cls: type) -> type:
    """``@dataclass(frozen=True)`` of the ``@frozen`` class's declaration, its ``@frozen`` bases made so as well: the
    reference that ``@frozen`` reproduces, and where its ``Field`` objects come from."""
    found = _REFERENCES.get(cls)
    if found is not None:
        return found
    import dataclasses  # noqa: PLC0415

    body = cls.__dict__[_BODY]
    namespace = {key: value for key, value in body.items() if key not in ("__dict__", "__weakref__")}
    namespace["__qualname__"] = cls.__qualname__  # a class's qualified name is not in its __dict__
    for name in body.get("__annotations__", {}):
        declared = body.get(name, _MISSING)
        if isinstance(declared, _Field):
            options: dict[str, Any] = {"compare": declared.compare}
            if declared.default is not _MISSING:
                options["default"] = declared.default
            if declared.default_factory is not _MISSING:
                options["default_factory"] = declared.default_factory
            namespace[name] = dataclasses.field(**options)
    bases = tuple(dataclass_of(base) if _FIELDS in base.__dict__ else base for base in cls.__bases__)
    found = _REFERENCES[cls] = dataclasses.dataclass(frozen=True)(type(cls.__name__, bases, namespace))
    return found


def field_names(cls: type) -> tuple[str, ...]:
    """The names of a value class's fields, in ``__init__`` order (``dataclasses.fields``' names)."""
    return tuple(f.name for f in cls.__dict__[_FIELDS])


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a value with some fields changed, as ``dataclasses.replace`` makes it (and is, for any other
    dataclass)."""
    fields = type(obj).__dict__.get(_FIELDS)
    if fields is None:
        import dataclasses  # noqa: PLC0415

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in fields:
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    made: T = type(obj)(**changes)
    return made
