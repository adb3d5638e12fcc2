"""Small hand-made disks for tests (built from dicts, validated like any profile)."""

from __future__ import annotations

from simcore.disk.profile_loader import profile_from_dict


def small_disk(zones, surfaces=2, mapping="conventional", rpm=6000.0, head_switch_ms=0.5,
               seek=None, **firmware):
    data = {
        "id": "small", "name": "small test disk",
        "geometry": {"rpm": rpm, "surfaces": surfaces, "mapping": mapping, "zones": zones},
        "mechanics": {"head_switch_ms": head_switch_ms,
                      "seek": seek or {"model": "linear", "base_ms": 1.0, "per_cylinder_ms": 0.1}},
    }
    if firmware:
        data["firmware"] = firmware
    return profile_from_dict(data, "<test>")


def figure2_disk():
    """Schindler et al. 2002, Figure 2: 200 sectors per track, two surfaces, track skew 20,
    and a defect slipped between LBNs 580 and 581."""
    return small_disk([{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 200,
                        "track_skew": 20, "cylinder_skew": 20, "slips": [581], "spares": 1}])
