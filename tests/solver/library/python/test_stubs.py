# The type stubs (kalah/__init__.pyi beside the module) against the module itself: every public
# name, class member and parameter of one is in the other, and help() has a text for each
# (pytest). Environment: PYTHONPATH holds the module.
import ast
import inspect
import os
import re

import kalah

STUBS = os.path.join(os.path.dirname(kalah.__file__), "__init__.pyi")


def stub_tree():
    with open(STUBS) as f:
        return ast.parse(f.read())


def stub_params(fn):
    """A stub function's parameter names, self and the keyword-only marker left out."""
    a = fn.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg != "self"]


def doc_params(obj):
    """Parameter names of a compiled function from pybind11's signature line in its __doc__."""
    line = (obj.__doc__ or "").strip().splitlines()[0]
    inside = line[line.index("(") + 1:line.rindex(")")]
    names = [m.group(1) for m in re.finditer(r"(?:^|, )\*?(\w+):", inside)]
    return [n for n in names if n != "self"]


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_the_stubs_and_py_typed_ship_with_the_module():
    assert os.path.isfile(STUBS)
    assert os.path.isfile(os.path.join(os.path.dirname(kalah.__file__), "py.typed"))


def test_every_public_name_has_a_stub_and_every_stub_a_name():
    tree = stub_tree()
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    stubbed |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    assert stubbed == set(kalah.__all__)


def test_every_member_and_parameter_matches():
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            assert stub_params(node) == doc_params(getattr(kalah, node.name)), node.name
        if not isinstance(node, ast.ClassDef) or node.name == "DatabaseError":
            continue
        cls = getattr(kalah, node.name)
        members = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
        own = public(name for name in vars(cls) if not name.startswith("__"))
        assert public(members) == own, node.name
        for name, fn in members.items():
            if name.startswith("__") and name != "__init__":
                continue
            member = inspect.getattr_static(cls, name)
            if isinstance(member, property):
                continue
            assert stub_params(fn) == doc_params(getattr(cls, name)), "%s.%s" % (node.name, name)


def test_help_has_a_text_for_every_public_member():
    assert "numpy" in kalah.__doc__
    for name in kalah.__all__:
        obj = getattr(kalah, name)
        if isinstance(obj, str):
            continue
        assert obj.__doc__, name
        if isinstance(obj, type):
            for member in public(vars(obj)):
                doc = inspect.getattr_static(obj, member).__doc__
                assert doc and len(doc.strip()) > 10, "%s.%s" % (name, member)
