"""The model types a transformers profile says its releases cannot load are exactly those, among the bundled
models' and the ones it names, that the installed release's registry lacks."""

from __future__ import annotations

import dataclasses

import pytest

from pe_verify.properties.encodings.model_config import bundled_models, read_config
from pe_verify.properties.encodings.runtimes import PROFILES

pytestmark = pytest.mark.runtime


def _bundled_types() -> set[str]:
    found = set()
    for bundled in bundled_models().values():
        for group in read_config(bundled.config).groups:
            if group.position.scheme == "rope" and group.position.model_type:
                found.add(group.position.model_type)
    return found


def _check(profile, version: str, registry) -> None:
    for model_type in sorted(_bundled_types() | set(profile.unserved)):
        loads = model_type in registry
        assert loads != (model_type in profile.unserved), (
            f"{profile.name} at {version}: {model_type} {'loads' if loads else 'does not load'}, the profile "
            "says otherwise"
        )


def _installed():
    transformers = pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    version = transformers.__version__
    profile = next(p for p in PROFILES if p.runtime == "transformers" and p.covers(version))
    return profile, version, CONFIG_MAPPING_NAMES


def test_unserved_model_types_match_the_installed_registry() -> None:
    _check(*_installed())


@pytest.mark.parametrize("change", ["llama served said unserved", "an unserved type dropped"])
def test_a_wrong_unserved_list_is_caught(change: str) -> None:
    profile, version, registry = _installed()
    if change == "llama served said unserved":
        twin = dataclasses.replace(profile, unserved=(*profile.unserved, "llama"))
    elif set(profile.unserved) & _bundled_types():
        dropped = sorted(set(profile.unserved) & _bundled_types())[0]
        twin = dataclasses.replace(profile, unserved=tuple(t for t in profile.unserved if t != dropped))
    else:
        twin = dataclasses.replace(profile, unserved=("no_such_model_type",))
        registry = {**registry, "no_such_model_type": "X"}
    with pytest.raises(AssertionError):
        _check(twin, version, registry)
