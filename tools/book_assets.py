"""Copy plotly.js and MathJax from installed packages into the book's static files.

The built book must render figures with no network, so the exact plotly.js that
matches the installed plotly (and is never committed) is shipped beside the pages.
"""

import shutil
import sys
from importlib import resources
from pathlib import Path


def main(dest: str) -> None:
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    source = resources.files("plotly") / "package_data" / "plotly.min.js"
    with resources.as_file(source) as path:
        shutil.copyfile(path, target / "plotly.min.js")
    print(f"plotly.min.js -> {target / 'plotly.min.js'}")
    # MathJax 2.7 as shipped inside jupyter_server_mathjax: formulas render with no CDN.
    mathjax = resources.files("jupyter_server_mathjax") / "static"
    with resources.as_file(mathjax) as path:
        shutil.copytree(path, target / "mathjax", dirs_exist_ok=True)
    print(f"MathJax -> {target / 'mathjax'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "book/_static")
