"""Keyword arguments <-> ``traductor.v1.DecodingOptions``.

The option names are the proto field names (``max_new_tokens``, ``beam_size``, ...), read from
the generated descriptor so a field added to the proto is accepted without touching this file.
Only the options actually given are set on the message: the fields are proto3 ``optional``, so
an unset field means "server default" while a set one is range-checked by the server. Passing
``None`` for an option is the same as leaving it out, which lets callers (the CLI) forward
absent flags unchanged.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Mapping

from google.protobuf.descriptor import FieldDescriptor

from traductor_client.v1 import translator_pb2

_FIELDS = {f.name: f for f in translator_pb2.DecodingOptions.DESCRIPTOR.fields}

#: Every accepted option name.
OPTION_NAMES: FrozenSet[str] = frozenset(_FIELDS)

_INT_TYPES = {
    FieldDescriptor.CPPTYPE_INT32,
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT32,
    FieldDescriptor.CPPTYPE_UINT64,
}
_FLOAT_TYPES = {FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE}


def _check_type(name: str, value: Any) -> Any:
    """Reject values of the wrong Python type with a clear TypeError (before protobuf does)."""
    cpp_type = _FIELDS[name].cpp_type
    if cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        if not isinstance(value, bool):
            raise TypeError(f"option {name} must be a bool, not {type(value).__name__}")
        return value
    if isinstance(value, bool):  # bool is an int subclass; True as a beam size is a bug
        raise TypeError(f"option {name} must be a number, not bool")
    if cpp_type in _INT_TYPES:
        if not isinstance(value, int):
            raise TypeError(f"option {name} must be an int, not {type(value).__name__}")
        return value
    if cpp_type in _FLOAT_TYPES:
        if not isinstance(value, (int, float)):
            raise TypeError(f"option {name} must be a number, not {type(value).__name__}")
        return float(value)
    raise TypeError(f"option {name} has an unsupported field type")  # not reached with this proto


def to_pb(options: Mapping[str, Any]) -> translator_pb2.DecodingOptions:
    """Build a ``DecodingOptions`` with exactly the given (non-None) options set.

    Raises TypeError for an unknown option name or a value of the wrong type, and ValueError
    for an integer that does not fit the proto field (e.g. above 2**31 - 1 for int32).
    """
    unknown = sorted(set(options) - OPTION_NAMES)
    if unknown:
        raise TypeError(f"unknown decoding option(s): {', '.join(unknown)} (known: {', '.join(sorted(OPTION_NAMES))})")
    message = translator_pb2.DecodingOptions()
    for name, value in options.items():
        if value is None:
            continue
        value = _check_type(name, value)
        try:
            setattr(message, name, value)
        except ValueError as exc:
            raise ValueError(f"option {name}={value!r} is out of range: {exc}") from exc
    return message


def from_pb(message: translator_pb2.DecodingOptions) -> Dict[str, Any]:
    """The options that are set on ``message``, as keyword arguments for :func:`to_pb`."""
    return {field.name: value for field, value in message.ListFields()}
