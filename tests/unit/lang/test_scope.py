"""The scope's API for local variables: what bodies, loops and contracts write."""

from laguna.lang.scope import Scope, local_values, lookup
from laguna.yaql.engine import create_root_context


def test_set_local_is_seen_by_lookup_and_by_yaql_in_child_scopes():
    scope = Scope(create_root_context(False))
    scope.set_local("$x", 5)
    child = Scope(scope)
    assert lookup(child, "$x") == 5
    assert child["$x"] == 5


def test_set_local_in_a_child_hides_the_parent_variable_without_changing_it():
    scope = Scope(create_root_context(False))
    scope.set_local("$x", 1)
    child = Scope(scope)
    child.set_local("$x", 2)
    assert (lookup(child, "$x"), lookup(scope, "$x")) == (2, 1)


def test_set_this_binds_this_and_the_dollar_variable():
    scope = Scope(create_root_context(False))
    scope.set_this("me")
    assert (lookup(scope, "$this"), lookup(scope, "$1"), scope["$"]) == ("me", "me", "me")


def test_local_values_are_the_scope_own_variables_only():
    scope = Scope(create_root_context(False))
    scope.set_local("$a", 1)
    child = Scope(scope)
    child.set_local("$b", 2)
    assert list(local_values(child)) == [2]


def test_missing_variable_reads_as_null():
    assert lookup(Scope(create_root_context(False)), "$nothing") is None
