"""Live explorer for "Scheduling the disk": the scheduler race.

One random queue served by several drive policies side by side: the arm's
path over time, the distribution of response times, and who starves. Open it
in JupyterLab or Binder::

    from simcore.widgets.scheduling import scheduler_race
    scheduler_race()
"""

from __future__ import annotations

import ipywidgets as w
import numpy as np

from ..disk.access import Mechanism
from ..disk.profile_loader import load_disk
from ..experiments.seltzer import race
from ..sched import names
from ..viz.scheduling import race_cdf_traces, race_path_traces, style_race_cdf, style_race_paths
from .figure import FigureWidget, computing, fit_screen, set_traces

DISKS = ["fujitsu_eagle", "hpc2247", "ultrastar18es", "atlas10k", "cheetahx15"]


class SchedulerRace(w.VBox):
    """Pick policies, a load and a drive; watch the same requests served each way."""

    def __init__(self, policies=("fcfs", "sstf", "clook", "sptf", "wstf"),
                 disk: str = "fujitsu_eagle", rate_per_s: float = 40.0, n: int = 300):
        self.policies = w.SelectMultiple(options=names(), value=tuple(policies), rows=6,
                                         description="policies")
        self.disk = w.Dropdown(options=DISKS, value=disk, description="disk")
        self.rate = w.FloatSlider(value=rate_per_s, min=5, max=200, step=0.5,
                                  description="arrivals/s", continuous_update=False)
        self.n = w.IntSlider(value=n, min=50, max=800, step=50, description="requests",
                             continuous_update=False)
        self.seed = w.IntText(value=0, description="seed", layout=w.Layout(width="160px"))
        self.table = w.HTML()
        self.paths = FigureWidget()
        self.cdf = FigureWidget()
        for c in (self.policies, self.disk, self.rate, self.n, self.seed):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.policies, w.VBox([self.disk, self.rate, self.n,
                                                          self.seed])]),
                          w.HBox([self.paths, self.cdf]), self.table])
        self.busy = fit_screen(self)
        self._redraw()

    @computing
    def _redraw(self, *_):
        chosen = list(self.policies.value) or ["fcfs"]
        self.mech = Mechanism(load_disk(self.disk.value))
        self.results = race(chosen, disk=self.disk.value, n=self.n.value,
                            rate_per_s=self.rate.value, seed=self.seed.value)
        until = min(min(max(r.finish_ms for r in recs) for recs in self.results.values()),
                    1000.0)
        cyl = self.mech.layout.cylinder_of
        with self.paths.batch_update():
            set_traces(self.paths, race_path_traces(self.results, cyl, until))
            style_race_paths(self.paths, list(self.results), self.mech.layout.cylinders, until)
            self.paths.update_layout(title_text=f"the arm, first {until:.0f} ms", width=560)
        with self.cdf.batch_update():
            set_traces(self.cdf, race_cdf_traces(self.results))
            style_race_cdf(self.cdf)
            self.cdf.update_layout(title_text=f"{self.n.value} requests at {self.rate.value:g}/s, "
                                         f"{self.mech.profile.name}", width=480)
        rows = "".join(
            f"<tr><td>{name}</td><td>{np.mean([r.finish_ms - r.start_ms for r in recs]):.1f}"
            f"</td><td>{np.mean([r.response_ms for r in recs]):.0f}</td>"
            f"<td>{max(r.response_ms for r in recs):.0f}</td></tr>"
            for name, recs in self.results.items())
        self.table.value = ("<table><tr><th>policy</th><th>mean service (ms)</th>"
                            "<th>mean response (ms)</th><th>max response (ms)</th></tr>"
                            f"{rows}</table>")


def scheduler_race(**kwargs) -> SchedulerRace:
    """The scheduler race explorer (see :class:`SchedulerRace`)."""
    return SchedulerRace(**kwargs)
