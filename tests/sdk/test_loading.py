"""Loading a bot from a command-line argument (sdk.loading)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import sdk.loading
import sdk.local
from bots import GreedyBot, RandomBot
from sdk.loading import BotLoadError, bot_maker, load_bot, parse_value, split_bot_list, split_bot_spec

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
        ("bots.greedy:hand_value", "bots.greedy:hand_value is function, not a Bot subclass or instance"),
        ("not a module!", "is neither a .py file nor a module name"),
    ],
)
def test_bad_module_specs_are_explained(spec: str, message: str) -> None:
    with pytest.raises(BotLoadError) as caught:
        load_bot(spec)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


OPTIONED = (
    HEADER
    + """
class Tunable(Bot):
    def __init__(self, depth: int = 1, fast: bool = False, label: str = "", seed: int | None = None) -> None:
        super().__init__()
        self.depth, self.fast, self.label, self.seed = depth, fast, label, seed

    def choose(self, obs):
        return obs.legal_actions[0]
"""
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("-12", -12),
        ("0.5", 0.5),
        ("1e-3", 0.001),
        (".25", 0.25),
        ("true", True),
        ("FALSE", False),
        ("none", None),
        ("fast", "fast"),
        ("'3'", "3"),
        ('"true"', "true"),
        ("", ""),
        ("1.2.3", "1.2.3"),
    ],
)
def test_option_values_are_read_as_documented(text: str, value: object) -> None:
    assert parse_value(text) == value and type(parse_value(text)) is type(value)


def test_options_in_the_spec_and_apart_reach_the_constructor(tmp_path: Path) -> None:
    path = write(tmp_path, OPTIONED)
    bot = load_bot(f"{path}(depth=3,fast=true)", {"label": "x"})
    assert (bot.depth, bot.fast, bot.label) == (3, True, "x")  # type: ignore[attr-defined]
    assert load_bot(f"{path}:Tunable(depth=2)").depth == 2  # type: ignore[attr-defined]


def test_a_seed_is_given_to_a_constructor_that_takes_one_unless_an_option_sets_it(tmp_path: Path) -> None:
    path = write(tmp_path, OPTIONED)
    assert load_bot(path, seed=7).seed == 7  # type: ignore[attr-defined]
    assert load_bot(f"{path}(seed=1)", seed=7).seed == 1  # type: ignore[attr-defined]
    assert load_bot(write(tmp_path, HEADER + CLASS.format(name="Plain"), "plain.py"), seed=7).name == "Plain"


@pytest.mark.parametrize(
    ("spec", "args", "message"),
    [
        ("{path}(dpth=3)", {}, "Tunable() takes no option 'dpth' (it takes depth, fast, label, seed)"),
        ("{path}", {"speed": 1}, "Tunable() takes no option 'speed' (it takes depth, fast, label, seed)"),
        ("{path}(depth)", {}, "bot option 'depth' is not KEY=VALUE with KEY a Python name (e.g. depth=3)"),
        ("{path}(depth=1,depth=2)", {}, "bot option 'depth' is given twice for "),
        ("{path}(depth=1)", {"depth": 2}, "bot option 'depth' is given twice for "),
        ("bots.greedy(depth=1)", {}, "GreedyBot() takes no option 'depth' (it takes none)"),
    ],
)
def test_a_wrong_option_is_one_clear_line(tmp_path: Path, spec: str, args: dict[str, object], message: str) -> None:
    with pytest.raises(BotLoadError) as caught:
        load_bot(spec.format(path=write(tmp_path, OPTIONED)), args)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_options_for_a_ready_instance_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + CLASS.format(name="One") + "bot = One()\n")
    with pytest.raises(BotLoadError, match="is a ready Bot instance, which takes no options; name its class as"):
        load_bot(path, {"depth": 1})


def test_a_constructor_that_refuses_a_value_is_reported_with_the_options(tmp_path: Path) -> None:
    source = OPTIONED + "\nclass Picky(Tunable):\n    def __init__(self, depth=1):\n"
    source += (
        "        if depth > 5:\n            raise ValueError('depth is at most 5')\n        super().__init__(depth)\n"
    )
    with pytest.raises(BotLoadError, match=r"^cannot create Picky\(depth=9\): ValueError: depth is at most 5$"):
        load_bot(f"{write(tmp_path, source)}:Picky(depth=9)")


def test_a_maker_runs_the_file_once_and_makes_a_new_bot_each_time(tmp_path: Path) -> None:
    counter = tmp_path / "runs.txt"
    path = write(
        tmp_path,
        f"from pathlib import Path\np = Path({str(counter)!r})\n"
        "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n" + OPTIONED,
    )
    make = bot_maker(path, {"depth": 4})
    first, second = make(1), make(2)
    assert first is not second and (first.seed, second.seed) == (1, 2)  # type: ignore[attr-defined]
    assert first.depth == second.depth == 4  # type: ignore[attr-defined]
    assert counter.read_text() == "x"


def test_a_list_of_bots_splits_on_commas_outside_options() -> None:
    assert split_bot_list(" greedy ,my_bot.py(depth=3,fast=true),, random") == [
        "greedy",
        "my_bot.py(depth=3,fast=true)",
        "random",
    ]
    assert split_bot_spec("dir/my(bot).py") == ("dir/my(bot).py", {})
    assert split_bot_spec("dir(1)/my(bot).py(depth=1)") == ("dir(1)/my(bot).py", {"depth": 1})
    assert split_bot_spec("pkg.mod:Cls(a=1, b = x)") == ("pkg.mod:Cls", {"a": 1, "b": "x"})


def test_the_documented_examples_hold() -> None:
    assert doctest.testmod(sdk.loading).failed == 0
    assert doctest.testmod(sdk.local).failed == 0
