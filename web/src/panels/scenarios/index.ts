// Teaching scenarios for linux-6.9's vmap nodes, as hand-written traces (core/src/workload.rs
// has the tree scenarios; these four show the nodes, pools, decay and reclaim). Each is replayed
// in scenarios.test.ts and its comments state what the replay shows.
import decay from './decay.trace?raw';
import poolHit from './pool_hit.trace?raw';
import reclaim from './reclaim_on_failure.trace?raw';
import twoCpus from './two_cpus_two_zones.trace?raw';

export interface Scenario {
  name: string;
  title: string;
  description: string;
  trace: string;
  /**
   * Where the scenario opens: the number of operations done (0, the start, unless the scenario
   * is about one operation: then just before it, so that → steps into it). Checked by
   * scenarios.test.ts against the core's events.
   */
  step: number;
}

export const NODE_SCENARIOS: Scenario[] = [
  {
    name: 'two_cpus_two_zones',
    title: 'two CPUs, two zones',
    description:
      'two CPUs make two vmap nodes; zones of 16 pages alternate between them, and a busy area belongs to the node of its start address, whichever CPU asked',
    trace: twoCpus,
    step: 0,
  },
  {
    name: 'pool_hit',
    title: 'a pool hit skips the tree',
    description:
      'a purge pools two lazily freed 2-page areas in node 1; the next 2-page request on CPU 1 takes the head of that pool and the free tree is not touched',
    trace: poolHit,
    // Op 15, the 2-page request on CPU 1 that takes the head of node 1's pool 1.
    step: 14,
  },
  {
    name: 'decay',
    title: 'decay',
    description:
      'each purge gives the first LEN >> 2 entries of every pool back to the free tree, and a pool of 1 to 3 entries all at once (6.9)',
    trace: decay,
    step: 0,
  },
  {
    name: 'reclaim_on_failure',
    title: 'reclaim on failure',
    description:
      'the space is full and the other node has no pooled area: the failed search reclaims (full decay of every pool) and the retry succeeds',
    trace: reclaim,
    step: 0,
  },
];
