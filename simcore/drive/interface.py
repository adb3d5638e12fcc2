"""The host interface: transfer modes, what moving data costs the CPU, scatter/gather tables.

Seeds: Gray 2000 §2.6-2.9 (Table 1, IDE modes; Table 2, SCSI rates; PIO moves
every word through the CPU, DMA sets up a transfer and takes one interrupt,
PCI bus mastering) as extracted in ``notes/000_gray_dma.md`` §2.7-2.8, which
also lists the corrections used here.

Pure arithmetic and data: no SimPy. The shared channel and CPU that use these
numbers are :class:`simcore.channel.Channel` and :class:`simcore.cpu.Cpu`;
the drive (:mod:`simcore.drive`) charges them per request.

**Physics** (published, not fitted): the cycle time of every mode, hence its
burst rate ``width / cycle``; 256 16-bit words per 512-byte sector; one
interrupt per DRQ block in PIO (a sector, or ``multcount`` sectors in
multiple mode) and one per command in DMA; PRD entries of at most 64 KiB that
never cross a 64 KiB boundary.

**Calibrated** (:class:`HostCosts`, :class:`Port`'s ``drq_*_us``): the CPU
time of one I/O-port access beyond the cable cycle, of an interrupt, of
issuing a command and setting up DMA, the memory-copy rate and the file
system's CPU per KiB. They describe a 450 MHz Celeron on an Intel 440BX
(PIIX4 IDE) under Linux 2.2, the thesis's machine; they were fitted to the
thesis's Tables 6, 7 and 9 (see :data:`CELERON_450` for how).

**Errata in the seed's Table 1** (Gray took it from *The PC Guide*): PIO mode
4 is 16.7 MB/s, not 11.4 (120 ns x 2 bytes); PIO mode 3 (11.1 MB/s) is
missing; "DMA multiword 3" at 33.3 MB/s is not an ATA multiword mode at all:
33.3 MB/s is Ultra DMA mode 2 (UDMA/33, ATA-4), which is what the thesis's
PIIX4 ran. Each :class:`Mode` keeps the seed's number in ``seed_mb_s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

__all__ = ["CELERON_450", "FREE", "MODES", "PRD_MAX_BYTES", "HostCosts", "Mode", "Port", "mode",
           "modes", "prd_table"]

SECTOR_BYTES = 512
WORDS_PER_SECTOR = SECTOR_BYTES // 2
PRD_MAX_BYTES = 65536  # one PRD entry moves at most 64 KiB and never crosses a 64 KiB boundary


@dataclass(frozen=True)
class Mode:
    """One transfer mode of a bus.

    ``transfer_ns`` is the time of one transfer of ``width_bytes`` on the
    cable (for Ultra DMA, half a strobe cycle: data moves on both edges), so
    the burst rate is ``width_bytes / transfer_ns`` (MB/s = 10^6 B/s).
    ``cpu_moves_data`` is True for programmed I/O: the CPU reads or writes
    every word through the data register. ``hdparm_x`` is hdparm's ``-X``
    number for the mode (PIO n = 8+n, single-word DMA n = 16+n, multiword DMA
    n = 32+n, Ultra DMA n = 64+n).
    """

    name: str
    label: str
    family: str  # "pio", "swdma", "mwdma", "udma", "scsi", "sata"
    transfer_ns: float
    width_bytes: int
    standard: str
    cpu_moves_data: bool = False
    seed_mb_s: float | None = None
    hdparm_x: int | None = None
    note: str = ""

    @property
    def rate_mb_s(self) -> float:
        """Burst rate in MB/s (10^6 bytes per second)."""
        return self.width_bytes / self.transfer_ns * 1000.0

    @property
    def sector_ms(self) -> float:
        """Time one 512-byte sector occupies the cable, in ms."""
        return SECTOR_BYTES / self.width_bytes * self.transfer_ns * 1e-6

    @property
    def is_dma(self) -> bool:
        return not self.cpu_moves_data


def _ata() -> list[Mode]:
    modes = []
    pio = [(600, "ATA-1", 3.3), (383, "ATA-1", 5.2), (240, "ATA-1", 8.3), (180, "ATA-2", None),
           (120, "ATA-2", 11.4)]
    for n, (ns, std, seed) in enumerate(pio):
        note = "IORDY flow control" if n >= 3 else ""
        if n == 3:
            note += "; missing from the seed's Table 1"
        if n == 4:
            note += "; the seed's 11.4 MB/s is wrong (2 B / 120 ns = 16.7 MB/s)"
        modes.append(Mode(f"pio{n}", f"PIO mode {n}", "pio", ns, 2, std, True, seed, 8 + n, note))
    for n, (ns, seed) in enumerate([(960, 2.1), (480, 4.2), (240, 8.3)]):
        modes.append(Mode(f"swdma{n}", f"single-word DMA {n}", "swdma", ns, 2, "ATA-1", False,
                          seed, 16 + n, "dropped in ATA-3"))
    for n, (ns, std, seed) in enumerate([(480, "ATA-1", 4.2), (150, "ATA-2", 13.3),
                                         (120, "ATA-2", 16.6)]):
        modes.append(Mode(f"mwdma{n}", f"multiword DMA {n}", "mwdma", ns, 2, std, False, seed,
                          32 + n))
    udma = [(120, "ATA-4"), (80, "ATA-4"), (60, "ATA-4"), (45, "ATA-5"), (30, "ATA-5"),
            (20, "ATA-6"), (15, "ATA-7")]
    names = {2: "UDMA/33", 4: "UDMA/66", 5: "UDMA/100", 6: "UDMA/133"}
    for n, (ns, std) in enumerate(udma):
        note = names.get(n, "")
        if n == 2:
            note += "; the seed's 'DMA multiword 3' at 33.3 MB/s"
        if n > 2:
            note += ("; " if note else "") + "needs the 80-conductor cable"
        modes.append(Mode(f"udma{n}", f"Ultra DMA mode {n}", "udma", ns, 2, std, False,
                          33.3 if n == 2 else None, 64 + n, note))
    return modes


def _scsi() -> list[Mode]:
    # Gray Table 2 (Risley): 8-bit 5/10/20 MB/s, 16-bit 10/20/40 MB/s. Later generations [X].
    rows = [("scsi1", "SCSI-1 (narrow)", 5, 1, "SCSI-1", 5), ("fast", "Fast SCSI (narrow)", 10, 1,
            "SCSI-2", 10), ("ultra", "Ultra SCSI (narrow)", 20, 1, "SCSI-3", 20),
            ("wide", "Wide SCSI", 10, 2, "SCSI-2", 10), ("fast-wide", "Fast Wide SCSI", 20, 2,
            "SCSI-2", 20), ("ultra-wide", "Ultra Wide SCSI", 40, 2, "SCSI-3", 40),
            ("ultra2-wide", "Ultra2 Wide SCSI (LVD)", 80, 2, "SPI-2", None),
            ("ultra160", "Ultra160 SCSI", 160, 2, "SPI-3", None),
            ("ultra320", "Ultra320 SCSI", 320, 2, "SPI-4", None)]
    return [Mode(f"scsi-{n}" if n != "scsi1" else "scsi1", label, "scsi", width / rate * 1000.0,
                 width, std, False, seed) for n, label, rate, width, std, seed in rows]


def _sata() -> list[Mode]:
    # 8b/10b line code: 10 line bits per byte, so 1.5 Gb/s carries 150 MB/s.
    return [Mode(f"sata{i}", f"Serial ATA {g} Gb/s", "sata", 10.0 / g, 1, std, False, None, None,
                 "8b/10b: 10 line bits per byte")
            for i, (g, std) in enumerate([(1.5, "SATA 1.0"), (3.0, "SATA 2.0"),
                                          (6.0, "SATA 3.0")], start=1)]


MODES: dict[str, Mode] = {m.name: m for m in _ata() + _scsi() + _sata()}

_ALIASES = {"pio mode 4": "pio4", "udma/33": "udma2", "udma33": "udma2", "ata33": "udma2",
            "udma/66": "udma4", "udma/100": "udma5", "udma/133": "udma6",
            "ultra wide scsi": "scsi-ultra-wide", "ultra-wide scsi": "scsi-ultra-wide"}


def mode(name: str | Mode) -> Mode:
    """A mode by name (``pio4``, ``mwdma2``, ``udma2``, ``scsi-ultra-wide``, ``sata3``, ...)."""
    if isinstance(name, Mode):
        return name
    key = str(name).strip().lower().replace("_", "")
    key = _ALIASES.get(key, key).replace(" ", "")
    if key in MODES:
        return MODES[key]
    if key in ("mwdma3", "dmamultiword3", "multiword3"):
        raise ValueError(
            "'multiword DMA 3' is not an ATA mode: ATA defines multiword DMA 0-2 only. The seed's "
            "'DMA multiword 3' at 33.3 MB/s is Ultra DMA mode 2 (UDMA/33); use 'udma2'")
    raise ValueError(f"unknown transfer mode '{name}'; known: {', '.join(MODES)}")


def modes(family: str | None = None) -> list[Mode]:
    """All modes, or those of one family, in table order."""
    return [m for m in MODES.values() if family is None or m.family == family]


@dataclass(frozen=True)
class HostCosts:
    """CPU time of the host side of I/O, in microseconds (all calibrated, see the module doc).

    - ``io_read_us`` / ``io_write_us``: one access to the drive's data register
      (``inw``/``outw``) beyond the cable cycle itself: the PCI round trip
      through the chipset. A read waits for the data to come back; a write
      costs less.
    - ``irq_us``: taking one interrupt and running the driver's handler.
    - ``command_us``: building and issuing one command (the taskfile writes).
    - ``dma_setup_us`` and ``prd_entry_us``: programming the bus-master
      registers, and writing one scatter/gather (PRD) entry.
    - ``memcpy_mb_s``: copying between the kernel's buffers and the user's
      (``read``/``write``), in MB/s.
    - ``syscall_us``: entering and leaving one system call.
    - ``fs_read_us_per_kib`` / ``fs_write_us_per_kib``: the file system's and
      buffer cache's own CPU per KiB (block mapping, buffer heads; on writes
      also block allocation and dirty-buffer bookkeeping).
    """

    io_read_us: float = 0.41
    io_write_us: float = 0.226
    irq_us: float = 8.0
    command_us: float = 20.0
    dma_setup_us: float = 6.0
    prd_entry_us: float = 0.25
    memcpy_mb_s: float = 220.0
    syscall_us: float = 3.0
    fs_read_us_per_kib: float = 0.3
    fs_write_us_per_kib: float = 4.7

    def copy_us(self, nbytes: float) -> float:
        """CPU time to copy ``nbytes`` between kernel and user buffers."""
        return nbytes / self.memcpy_mb_s if self.memcpy_mb_s > 0 else 0.0


#: The thesis's machine: Celeron 450 MHz, Intel 440BX/PIIX4, PC100 SDRAM, Linux 2.2.12.
#: How each number was fitted (to the thesis's Tables 6, 7 and 9):
#:
#: - ``io_read_us``: 0.41 us beyond PIO 4's 120 ns cycle, so 0.53 us per word and about
#:   144 us of CPU per sector with its interrupt. No single value meets both PIO read
#:   figures of the thesis (hdparm's 3.48 MiB/s allows at most 281 us of CPU per KiB,
#:   Bonnie's 2797 KB/s at 95.4% CPU implies 341): this one leaves both within 20%.
#: - ``io_write_us`` with the drive's 36 us write turnaround (:class:`Port`): the PIO
#:   block write's 3627 KB/s at 73.86% CPU (Table 6).
#: - ``memcpy_mb_s``, the file-system and set-up costs: the DMA rows' 5.64 us (block read)
#:   and 10.8 us (block write) of CPU per KiB. A 220 MB/s copy is the order of magnitude
#:   expected of a 450 MHz Celeron with PC100 SDRAM, not a measurement.
CELERON_450 = HostCosts()

#: No CPU cost at all: an ideal interface (the fast path's assumption).
FREE = HostCosts(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Port:
    """How one drive is attached: its mode, the PIO options and the host's costs.

    - ``multcount``: sectors per DRQ block in PIO (``hdparm -m``); 1 means
      multiple-sector mode is off, so one interrupt per sector.
    - ``io32``: 32-bit I/O (``hdparm -c1``): one PCI access carries two
      16-bit cable cycles.
    - ``hold``: ``"command"`` holds the channel from command to completion
      (parallel ATA under Linux: one command per channel at a time, so two
      drives on one cable never overlap); ``"transfer"`` holds it only while
      data moves (SCSI disconnect/reconnect).
    - ``drq_read_us`` / ``drq_write_us``: the drive's own time between the
      host finishing one PIO block and the drive raising DRQ for the next
      (calibrated, drive firmware).
    - ``sg_bytes``: size of one piece of the host's buffer (a page, or a 1 KiB
      buffer head in Linux 2.2): one PRD entry each unless contiguous.
    """

    mode: Mode
    multcount: int = 1
    io32: bool = False
    costs: HostCosts = field(default_factory=lambda: CELERON_450)
    hold: str = "command"
    drq_read_us: float = 2.0
    drq_write_us: float = 36.0
    sg_bytes: int = 4096

    def __post_init__(self):
        if self.multcount < 1:
            raise ValueError(f"multcount must be at least 1 (got {self.multcount})")
        if self.hold not in ("command", "transfer"):
            raise ValueError(f"hold must be 'command' or 'transfer' (got {self.hold!r})")

    @classmethod
    def of(cls, name: str | Mode, **kw) -> Port:
        """A port in mode ``name`` with the thesis machine's costs (override any field)."""
        return cls(mode(name), **kw)

    @classmethod
    def ideal(cls, rate_mb_s: float) -> Port:
        """A bus that only takes time (``rate_mb_s``), costs no CPU and is never shared."""
        if rate_mb_s <= 0:
            return cls(Mode("ideal", "ideal interface", "ideal", 0.0, 2, "-"), costs=FREE,
                       hold="transfer", drq_read_us=0.0, drq_write_us=0.0)
        ns = 2 / rate_mb_s * 1000.0
        return cls(Mode("ideal", f"ideal {rate_mb_s:g} MB/s", "ideal", ns, 2, "-"), costs=FREE,
                   hold="transfer", drq_read_us=0.0, drq_write_us=0.0)

    def with_(self, **kw) -> Port:
        return replace(self, **kw)

    # -- programmed I/O -------------------------------------------------------
    @property
    def is_pio(self) -> bool:
        return self.mode.cpu_moves_data

    def pio_word_us(self, is_write: bool) -> float:
        """CPU time per 16-bit word moved through the data register."""
        cycle = self.mode.transfer_ns / 1000.0
        host = self.costs.io_write_us if is_write else self.costs.io_read_us
        if self.io32:  # one PCI access, two cable cycles, four bytes
            return (host + 2 * cycle) / 2
        return host + cycle

    def pio_block_us(self, sectors: int, is_write: bool) -> float:
        """CPU time of one interrupt that moves ``sectors`` sectors (one DRQ block)."""
        return self.costs.irq_us + sectors * WORDS_PER_SECTOR * self.pio_word_us(is_write)

    def pio_sector_us(self, is_write: bool) -> float:
        """CPU time per sector in PIO, the interrupt shared by the block's sectors."""
        return self.pio_block_us(self.multcount, is_write) / self.multcount

    def interrupts(self, sectors: int) -> int:
        """Interrupts one command of ``sectors`` sectors raises."""
        if self.is_pio:
            return math.ceil(sectors / self.multcount)
        return 1

    # -- DMA ------------------------------------------------------------------
    def prd_entries(self, nbytes: int) -> int:
        """PRD entries for a host buffer of ``nbytes`` in pieces of ``sg_bytes``."""
        return len(prd_table([(i * self.sg_bytes, min(self.sg_bytes, nbytes - i * self.sg_bytes))
                              for i in range(math.ceil(nbytes / self.sg_bytes))],
                             merge=False))

    def setup_us(self, nbytes: int) -> float:
        """CPU time to issue one command of ``nbytes`` (plus the DMA set-up under DMA)."""
        c = self.costs
        if self.is_pio:
            return c.command_us
        if c.dma_setup_us == 0 and c.prd_entry_us == 0:
            return c.command_us
        return c.command_us + c.dma_setup_us + self.prd_entries(nbytes) * c.prd_entry_us

    def completion_us(self) -> float:
        """CPU time of the completion interrupt of a DMA command (PIO pays per block)."""
        return 0.0 if self.is_pio else self.costs.irq_us

    def cpu_us(self, nbytes: int, is_write: bool = False) -> float:
        """All interface CPU time for one command of ``nbytes`` (no copies, no file system)."""
        sectors = math.ceil(nbytes / SECTOR_BYTES)
        if self.is_pio:
            full, rest = divmod(sectors, self.multcount)
            cpu = full * self.pio_block_us(self.multcount, is_write)
            if rest:
                cpu += self.pio_block_us(rest, is_write)
            return self.setup_us(nbytes) + cpu
        return self.setup_us(nbytes) + self.completion_us()

    def pio_limit_mb_s(self, is_write: bool = False) -> float:
        """The most PIO can move when the CPU does nothing else (MB/s)."""
        drq = self.drq_write_us if is_write else self.drq_read_us
        return SECTOR_BYTES / (self.pio_sector_us(is_write) + drq / self.multcount)

    def limit_mb_s(self, is_write: bool = False) -> float:
        """The interface's own ceiling: the CPU's for PIO, the burst rate for DMA."""
        return self.pio_limit_mb_s(is_write) if self.is_pio else self.mode.rate_mb_s


def prd_table(buffers: list[tuple[int, int]], merge: bool = True) -> list[tuple[int, int]]:
    """Scatter/gather list for bus-master IDE (SFF-8038i): ``[(address, bytes), ...]``.

    Each entry moves at most 64 KiB and never crosses a 64 KiB boundary of
    physical memory; physically contiguous pieces are merged when ``merge``.
    """
    out: list[tuple[int, int]] = []
    for addr, length in buffers:
        if length <= 0:
            raise ValueError(f"a buffer piece must have a positive length (got {length})")
        if merge and out and out[-1][0] + out[-1][1] == addr:
            addr, length = out[-1][0], out[-1][1] + length
            out.pop()
        while length:
            room = PRD_MAX_BYTES - addr % PRD_MAX_BYTES
            n = min(length, room)
            out.append((addr, n))
            addr += n
            length -= n
    return out
