"""Loading a bot from a command-line argument (sdk.loading)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots import GreedyBot, RandomBot
from sdk.loading import BotLoadError, load_bot

HEADER = "from sdk import Bot\n\n"
CLASS = "class {name}(Bot):\n    def choose(self, obs):\n        return obs.legal_actions[0]\n\n"


def write(tmp_path: Path, source: str, name: str = "mybot.py") -> str:
    path = tmp_path / name
    path.write_text(source)
    return str(path)


def test_a_file_with_one_bot_subclass_gives_an_instance_of_it(tmp_path: Path) -> None:
    bot = load_bot(write(tmp_path, HEADER + CLASS.format(name="Mine")))
    assert type(bot).__name__ == "Mine" and bot.name == "Mine"


def test_a_bot_attribute_wins_over_the_classes(tmp_path: Path) -> None:
    source = HEADER + CLASS.format(name="A") + CLASS.format(name="B") + "bot = B()\nbot.name = 'chosen'\n"
    assert load_bot(write(tmp_path, source)).name == "chosen"


def test_a_class_named_after_the_colon_is_chosen_among_several(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + CLASS.format(name="A") + CLASS.format(name="B"))
    assert type(load_bot(f"{path}:B")).__name__ == "B"


def test_several_candidates_are_named_in_the_error(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + CLASS.format(name="A") + CLASS.format(name="B"))
    with pytest.raises(BotLoadError, match=r"several Bot subclasses \(A, B\): pick one as .*mybot.py:NAME"):
        load_bot(path)


def test_a_file_without_a_bot_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BotLoadError, match="defines no Bot subclass"):
        load_bot(write(tmp_path, HEADER + "x = 1\n"))


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(BotLoadError, match=r"^no such file: .*absent.py$"):
        load_bot(str(tmp_path / "absent.py"))


def test_a_syntax_error_gives_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + "class Broken(Bot)\n    pass\n")
    with pytest.raises(BotLoadError, match=r"mybot.py:3: syntax error: "):
        load_bot(path)


def test_an_import_failure_inside_the_bot_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "import no_such_dependency_xyz\n" + HEADER + CLASS.format(name="A"))
    with pytest.raises(BotLoadError, match=r"importing .*mybot.py failed: ModuleNotFoundError: .*no_such_dep"):
        load_bot(path)


def test_a_bot_may_import_its_own_helper_modules(tmp_path: Path) -> None:
    write(tmp_path, "def pick(actions):\n    return actions[-1]\n", name="helper_for_scout_test.py")
    source = HEADER + "from helper_for_scout_test import pick\n\n" + CLASS.format(name="Helped")
    assert type(load_bot(write(tmp_path, source))).__name__ == "Helped"


def test_a_bot_missing_choose_says_so(tmp_path: Path) -> None:
    with pytest.raises(BotLoadError, match=r"cannot create Lazy\(\): TypeError: .*abstract"):
        load_bot(write(tmp_path, HEADER + "class Lazy(Bot):\n    pass\n"))


def test_a_bot_that_needs_arguments_is_refused(tmp_path: Path) -> None:
    source = HEADER + "class Needy(Bot):\n    def __init__(self, depth):\n        super().__init__()\n"
    source += "    def choose(self, obs):\n        return obs.legal_actions[0]\n"
    with pytest.raises(BotLoadError, match=r"cannot create Needy\(\): TypeError"):
        load_bot(write(tmp_path, source))


def test_modules_load_with_or_without_a_class_name() -> None:
    assert type(load_bot("bots.greedy:GreedyBot")) is GreedyBot
    assert type(load_bot("bots.random_bot")) is RandomBot


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_package_xyz.bot", "no module named 'no_such_package_xyz.bot'"),
        ("bots.greedy:Nope", "bots.greedy has no attribute 'Nope'"),
        ("bots.greedy:hand_value", "bots.greedy:hand_value is _lru_cache_wrapper, not a Bot subclass or instance"),
        ("not a module!", "is neither a .py file nor a module name"),
    ],
)
def test_bad_module_specs_are_explained(spec: str, message: str) -> None:
    with pytest.raises(BotLoadError) as caught:
        load_bot(spec)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
