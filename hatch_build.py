"""Builds the compiled playout (bots/_playout.c) when the package is installed, and shapes the SDK's
own distribution (sdk/pyproject.toml) from the project's.

The C rollout is an accelerator only: `bots.playout` falls back to its Python code, with the same
results, when the module is missing. So a machine without a C compiler still installs the
package, with a warning saying the search bots will be slower. An editable install
(`pip install -e .`) builds the module beside its source, where the checkout imports it from;
rerun the install after changing the C file (tests/bots/test_compiled_playout.py says when the
module is stale). A wheel carries it and is tagged for this platform.

The SDK's distribution (`pip install ./sdk`: the SDK and the example bots, none of the server's
packages) takes its version, the pins of the requirements it names, its scripts and the example
bots' entry points from the project's pyproject.toml (`SharedMetadata`), so those are written once;
its wheel holds the files of the packages it names (`CompiledPlayout`'s `packages` option), since
they sit beside its project file rather than under it.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import subprocess
import sysconfig
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

SOURCE = Path("bots", "_playout.c")
SHIPPED = frozenset({".py", ".pyi", ".json", ".c"})
"""The kinds of file a package named in the `packages` option ships (never a built `.so`)."""


def compile_command(source: Path, target: Path) -> list[str]:
    """The compiler call that builds `source` into the extension module `target`.

    `-ffp-contract=off` keeps every product and sum rounded as Python rounds it (no fused
    multiply-adds), so that the C and Python playouts break ties alike.
    """
    ldshared = sysconfig.get_config_var("LDSHARED")
    if not ldshared:
        raise RuntimeError("this Python does not say how to link an extension module")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    return [
        *shlex.split(ldshared),
        *shlex.split(sysconfig.get_config_var("CCSHARED") or ""),
        "-O2",
        "-ffp-contract=off",
        f"-I{sysconfig.get_paths()['include']}",
        f'-DSOURCE_SHA256="{digest}"',
        str(source),
        "-o",
        str(target),
    ]


def package_files(root: Path, package: str) -> dict[str, str]:
    """The files of the package directory `package` (relative to `root`) a wheel ships, each
    mapped to its path in the wheel (under the package's own name)."""
    directory = (root / package).resolve()
    return {
        str(path): f"{directory.name}/{path.relative_to(directory).as_posix()}"
        for path in sorted(directory.rglob("*"))
        if path.suffix in SHIPPED and "__pycache__" not in path.parts and path.name != "pyproject.toml"
    }


def requirement_name(requirement: str) -> str:
    """The normalised distribution name a requirement string starts with."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    if match is None:
        raise ValueError(f"not a requirement: {requirement!r}")
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def shared_metadata(project: dict[str, Any], requirements: list[str], scripts: list[str]) -> dict[str, Any]:
    """Of the project table `project`: its version, its requirements named in `requirements` (with
    their pins), its `scripts` and its example bots' entry points."""
    pinned = {requirement_name(r): r for r in project["dependencies"]}
    missing = sorted({requirement_name(r) for r in requirements} - pinned.keys())
    unknown = sorted(set(scripts) - project["scripts"].keys())
    if missing or unknown:
        raise ValueError(f"pyproject.toml declares no requirement {missing} or script {unknown}")
    return {
        "version": project["version"],
        "dependencies": [pinned[requirement_name(r)] for r in requirements],
        "scripts": {name: project["scripts"][name] for name in scripts},
        "entry-points": {"scout_arena.bots": project["entry-points"]["scout_arena.bots"]},
    }


class SharedMetadata(MetadataHookInterface):
    """Fills the SDK distribution's dynamic fields from the project file its `project` option names."""

    def update(self, metadata: dict[str, Any]) -> None:
        project = tomllib.loads(Path(self.root, self.config["project"]).read_text(encoding="utf-8"))["project"]
        metadata.update(shared_metadata(project, self.config["dependencies"], self.config["scripts"]))


class CompiledPlayout(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        if version != "editable":
            for package in self.config.get("packages", []):
                build_data["force_include"].update(package_files(root, package))
        source = root / self.config.get("playout", str(SOURCE))
        name = "_playout" + sysconfig.get_config_var("EXT_SUFFIX")
        if version == "editable":
            target = source.with_name(name)
        else:
            target = Path(tempfile.mkdtemp(prefix="scout-playout-"), name)
        try:
            subprocess.run(compile_command(source, target), check=True, capture_output=True, text=True)
        except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
            detail = getattr(exc, "stderr", None) or exc
            self.app.display_warning(
                f"bots/_playout.c was not compiled, so the search bots' rollouts run in Python, "
                f"several times slower, with the same results: {detail}"
            )
            return
        if version != "editable":
            build_data["force_include"][str(target)] = f"bots/{name}"
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
