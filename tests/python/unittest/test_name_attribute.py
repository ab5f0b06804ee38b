"""mx.name and mx.attribute: naming and attribute scopes, one current scope per thread."""
import threading

import pytest

import mxnet as mx
from mxnet.attribute import AttrScope
from mxnet.name import NameManager, Prefix


def test_name_manager_counts_per_hint_and_keeps_given_names():
    nm = NameManager()
    assert [nm.get(None, "fc"), nm.get(None, "fc"), nm.get(None, "conv")] == ["fc0", "fc1", "conv0"]
    assert nm.get("mine", "fc") == "mine"


def test_prefix_prepends_to_every_name():
    with Prefix("net_") as p:
        assert p.get(None, "fc") == "net_fc0"
        assert p.get("out", "fc") == "net_out"


def test_with_name_manager_restores_the_previous_one():
    with pytest.warns(DeprecationWarning):
        before = NameManager.current
    with NameManager() as nm:
        with pytest.warns(DeprecationWarning):
            assert NameManager.current is nm
    with pytest.warns(DeprecationWarning):
        assert NameManager.current is before


def test_name_manager_is_thread_local():
    main = NameManager()
    NameManager.current = main
    main.get(None, "main_thread")
    seen = []

    def worker():
        with pytest.warns(DeprecationWarning):
            seen.append(NameManager.current)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen[0] is not main and "main_thread" not in seen[0]._counter


def test_attr_scope_merges_nested_scopes_inner_wins():
    with mx.AttrScope(group="a", lr_mult="1"):
        with AttrScope(group="b") as inner:
            assert inner.get(None) == {"group": "b", "lr_mult": "1"}
            assert inner.get({"lr_mult": "2"}) == {"group": "b", "lr_mult": "2"}
    assert AttrScope().get(None) == {}


def test_attr_scope_values_must_be_strings():
    with pytest.raises(ValueError, match="string"):
        AttrScope(lr_mult=1)


def test_attr_scope_is_thread_local():
    status = []
    ready, go = threading.Event(), threading.Event()

    def worker():
        with mx.AttrScope(x="hello"):
            ready.set()
            go.wait()
            with pytest.warns(DeprecationWarning):
                status.append(AttrScope.current._attr)

    t = threading.Thread(target=worker)
    t.start()
    ready.wait()
    with pytest.warns(DeprecationWarning):
        AttrScope.current = AttrScope(x="other")
    go.set()
    t.join()
    with pytest.warns(DeprecationWarning):
        AttrScope.current = AttrScope()
    assert status == [{"x": "hello"}]
