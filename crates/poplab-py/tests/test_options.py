"""The Python layer's run options against the library's `RawSpec`: every field is an option of
`run`, `trace` or `sweep` (or one of their own arguments), and every option the layer writes is a
field, so a new field cannot be forgotten in Python."""

import inspect
import json

import poplab
from poplab import _options, _poplab

# The fields the functions take as their own arguments rather than as options of `_settings`:
# the protocol and n (positional), params= (its own shape in `sweep`), and trace's every=.
OWN_ARGUMENTS = {"protocol": "protocol", "n": "n", "params": "params", "trace_every": "every"}


def test_every_spec_field_is_an_option():
    fields = set(_poplab.spec_fields())
    options = set(list(inspect.signature(_options._settings).parameters)[1:])
    assert fields == options | set(OWN_ARGUMENTS)
    for function in (poplab.run, poplab.trace, poplab.sweep):
        assert options <= set(inspect.signature(function).parameters), function.__name__
    for field, argument in OWN_ARGUMENTS.items():
        function = poplab.trace if field == "trace_every" else poplab.run
        assert argument in inspect.signature(function).parameters


def test_the_options_written_are_spec_fields():
    written = _options._settings(None, trials=3, max_steps=10, threads=1)
    assert set(written) <= set(_poplab.spec_fields())
    assert json.loads(json.dumps(written))["trials"] == 3

