"""tileir/utils/plain_isinstance.py: xDSL's classes answer `isinstance` in C, and every
answer is the one `ABCMeta` gives, virtual subclasses included."""

from __future__ import annotations

import abc
from collections.abc import Iterator

import pytest
from xdsl.dialects import arith, builtin, llvm
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.irdl import IRDLOperation

import tileir.compiler  # noqa: F401  (the compiler's classes, as tileir-as has them)
from tileir.dialects.cuda_tile import ops as cuda_tile_ops
from tileir.utils import plain_isinstance


@pytest.fixture
def moved() -> Iterator[None]:
    """Installed for the test's body; afterwards as the process had it (the suite's
    conftest installs it, a `TILEIR_TEST_XDSL_AS_IS=1` run does not)."""
    was = plain_isinstance.installed()
    plain_isinstance.install()
    try:
        yield
    finally:
        plain_isinstance.uninstall()
        if was:
            plain_isinstance.install()


def _samples() -> tuple[list[object], list[type]]:
    i32 = builtin.i32
    a = arith.ConstantOp(builtin.IntegerAttr(1, i32))
    ops: list[object] = [
        a,
        llvm.AddOp(a.result, a.result),
        builtin.ModuleOp([]),
        i32,
        builtin.IntegerAttr(1, i32),
        builtin.StringAttr("x"),
        3,
        "text",
    ]
    classes: list[type] = [
        Operation,
        IRDLOperation,
        Attribute,
        builtin.IntegerType,
        ParametrizedAttribute,
        arith.ConstantOp,
        llvm.AddOp,
        llvm.ArithmeticBinOpOverflow,
        llvm.ArithmeticBinOpExact,
        cuda_tile_ops.ConstantOp,
    ]
    return ops, classes


def test_answers_are_abcmetas(moved: None) -> None:
    assert type(llvm.AddOp) is plain_isinstance.PlainCheckABCMeta
    assert type(Operation) is plain_isinstance.PlainCheckABCMeta
    ops, classes = _samples()
    for cls in classes:
        for obj in ops:
            assert isinstance(obj, cls) == abc.ABCMeta.__instancecheck__(cls, obj), (obj, cls)
        for other in classes:
            expected = abc.ABCMeta.__subclasscheck__(cls, other)
            assert issubclass(other, cls) == expected, (other, cls)


def test_no_virtual_subclasses_in_xdsl_or_tileir(moved: None) -> None:
    """The premise: neither package registers a virtual subclass or defines a
    `__subclasshook__` on a class that moved."""
    for cls in plain_isinstance._moved:
        assert not abc._get_dump(cls)[0], cls  # pyright: ignore[reportAttributeAccessIssue]
        assert all("__subclasshook__" not in vars(base) for base in cls.__mro__[:-1]), cls


def test_register_moves_every_class_back(moved: None) -> None:
    class Foreign:
        pass

    assert not isinstance(Foreign(), Operation)
    IRDLOperation.register(Foreign)
    assert not plain_isinstance.installed()
    assert type(llvm.AddOp) is abc.ABCMeta
    assert isinstance(Foreign(), IRDLOperation)
    assert isinstance(Foreign(), Operation)  # ABCMeta asks a base's subclasses too
    assert issubclass(Foreign, Operation)


def test_a_subclass_hook_moves_every_class_back(moved: None) -> None:
    class Hooked(Attribute):
        @classmethod
        def __subclasshook__(cls, other: type) -> bool:
            return other is int

    assert not plain_isinstance.installed()
    assert isinstance(3, Hooked)
    assert isinstance(3, Attribute)


def test_classes_defined_after_install_check_plainly(moved: None) -> None:
    class Later(Attribute):
        pass

    assert type(Later) is plain_isinstance.PlainCheckABCMeta
    assert not isinstance(3, Later)
    with pytest.raises(TypeError):  # still abstract: ABCMeta's __new__ ran
        Later()  # pyright: ignore[reportAbstractUsage]


def test_other_packages_keep_abcmeta(moved: None) -> None:
    from collections.abc import Sequence

    assert type(Sequence) is abc.ABCMeta
