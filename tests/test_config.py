from __future__ import annotations

import os
from pathlib import Path

import pytest

from ccstate import config, paths
from ccstate.errors import ConfigError


def test_template_is_valid_and_equals_defaults() -> None:
    text = (paths_template := Path(__file__).parents[1] / "templates" / "ccstate.yaml").read_text()
    cfg = config.parse_text(text, str(paths_template))
    assert cfg.warnings == ()
    assert dict(cfg.values) == config.defaults()


def test_unknown_keys_warn_with_their_dotted_name() -> None:
    cfg = config.parse_text("foo: 1\ndedupe:\n  bar: 2\n  diff: false\n", ".ccstate.yaml")
    assert cfg.warnings == (
        ".ccstate.yaml: unknown key 'foo' is ignored",
        ".ccstate.yaml: unknown key 'dedupe.bar' is ignored",
    )
    assert cfg.get("dedupe.diff") is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "dedupe:\n  diff_max_ratio: 3\n",
            "'dedupe.diff_max_ratio' must be a number between 0 and 1, e.g. 0.5 (got 3)",
        ),
        ("capsule:\n  budget_tokens: ten\n", "'capsule.budget_tokens' must be a whole number"),
        ("capsule:\n  enabled: 1\n", "'capsule.enabled' must be true or false (got 1)"),
        ("log:\n  max_bytes: true\n", "'log.max_bytes' must be a whole number of bytes"),
        ("- a\n- b\n", "the top level must be a mapping of settings (got list)"),
        ("a: [\n", "is not valid YAML"),
    ],
)
def test_bad_values_name_file_key_and_fix(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        config.parse_text(text, "/p/.ccstate.yaml")
    assert str(info.value).startswith("/p/.ccstate.yaml")
    assert message in str(info.value)


def test_integers_are_accepted_for_float_keys() -> None:
    assert config.parse_text("dedupe: {diff_max_ratio: 1}", "f").get("dedupe.diff_max_ratio") == 1.0


def test_empty_file_means_defaults() -> None:
    assert dict(config.parse_text("", "f").values) == config.defaults()


def test_load_for_hook_caches_and_never_raises(tmp_path: Path) -> None:
    project, state = tmp_path, tmp_path / ".ccstate"
    assert config.load_for_hook(project, state).source == "defaults"
    cfg_file = paths.config_path(project)
    cfg_file.write_text("dedupe:\n  enabled: false\n")
    first = config.load_for_hook(project, state)
    assert first.get("dedupe.enabled") is False
    assert Path(paths.config_cache_path_str(str(state))).exists()
    # The cache answers without yaml while the file is unchanged ...
    again = config._read_cache(Path(paths.config_cache_path_str(str(state))), _stamp(cfg_file))
    assert again is not None and again.get("dedupe.enabled") is False
    # ... and a bad edit falls back to defaults with a warning instead of raising.
    cfg_file.write_text("dedupe:\n  enabled: maybe\n")
    os.utime(cfg_file, ns=(1, 1))
    bad = config.load_for_hook(project, state)
    assert bad.get("dedupe.enabled") is True
    assert "using defaults" in bad.warnings[0]


def test_load_cached_answers_from_the_hooks_cache_and_raises_on_a_bad_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, state = tmp_path, tmp_path / ".ccstate"
    cfg_file = paths.config_path(project)
    cfg_file.write_text("report:\n  pricing: prices.json\n")
    assert not state.exists()
    assert config.load_cached(project).get("report.pricing") == "prices.json"
    assert not state.exists()  # a read-only command creates no state dir
    state.mkdir()
    config.load_cached(project)  # now the parse is cached for the next run
    assert Path(paths.config_cache_path_str(str(state))).exists()

    def no_yaml(text: str, filename: str) -> config.Config:
        raise AssertionError("parsed again although the cache matches")

    monkeypatch.setattr(config, "parse_text", no_yaml)
    assert config.load_cached(project).get("report.pricing") == "prices.json"
    monkeypatch.undo()
    cfg_file.write_text("report:\n  pricing: [1, 2]\n")  # a changed file is parsed again
    with pytest.raises(ConfigError, match=r"report\.pricing"):
        config.load_cached(project)


def test_env_switch_turns_dedupe_off() -> None:
    cfg = config.env_overrides(config.Config(), {"CCSTATE_DEDUPE": "0"})
    assert cfg.get("dedupe.enabled") is False
    assert config.env_overrides(config.Config(), {}).get("dedupe.enabled") is True


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_mtime_ns, st.st_size]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("moments:\n  switch:\n    ask: maybe\n", "'moments.switch.ask' must be true or false"),
        ("moments:\n  resume:\n    min_usd: -1\n", "'moments.resume.min_usd' must be a price"),
        ("moments:\n  switch:\n    min_tokens: 2.5\n", "'moments.switch.min_tokens' must be"),
        ("moments:\n  statusline:\n    format: 3\n", "'moments.statusline.format' must be"),
    ],
)
def test_moments_keys_are_validated(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config.parse_text(text, ".ccstate.yaml")


def test_moments_keys_nest_and_unknown_ones_warn() -> None:
    cfg = config.parse_text("moments:\n  switch:\n    ask: true\n    nag: 1\n", "f")
    assert cfg.get("moments.switch.ask") is True and cfg.get("moments.switch.min_tokens") == 20_000
    assert cfg.warnings == ("f: unknown key 'moments.switch.nag' is ignored",)


def test_load_for_hook_without_writing_the_cache(tmp_path: Path) -> None:
    state = tmp_path / ".ccstate"
    paths.config_path(tmp_path).write_text("moments:\n  switch:\n    ask: true\n")
    assert config.load_for_hook(tmp_path, state, write_cache=False).get("moments.switch.ask")
    assert not state.exists()
