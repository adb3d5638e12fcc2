"""Measuring real disks safely: probe devices, run fio and hdparm, parse and record results."""

__all__: list[str] = []
