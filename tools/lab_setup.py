"""Apply the repository's JupyterLab settings to the environment that runs JupyterLab.

Run by ``postBuild`` on Binder and by ``make lab``. It copies
``jupyter-config/lab/settings/overrides.d/*.json`` into
``{sys.prefix}/share/jupyter/lab/settings/overrides.d/`` (JupyterLab's per-environment
defaults, so a chapter's ``.md`` opens as a jupytext notebook) and writes
``ServerApp.extra_static_paths`` into ``{sys.prefix}/etc/jupyter/jupyter_server_config.json``,
which serves plotly's widget
bundle as a static file for :mod:`simcore.widgets.figure`. Idempotent; ``--prefix`` targets
another environment (the tests use a throwaway one).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "jupyter-config" / "lab" / "settings" / "overrides.d"


def plotly_static_dir() -> Path:
    """plotly's ``package_data`` (it holds ``widgetbundle.js``), found without importing plotly."""
    import importlib.util

    spec = importlib.util.find_spec("plotly")
    if spec is None or spec.origin is None:
        raise SystemExit("lab_setup: plotly is not installed in this environment")
    path = Path(spec.origin).parent / "package_data"
    if not (path / "widgetbundle.js").exists():
        raise SystemExit(f"lab_setup: {path / 'widgetbundle.js'} is missing (plotly 6 or newer?)")
    return path


def apply(prefix: Path) -> list[Path]:
    """Write the settings under ``prefix``; return the files written."""
    written = []
    dest = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
    dest.mkdir(parents=True, exist_ok=True)
    for src in sorted(SETTINGS.glob("*.json")):
        json.loads(src.read_text())  # a broken file fails here, naming itself
        shutil.copyfile(src, dest / src.name)
        written.append(dest / src.name)
    # jupyter_server reads only extension switches from jupyter_server_config.d/, so this
    # setting goes into the environment's jupyter_server_config.json, merged with what is there
    server = prefix / "etc" / "jupyter" / "jupyter_server_config.json"
    server.parent.mkdir(parents=True, exist_ok=True)
    config = json.loads(server.read_text()) if server.exists() else {}
    paths = config.setdefault("ServerApp", {}).setdefault("extra_static_paths", [])
    static = str(plotly_static_dir())
    paths[:] = [p for p in paths if not p.endswith("/plotly/package_data")] + [static]
    server.write_text(json.dumps(config, indent=2) + "\n")
    written.append(server)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", type=Path, default=Path(sys.prefix),
                    help="environment to configure (default: this Python's, %(default)s)")
    args = ap.parse_args(argv)
    for path in apply(args.prefix):
        print(f"lab_setup: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
