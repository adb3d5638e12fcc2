"""The disk: profiles and their loader, layout (zones, LBA map, skews, spares), mechanics (seek
curves, rotation) and one request's access (positioning and media transfer)."""
