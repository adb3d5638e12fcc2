"""The host interface: mode table, CPU cost of PIO and DMA, PRD tables, shared channel, CPU.

Sources: Gray 2000 Table 1 and §2.8 with the corrections in notes/000_gray_dma.md §2.7
(cycle times from the ATA standards), the SFF-8038i PRD rules (64 KiB, no 64 KiB crossing).
"""

from __future__ import annotations

import itertools

import pytest

import simcore
from simcore import host_io
from simcore.drive.interface import FREE, MODES, Port, mode, modes, prd_table


@pytest.mark.parametrize("n,ns,rate", [
    (0, 120, 16.667), (1, 80, 25.0), (2, 60, 33.333), (3, 45, 44.444), (4, 30, 66.667),
    (5, 20, 100.0), (6, 15, 133.333)])
def test_udma_rates_from_cycle_times(n, ns, rate):
    """Ultra DMA moves 2 bytes per half strobe cycle: rate = 2 B / t."""
    m = mode(f"udma{n}")
    assert m.transfer_ns == ns
    assert m.rate_mb_s == pytest.approx(rate, rel=1e-4)
    assert m.hdparm_x == 64 + n


@pytest.mark.parametrize("name,rate,seed", [
    ("pio0", 3.333, 3.3), ("pio1", 5.222, 5.2), ("pio2", 8.333, 8.3), ("pio3", 11.111, None),
    ("pio4", 16.667, 11.4), ("mwdma0", 4.167, 4.2), ("mwdma1", 13.333, 13.3),
    ("mwdma2", 16.667, 16.6), ("swdma2", 8.333, 8.3)])
def test_ata_modes_and_the_seeds_table_1(name, rate, seed):
    """Gray's Table 1 against 2 B / cycle: PIO 4 is 16.7 MB/s, not 11.4; PIO 3 is missing."""
    m = mode(name)
    assert m.rate_mb_s == pytest.approx(rate, rel=1e-3)
    assert m.seed_mb_s == seed
    if seed is not None and name != "pio4":
        assert m.rate_mb_s == pytest.approx(seed, abs=0.07)  # the seed truncates


def test_multiword_3_is_ultra_dma_2():
    """The thesis's 'DMA multiword 3' at 33.3 MB/s is UDMA mode 2 (notes §2.7)."""
    with pytest.raises(ValueError, match="udma2"):
        mode("mwdma3")
    assert mode("UDMA/33") is mode("udma2")
    assert mode("udma2").seed_mb_s == 33.3


def test_scsi_and_sata_rates():
    """Gray Table 2 (Ultra Wide = 40 MB/s) and SATA's 8b/10b (1.5 Gb/s carries 150 MB/s)."""
    assert mode("scsi-ultra-wide").rate_mb_s == pytest.approx(40)
    assert mode("scsi-ultra").rate_mb_s == pytest.approx(20)
    assert [m.rate_mb_s for m in modes("sata")] == pytest.approx([150, 300, 600])
    assert mode("pio4").hdparm_x == 12 and mode("mwdma2").hdparm_x == 34
    assert all(m.name == k for k, m in MODES.items())


def test_pio_cpu_time_per_sector():
    """PIO 4, 16-bit: one interrupt plus 256 words at (0.41 us + 120 ns) each = 143.68 us."""
    p = Port.of("pio4")
    assert p.pio_word_us(False) == pytest.approx(0.53)
    assert p.pio_sector_us(False) == pytest.approx(8 + 256 * 0.53)
    assert p.pio_block_us(16, False) == pytest.approx(8 + 16 * 256 * 0.53)
    # multiple-sector mode shares one interrupt among 16 sectors
    assert Port.of("pio4", multcount=16).pio_sector_us(False) == pytest.approx(8 / 16 + 135.68)
    # 32-bit I/O: one PCI access per two cable cycles
    assert Port.of("pio4", io32=True).pio_word_us(False) == pytest.approx((0.41 + 0.24) / 2)
    # PIO 0's 600 ns cycle costs more CPU per word
    assert Port.of("pio0").pio_word_us(False) == pytest.approx(0.41 + 0.6)


def test_interrupts_per_command():
    """ATA PIO raises one interrupt per DRQ block, DMA one per command (not 'N interrupts')."""
    assert Port.of("pio4").interrupts(128) == 128
    assert Port.of("pio4", multcount=16).interrupts(128) == 8
    assert Port.of("pio4", multcount=16).interrupts(130) == 9
    assert Port.of("udma2").interrupts(128) == 1


def test_dma_cpu_cost_is_set_up_plus_one_interrupt():
    p = Port.of("udma2", sg_bytes=4096)
    c = p.costs
    assert p.prd_entries(65536) == 16
    assert p.cpu_us(65536) == pytest.approx(c.command_us + c.dma_setup_us + 16 * c.prd_entry_us
                                            + c.irq_us)
    # PIO moves every word: about 70 times as much CPU for 64 KiB
    assert Port.of("pio4").cpu_us(65536) / p.cpu_us(65536) > 50


def test_prd_table_splits_at_64k_boundaries():
    """SFF-8038i: an entry moves at most 64 KiB and never crosses a 64 KiB boundary."""
    assert prd_table([(0x1F000, 0x20000)]) == [(0x1F000, 0x1000), (0x20000, 0x10000),
                                               (0x30000, 0xF000)]
    # contiguous pages merge, scattered pages do not
    assert prd_table([(0, 4096), (4096, 4096)]) == [(0, 8192)]
    assert len(prd_table([(0, 4096), (12288, 4096)])) == 2
    assert prd_table([(0, 4096), (4096, 4096)], merge=False) == [(0, 4096), (4096, 4096)]
    with pytest.raises(ValueError):
        prd_table([(0, 0)])


def test_port_validation():
    with pytest.raises(ValueError, match="multcount"):
        Port.of("pio4", multcount=0)
    with pytest.raises(ValueError, match="hold"):
        Port.of("pio4", hold="sometimes")
    with pytest.raises(ValueError, match="unknown transfer mode"):
        mode("pio9")


def test_read_hit_is_overhead_plus_bus_time():
    """Gray §2.10: a hit costs 'the time for the controller to detect the hit and transmit
    the data': read_hit_ms + bytes / bus rate (UDMA 2, no CPU cost charged)."""
    prof = simcore.load_disk("maxtor92048u8")
    wl = simcore.from_tuples([(0.0, "R", 10_000, 128), (500.0, "R", 10_000, 128)])
    res = simcore.run(prof, wl, cache=True, interface=Port.of("udma2", costs=FREE))
    hit = max(res.records, key=lambda r: r.id)
    assert hit.cache_hit
    bus = 128 * 512 / 33.333333e6 * 1000
    assert hit.finish_ms - hit.start_ms == pytest.approx(prof.overheads.read_hit_ms + bus,
                                                         rel=1e-6)


def test_pio_read_hit_is_paced_by_the_cpu():
    """Under PIO the same hit takes 128 sectors x 143.68 us of CPU plus the drive's DRQ
    turnarounds (127 x 2 us): the CPU, not the 16.7 MB/s cable, sets the pace."""
    prof = simcore.load_disk("maxtor92048u8")
    wl = simcore.from_tuples([(0.0, "R", 10_000, 128), (500.0, "R", 10_000, 128)])
    res = simcore.run(prof, wl, cache=True, interface="pio4")
    hit = max(res.records, key=lambda r: r.id)
    expect = prof.overheads.read_hit_ms + 128 * 0.14368 + 127 * 0.002
    assert hit.finish_ms - hit.start_ms == pytest.approx(expect, rel=1e-6)


def _two_drive_host(shared: bool, hold: str):
    port = Port.of("udma2", hold=hold)
    disk = "maxtor92048u8"
    host = host_io.Host([(disk, port, None, "ide0"),
                         (disk, port, None, "ide0" if shared else "ide1")], trace=True)
    recs = []

    def one(d, lba):
        rec = yield from host.io("R", lba, 256, drive=d)
        recs.append(rec)

    def body(env, cpu):
        return env.all_of([env.process(one(0, 5_000_000)), env.process(one(1, 30_000_000))])

    host.run(body)
    return host, sorted(recs, key=lambda r: r.finish_ms)


def _disjoint(intervals):
    iv = sorted(intervals)
    return all(a[1] <= b[0] + 1e-12 for a, b in itertools.pairwise(iv))


def test_two_drives_on_one_channel_serialise():
    """Master and slave on one IDE channel never transfer at once (Gray §2.8); with the
    Linux IDE driver's one command per channel they do not even overlap their seeks."""
    host, (a, b) = _two_drive_host(shared=True, hold="command")
    held = [(s, e) for _, kind, s, e in host.bus_trace if kind == "held"]
    assert len(held) == 2 and _disjoint(held)
    assert b.finish_ms >= a.finish_ms
    alone_a = a.finish_ms - a.start_ms
    assert b.finish_ms > alone_a + 5.0  # b waited for the whole of a's command
    # on two channels the same two commands overlap completely
    _, (_, d) = _two_drive_host(shared=False, hold="command")
    assert d.finish_ms < b.finish_ms - 5.0


def test_shared_bus_with_disconnect_serialises_only_the_data():
    """hold='transfer' (SCSI disconnect): seeks overlap, data bursts never do."""
    host, (_, b) = _two_drive_host(shared=True, hold="transfer")
    data = [(s, e) for _, kind, s, e in host.bus_trace if kind == "data"]
    assert len(data) == 2 and _disjoint(data)
    _, (_, b_cmd) = _two_drive_host(shared=True, hold="command")
    assert b.finish_ms < b_cmd.finish_ms


def test_cpu_accounting_with_a_bystander():
    """Every instant of the run is either someone's CPU time or the hog's (one CPU)."""
    r = host_io.bonnie_read(port="pio4", file_mib=2, hog=True)
    assert r.hog_ms is not None
    assert r.cpu_ms + r.hog_ms == pytest.approx(r.elapsed_ms, rel=1e-6)
    d = host_io.bonnie_read(port="udma2", file_mib=2, hog=True)
    assert d.hog_pct > 80 > 20 > r.hog_pct  # DMA leaves the CPU to others; PIO does not


def test_pio_uses_more_cpu_per_byte_in_slower_modes():
    """PIO 0's 600 ns cycle makes every word cost more: hdparm slower than in PIO 4."""
    slow = host_io.hdparm_t(port="pio0", size_mib=1)
    fast = host_io.hdparm_t(port="pio4", size_mib=1)
    assert slow.mib_s < fast.mib_s
    assert fast.mib_s < Port.of("pio4").pio_limit_mb_s() * 1e6 / 2**20 * 1.001
