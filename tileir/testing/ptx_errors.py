"""The one error the PTX simulator raises, with everything needed to find the bug."""

from __future__ import annotations

#: ``SimulationError.kind`` values.
UNSUPPORTED = "unsupported"  # valid PTX outside the simulator's subset
INVALID = "invalid"  # malformed PTX, operand type mismatch, bad arguments
OUT_OF_BOUNDS = "out-of-bounds"  # a global access outside every array
MISALIGNED = "misaligned"  # a global access not aligned to its size
UNINITIALIZED = "uninitialized"  # a register read in a thread that never wrote it
RACE = "race"  # two threads accessed the same byte, unordered, and at least one wrote it
ASYNC_RACE = "async-race"  # an access to bytes an asynchronous copy writes or reads, unordered
DEADLOCK = "deadlock"  # every remaining thread waits (a barrier, an mbarrier, a collective)
INTERNAL = "internal"  # a bug in the simulator itself


class SimulationError(Exception):
    """PTX the simulator rejects or a fault while running it.

    Raised for an instruction outside the supported subset, a global access out
    of bounds of every array or misaligned, a read of a register no thread wrote,
    two threads writing the same byte or one reading shared bytes another wrote
    without ordering, an access racing an asynchronous copy, a deadlock, and
    malformed PTX; ``kind`` says which
    (one of the constants above), so tests can tell a masking bug from an
    alignment bug.  ``str()`` gives the message with the PTX line, the instruction
    text, the first faulting thread and the address, where known.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = INVALID,
        line: int | None = None,
        instruction: str | None = None,
        thread: str | None = None,
        address: int | None = None,
    ) -> None:
        self.message = message
        self.kind = kind
        self.line = line
        self.instruction = instruction
        self.thread = thread
        self.address = address
        super().__init__(self._format())

    def _format(self) -> str:
        parts = []
        if self.line is not None:
            parts.append(f"PTX line {self.line}")
        if self.instruction is not None:
            parts.append(f"`{self.instruction}`")
        head = ": ".join(parts)
        message = f"{self.kind}: {self.message}" if self.kind != INVALID else self.message
        text = f"{head}: {message}" if head else message
        if self.thread is not None:
            text += f" [{self.thread}]"
        if self.address is not None:
            text += f" [address 0x{self.address:x}]"
        return text

    def located(self, line: int, instruction: str | None) -> SimulationError:
        """This error with the instruction's position filled in where it was missing."""
        if self.line is not None and self.instruction is not None:
            return self
        return SimulationError(
            self.message,
            kind=self.kind,
            line=self.line if self.line is not None else line,
            instruction=self.instruction if self.instruction is not None else instruction,
            thread=self.thread,
            address=self.address,
        )
