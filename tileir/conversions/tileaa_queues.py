"""Queue-to-pipeline lowering (seed 001 "Queue-to-Pipeline Lowering", seed 004 "Plugin
and Queue Contract"), the structural half of `convert-tileaa-to-tileas`.

* `nv_tileaa.execute` -> `nv_tileas.async.pipeline.agent_switch`: the agent bodies move
  over unchanged, their `nv_tileaa.yield` becomes `async.pipeline.yield`; register
  budgets become `max_regs`, the agents per group `num_agents_per_group`, and the group
  ids are kept as the discardable `nv_tileas.agent_groups`.  Before that, the plugin
  resources are checked against the target (`ResourceModel`): a budget `setmaxnreg`
  cannot grant, a register file, shared or tensor memory, or named-barrier count the
  CTA does not have is a diagnostic, never a silent clamp.
* `nv_tileaa.queue.create` -> `create_pipeline` (same stage storage, stage count and
  group ids) plus one `create_iterator` per side.
* `nv_tileaa.queue.put` -> `produce_one` whose region acquires the stage, runs the put
  body in `producer_write`, commits, and yields the written payload; the producer token
  and iterator (`inc_iter`) advance.
* `nv_tileaa.queue.get` -> `consume_one` (region: `consumer_wait`, `consumer_read` with
  the get body, `consumer_release`) when its results are not used outside; a get whose
  results live on is the same handshake written out (`consumer_wait`, `consumer_read`,
  `consumer_release`), so that `consumer_read`'s results replace the get's.  Both carry
  the get's `consumer_idx`.
* Tokens and iterators are threaded in program order; through `scf.for` and `scf.if` they
  become loop-carried values and branch results of pipeline types, so the iterator type
  travels through scf (seed 001 "Iterator Propagation").
* The queue ops are erased once nothing uses them.

A put or get that cannot be mapped to a pipeline slot fails loudly (seed 004: "silent
fallback to unordered memory traffic loses the main correctness property"): one in an
agent of another group than the queue's producer/consumer group, a `consumer_idx`
outside the consumer group, a queue used by anything but put and get, or a put/get
inside a region the threading cannot carry state through.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tileir.diagnostics import error_at
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.types import (
    PipelineConsumerTokenType,
    PipelineIteratorType,
    PipelineProducerTokenType,
)
from tileir.targets import ARCHS, KIB, REGISTERS_PER_SM, compute_capability

AGENT_GROUPS_ATTR = "nv_tileas.agent_groups"


# ---------------------------------------------------------------------------
# Resources (seed 004 "Plugin and Queue Contract").
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceModel:
    """What one CTA of the target can give an `execute`."""

    shared_memory_bytes: int
    tensor_memory_bytes: int
    #: Named barriers usable by agents: 16 per CTA, barrier 0 is `__syncthreads`.
    named_barriers: int = 15
    #: 64K 32-bit registers per SM, one warpgroup (128 threads) per agent.
    register_file: int = REGISTERS_PER_SM
    threads_per_agent: int = 128
    #: `setmaxnreg` grants 24 to 256 registers in steps of 8.
    min_registers: int = 24
    max_registers: int = 256

    @staticmethod
    def for_arch(arch: str) -> ResourceModel:
        """The CTA's opt-in shared memory (`targets.py`) and, on sm_100a/sm_103a, the
        256 KiB of tensor memory (128 lanes x 512 columns x 4 bytes)."""
        tensor_memory = 256 * KIB if compute_capability(arch) in (100, 103) else 0
        return ResourceModel(ARCHS[arch].shared_per_block, tensor_memory)

    def check(self, op: aa.ExecuteOp, arch: str) -> None:
        for i, budget in enumerate(op.budgets):
            if budget == aa.INHERIT_REGISTERS:
                continue
            if not self.min_registers <= budget <= self.max_registers or budget % 8:
                raise error_at(
                    op,
                    f"agent {i} asks for {budget} registers per thread; setmaxnreg grants "
                    f"{self.min_registers} to {self.max_registers} in steps of 8",
                )
        total = sum(b for b in op.budgets if b != aa.INHERIT_REGISTERS) * self.threads_per_agent
        if total > self.register_file:
            raise error_at(
                op,
                f"the agents' register budgets {op.budgets} need {total} registers "
                f"({self.threads_per_agent} threads each); the register file has "
                f"{self.register_file}: lower the budgets, or run fewer agents",
            )
        for key, available, unit in (
            ("named_barriers", self.named_barriers, "named barriers"),
            ("shared_memory_bytes", self.shared_memory_bytes, "bytes of shared memory"),
            ("tensor_memory_bytes", self.tensor_memory_bytes, "bytes of tensor memory"),
        ):
            wanted = op.resource(key)
            if wanted > available:
                raise error_at(
                    op,
                    f"{key} = {wanted} exceeds the {available} {unit} a CTA has on {arch}: "
                    "ask for less, or compile for a target with more",
                )


# ---------------------------------------------------------------------------
# Pipelines.
# ---------------------------------------------------------------------------


@dataclass
class Pipeline:
    queue: aa.QueueCreateOp
    producer_token: SSAValue
    consumer_token: SSAValue
    producer_iterator: SSAValue
    consumer_iterator: SSAValue
    iterator_type: PipelineIteratorType


#: (queue, "put" | "get") -> (token, iterator): the live pipeline state of one side.
StateKey = tuple[aa.QueueCreateOp, str]


@dataclass
class QueueLowering:
    pipelines: dict[aa.QueueCreateOp, Pipeline] = field(
        default_factory=dict[aa.QueueCreateOp, Pipeline]
    )

    # -- queue.create ----------------------------------------------------------
    def create(self, op: aa.QueueCreateOp) -> None:
        block = op.parent_block()
        assert block is not None
        pipe = tas.CreatePipelineOp(op.buffer, op.stages, op.producer, op.consumer)
        payload = op.payload
        iterator_type = PipelineIteratorType(payload[0], count=op.stages)
        prod_it = tas.CreateIteratorOp(pipe.producer_token, iterator_type)
        cons_it = tas.CreateIteratorOp(pipe.consumer_token, iterator_type)
        for new in (pipe, prod_it, cons_it):
            new.location = op.location
            block.insert_op_before(new, op)
        self.pipelines[op] = Pipeline(
            op,
            pipe.producer_token,
            pipe.consumer_token,
            prod_it.result,
            cons_it.result,
            iterator_type,
        )
        for use in list(op.queue.uses):
            if not isinstance(use.operation, aa.QueuePutOp | aa.QueueGetOp):
                raise error_at(
                    use.operation,
                    "uses a queue, which only nv_tileaa.queue.put and queue.get can; it cannot "
                    "map to a pipeline slot",
                )

    def initial_state(self, key: StateKey) -> tuple[SSAValue, SSAValue]:
        pipe = self.pipelines[key[0]]
        if key[1] == "put":
            return pipe.producer_token, pipe.producer_iterator
        return pipe.consumer_token, pipe.consumer_iterator

    # -- threading -------------------------------------------------------------
    def keys_in(self, op: Operation) -> list[StateKey]:
        keys: list[StateKey] = []
        for inner in op.walk():
            if isinstance(inner, aa.QueuePutOp | aa.QueueGetOp):
                queue = inner.queue.owner
                if not isinstance(queue, aa.QueueCreateOp):
                    raise error_at(
                        inner, "takes a queue not made by nv_tileaa.queue.create in this function"
                    )
                key: StateKey = (queue, "put" if isinstance(inner, aa.QueuePutOp) else "get")
                if key not in keys:
                    keys.append(key)
        return keys

    def thread(self, block: Block, state: dict[StateKey, tuple[SSAValue, SSAValue]]) -> None:
        """Lower the puts and gets of `block` in program order, updating `state`."""
        for op in list(block.ops):
            if isinstance(op, aa.QueuePutOp):
                self.put(op, state)
            elif isinstance(op, aa.QueueGetOp):
                self.get(op, state)
            elif not op.regions:
                continue
            elif isinstance(op, scf.ForOp):
                self.thread_for(op, state)
            elif isinstance(op, scf.IfOp):
                self.thread_if(op, state)
            elif isinstance(op, aa.ExecuteOp | tas.AgentSwitchOp):
                for region in op.regions:
                    # Each agent runs its own side: the state enters fresh per agent.
                    inner = dict(state)
                    for b in region.blocks:
                        self.thread(b, inner)
            elif self.keys_in(op):
                raise error_at(
                    op,
                    "holds a queue put/get that cannot map to a pipeline slot: the pipeline "
                    "state can only be threaded through scf.for, scf.if and execute",
                )

    def thread_for(self, loop: scf.ForOp, state: dict[StateKey, tuple[SSAValue, SSAValue]]) -> None:
        keys = self.keys_in(loop)
        if not keys:
            return
        inits = [v for k in keys for v in state.get(k) or self.initial_state(k)]
        body = loop.body.block
        extra = [body.insert_arg(v.type, len(body.args)) for v in inits]
        inner: dict[StateKey, tuple[SSAValue, SSAValue]] = dict(state)
        for i, k in enumerate(keys):
            inner[k] = (extra[2 * i], extra[2 * i + 1])
        self.thread(body, inner)
        terminator = body.last_op
        assert isinstance(terminator, scf.YieldOp)
        yielded = [v for k in keys for v in inner[k]]
        terminator.operands = [*terminator.operands, *yielded]
        new_loop = scf.ForOp(
            loop.lb, loop.ub, loop.step, [*loop.iter_args, *inits], loop.detach_region(loop.body)
        )
        new_loop.attributes.update(loop.attributes)
        new_loop.location = loop.location
        parent = loop.parent_block()
        assert parent is not None
        parent.insert_op_before(new_loop, loop)
        n = len(loop.results)
        for old, new in zip(loop.results, new_loop.results[:n], strict=True):
            old.replace_all_uses_with(new)
        loop.detach()
        loop.erase()
        for i, k in enumerate(keys):
            state[k] = (new_loop.results[n + 2 * i], new_loop.results[n + 2 * i + 1])

    def thread_if(self, branch: scf.IfOp, state: dict[StateKey, tuple[SSAValue, SSAValue]]) -> None:
        keys = self.keys_in(branch)
        if not keys:
            return
        entry = {k: state.get(k) or self.initial_state(k) for k in keys}
        regions: list[Region] = []
        for region in (branch.true_region, branch.false_region):
            if not region.blocks:
                block = Block()
                block.add_op(scf.YieldOp())
                region.add_block(block)
            block = region.blocks[0]
            inner: dict[StateKey, tuple[SSAValue, SSAValue]] = dict(state)
            inner.update(entry)
            self.thread(block, inner)
            terminator = block.last_op
            assert isinstance(terminator, scf.YieldOp)
            terminator.operands = [*terminator.operands, *(v for k in keys for v in inner[k])]
            regions.append(branch.detach_region(region))
        types: list[Attribute] = [r.type for r in branch.results]
        types += [v.type for k in keys for v in entry[k]]
        new_if = scf.IfOp(branch.cond, types, regions[0], regions[1])
        new_if.location = branch.location
        parent = branch.parent_block()
        assert parent is not None
        parent.insert_op_before(new_if, branch)
        n = len(branch.results)
        for old, new in zip(branch.results, new_if.results[:n], strict=True):
            old.replace_all_uses_with(new)
        branch.detach()
        branch.erase()
        for i, k in enumerate(keys):
            state[k] = (new_if.results[n + 2 * i], new_if.results[n + 2 * i + 1])

    # -- put / get ---------------------------------------------------------------
    def queue_of(self, op: aa.QueuePutOp | aa.QueueGetOp) -> aa.QueueCreateOp:
        queue = op.queue.owner
        if not isinstance(queue, aa.QueueCreateOp) or queue not in self.pipelines:
            raise error_at(op, "takes a queue not made by nv_tileaa.queue.create in this function")
        return queue

    def check_group(self, op: aa.QueuePutOp | aa.QueueGetOp, queue: aa.QueueCreateOp) -> None:
        agent = enclosing_agent(op)
        if agent is None:
            return
        execute, index = agent
        group = execute.groups[index]
        want = queue.producer if isinstance(op, aa.QueuePutOp) else queue.consumer
        role = "producer" if isinstance(op, aa.QueuePutOp) else "consumer"
        if group != want:
            raise error_at(
                op,
                f"runs in agent {index} of group {group}, but the queue's {role} group is {want}; "
                f"it cannot map to a pipeline slot",
            )
        if isinstance(op, aa.QueueGetOp) and op.index >= execute.group_size:
            raise error_at(
                op,
                f"consumer_idx {op.index} is not a consumer of group {group}, which has "
                f"{execute.group_size} agents",
            )

    def put(self, op: aa.QueuePutOp, state: dict[StateKey, tuple[SSAValue, SSAValue]]) -> None:
        queue = self.queue_of(op)
        self.check_group(op, queue)
        key: StateKey = (queue, "put")
        token, iterator = state.get(key) or self.initial_state(key)
        payload = queue.payload
        slot = Block(arg_types=payload)
        body = op.body.blocks[0]
        write_block = Block()
        acquire = tas.ProducerAcquireOp(token, iterator)
        slot.add_op(acquire)
        for old, new in zip(body.args, slot.args, strict=True):
            old.replace_all_uses_with(new)
        for inner in list(body.ops):
            inner.detach()
            write_block.add_op(inner)
        last = write_block.last_op
        assert isinstance(last, aa.QueueYieldOp)
        produced = list(last.values)
        last.detach()
        last.erase()
        write_block.add_op(tas.PipelineYieldOp(produced))
        write = tas.ProducerWriteOp.build(
            operands=[acquire.result, iterator],
            result_types=[PipelineProducerTokenType(), [v.type for v in produced]],
            regions=[Region(write_block)],
        )
        slot.add_op(write)
        slot.add_op(tas.ProducerCommitOp(write.result_token))
        slot.add_op(tas.PipelineYieldOp(list(write.values)))
        produce = tas.ProduceOneOp.build(
            operands=[token, iterator],
            result_types=[PipelineProducerTokenType()],
            properties={"producer_types": _types_array(payload)},
            regions=[Region(slot)],
        )
        advance = tas.IncIterOp(iterator)
        self.replace(op, [produce, advance], [])
        state[key] = (produce.result_token, advance.result)

    def get(self, op: aa.QueueGetOp, state: dict[StateKey, tuple[SSAValue, SSAValue]]) -> None:
        queue = self.queue_of(op)
        self.check_group(op, queue)
        key: StateKey = (queue, "get")
        token, iterator = state.get(key) or self.initial_state(key)
        payload = queue.payload
        idx = op.index
        body = op.body.blocks[0]
        read_block = Block()
        wrapped = not any(r.uses for r in op.outputs)
        region_block = Block(arg_types=payload) if wrapped else None
        slot_values: Sequence[SSAValue]
        if region_block is not None:
            slot_values = region_block.args
        else:
            # The stage payload is what the iterator designates; the explicit handshake
            # reads it through consumer_read's region arguments.
            read_block = Block(arg_types=payload)
            slot_values = read_block.args
        for old, new in zip(body.args, slot_values, strict=True):
            old.replace_all_uses_with(new)
        for inner in list(body.ops):
            inner.detach()
            read_block.add_op(inner)
        last = read_block.last_op
        assert isinstance(last, aa.QueueYieldOp)
        results = list(last.values)
        last.detach()
        last.erase()
        read_block.add_op(tas.PipelineYieldOp(results))
        props = {"consumer_idx": op.consumer_idx}
        target = region_block if region_block is not None else Block()
        wait = tas.ConsumerWaitOp(token, iterator, idx)
        read = tas.ConsumerReadOp.build(
            operands=[wait.result, iterator],
            result_types=[PipelineConsumerTokenType(), [v.type for v in results]],
            regions=[Region(read_block)],
            properties=dict(props),
        )
        release = tas.ConsumerReleaseOp(read.result_token)
        for new in (wait, read, release):
            target.add_op(new)
        advance = tas.IncIterOp(iterator)
        if region_block is not None:
            region_block.add_op(tas.PipelineYieldOp(list(region_block.args)))
            consume = tas.ConsumeOneOp.build(
                operands=[token, iterator],
                result_types=[PipelineConsumerTokenType()],
                properties={
                    "consumer_idx": op.consumer_idx,
                    "consumer_types": _types_array(payload),
                },
                regions=[Region(region_block)],
            )
            self.replace(op, [consume, advance], [])
            state[key] = (consume.result_token, advance.result)
        else:
            ops = list(target.ops)
            for new in ops:
                new.detach()
            self.replace(op, [*ops, advance], list(read.values))
            state[key] = (release.result, advance.result)

    @staticmethod
    def replace(op: Operation, new_ops: list[Operation], results: list[SSAValue]) -> None:
        block = op.parent_block()
        assert block is not None
        for new in new_ops:
            new.location = op.location
            for nested in new.walk():
                nested.location = op.location
            block.insert_op_before(new, op)
        for old, new in zip(op.results, results, strict=True):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()


def _types_array(types: Sequence[Attribute]):
    from xdsl.dialects.builtin import ArrayAttr

    return ArrayAttr(list(types))


def enclosing_agent(op: Operation) -> tuple[aa.ExecuteOp, int] | None:
    """The execute around `op` and the index of the agent region it runs in."""
    child: Operation = op
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, aa.ExecuteOp):
            region = child.parent_region()
            for i, r in enumerate(parent.agents):
                if r is region:
                    return parent, i
        child = parent
        parent = parent.parent_op()
    return None


# ---------------------------------------------------------------------------
# execute -> agent_switch.
# ---------------------------------------------------------------------------


def lower_execute(op: aa.ExecuteOp) -> tas.AgentSwitchOp:
    regions: list[Region] = []
    for region in list(op.agents):
        for block in region.blocks:
            last = block.last_op
            if isinstance(last, aa.YieldOp):
                block.insert_op_before(tas.PipelineYieldOp(list(last.values)), last)
                last.detach()
                last.erase()
        regions.append(op.detach_region(region))
    switch = tas.AgentSwitchOp(
        regions,
        op.budgets,
        num_agents_per_group=op.group_size,
        isolated=op.is_isolated,
        args=list(op.inputs),
    )
    switch.attributes.update(op.attributes)
    switch.attributes[AGENT_GROUPS_ATTR] = DenseArrayBase.from_list(i32, op.groups)
    for key in ("input_layouts", "output_layouts"):
        value = op.properties.get(key)
        if value is not None:
            switch.attributes[f"nv_tileas.{key}"] = value
    switch.location = op.location
    parent = op.parent_block()
    assert parent is not None
    parent.insert_op_before(switch, op)
    op.detach()
    op.erase()
    return switch


def lower_queues_and_agents(module: ModuleOp, arch: str) -> None:
    """Seed 001's `lower_tileaa_to_tileas` structure: queues, puts, gets, executes."""
    model = ResourceModel.for_arch(arch)
    executes = [o for o in module.walk() if isinstance(o, aa.ExecuteOp)]
    for execute in executes:
        model.check(execute, arch)
    queues = [o for o in module.walk() if isinstance(o, aa.QueueCreateOp)]
    if queues:
        lowering = QueueLowering()
        for queue in queues:
            lowering.create(queue)
        roots: list[Block] = []
        for queue in queues:
            block = queue.parent_block()
            if block is not None and block not in roots:
                roots.append(block)
        for block in roots:
            lowering.thread(block, {})
        for queue in queues:
            if queue.queue.uses:
                user = next(iter(queue.queue.uses)).operation
                raise error_at(
                    user,
                    "uses a queue outside the region where the queue lives; it cannot map to a pipeline slot",
                )
            queue.detach()
            queue.erase()
    for execute in [o for o in module.walk() if isinstance(o, aa.ExecuteOp)]:
        lower_execute(execute)
    # Dead scaffolding: iterators and tokens nothing reads any more.
    for o in list(module.walk(reverse=True)):
        if isinstance(o, tas.IncIterOp | tas.CreateIteratorOp) and not o.result.uses:
            o.detach()
            o.erase()
