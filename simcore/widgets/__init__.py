"""Live explorers (ipywidgets + plotly FigureWidget), one module per chapter.

Import the module you need (``from simcore.widgets.disk import anatomy_explorer``);
nothing here is imported by the simulator itself.
"""
