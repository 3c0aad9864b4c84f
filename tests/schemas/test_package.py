"""The schemas package root: every contract by name, each submodule loaded only when used."""

import subprocess
import sys

import pytest

import schemas


def test_every_exported_name_resolves_to_its_model() -> None:
    for name in schemas.__all__:
        model = getattr(schemas, name)
        assert model.__name__ == name
        assert model.__module__.startswith("schemas.")


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchModel"):
        schemas.NoSuchModel  # noqa: B018


def test_importing_one_contract_loads_only_its_module() -> None:
    # A profiling worker needs schemas.profiles; building the other models costs start-up time.
    code = (
        "import sys; from schemas.profiles import FileProfile; "
        "print(sorted(m for m in sys.modules if m.startswith('schemas.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['schemas.profiles']"
