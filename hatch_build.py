"""Builds the compiled playout (bots/_playout.c) when the package is installed.

The C rollout is an accelerator only: `bots.playout` falls back to its Python code, with the same
results, when the module is missing. So a machine without a C compiler still installs the
package, with a warning saying the search bots will be slower. An editable install
(`pip install -e .`) builds the module beside its source, where the checkout imports it from;
rerun the install after changing the C file (tests/bots/test_compiled_playout.py says when the
module is stale). A wheel carries it and is tagged for this platform.
"""

from __future__ import annotations

import hashlib
import shlex
import subprocess
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("bots", "_playout.c")


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


class CompiledPlayout(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        source = Path(self.root, SOURCE)
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
