"""The book build's parallel execution of chapters (tools/book_exec.py), on a two-page book."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import book_exec  # noqa: E402

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# {title}

```{{code-cell}} ipython3
{code}
```
"""


def _book(tmp_path: Path, pages: dict[str, str]) -> Path:
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n"
        + "".join(f"  - file: {name}\n" for name in pages if name != "intro"))
    for name, code in pages.items():
        (tmp_path / f"{name}.md").write_text(HEADER.format(title=name, code=code))
    (tmp_path / "plain.md").write_text("# not a notebook\n")
    return tmp_path


def test_chapters_are_the_tocs_notebooks(tmp_path):
    root = _book(tmp_path, {"intro": "1", "a": "2"})
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                   "  - file: a\n  - file: plain\n")
    assert book_exec.chapters(root) == [root / "intro.md", root / "a.md"]


def test_every_chapter_runs_into_the_cache_and_a_failure_names_its_cell(tmp_path):
    root = _book(tmp_path, {"intro": "import os\nfrom myst_nb import glue\n"
                                     "glue('hidden', 1, display=False)\nprint(os.environ['MARK'])",
                            "bad": "x = 1\nraise ValueError('chapter broke')"})
    cache = root / "_build" / ".jupyter_cache"
    cache.mkdir(parents=True)
    (cache / "stale").write_text("from an earlier build")
    config = {"execute": {"timeout": 60}, "parse": {"myst_enable_extensions": ["colon_fence"]}}
    failed = book_exec.prepare(root, cache, config, {"MARK": "kernel-env"}, jobs=2,
                               log=lambda line: None)
    assert not (cache / "stale").exists()
    assert [Path(r.path).name for r in failed] == ["bad.md"]
    assert "raise ValueError('chapter broke')" in failed[0].error
    assert "CellExecutionError" in failed[0].error
    times = json.loads((root / "_build" / "exec_times.json").read_text())
    assert set(times) == {"intro", "bad"} and times["intro"]["runtime"] > 0

    from jupyter_cache import get_cache
    from myst_nb.core.read import read_myst_markdown_notebook

    # myst-nb, reading the page itself, finds this build's outputs (the kernel saw env)
    nb = read_myst_markdown_notebook((root / "intro.md").read_text())
    merged = get_cache(str(cache)).merge_match_into_notebook(nb)[1]
    outputs = merged.cells[-1].outputs
    assert [o.get("text") for o in outputs] == [None, "kernel-env\n"]  # the glue, the print
    assert len(get_cache(str(cache)).list_cache_records()) == 1

    # the page's saved notebook (the .ipynb download), bare in myst-nb's cache mode, gets them
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from types import SimpleNamespace

    import disklab_sphinx
    import nbformat

    out = root / "_build" / "jupyter_execute"
    out.mkdir()
    nbformat.write(nb, str(out / "intro.ipynb"))
    app = SimpleNamespace(config=SimpleNamespace(disklab_exec_times="times"), env=SimpleNamespace(
        docname="intro", mystnb_config=SimpleNamespace(
            execution_mode="cache", output_folder=str(out), execution_cache_path=str(cache))))
    disklab_sphinx._save_executed(app, None)
    saved = nbformat.read(str(out / "intro.ipynb"), as_version=4)
    assert [o.get("text") for o in saved.cells[-1].outputs] == ["kernel-env\n"]  # no glue
    assert saved.metadata.language_info.name == "python"
