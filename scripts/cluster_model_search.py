#!/usr/bin/env python3
"""Search models of `cuOccupancyMaxActiveClusters` against the H200 recording.

Usage: python3 scripts/cluster_model_search.py [tests/data/h200/clusters.tsv]

What it does
------------
1. Reads the recorded answers (kernel, cluster_size, block_size, dynamic_smem,
   max_active_clusters) and reduces them to a table answer(c, b): c = cluster size,
   b = resident blocks per SM for cluster launches. b is read off the cluster-size-1
   answer of the same (kernel, block size, dynamic smem): answer(1) / 132. (The Rust test
   `tests/clusters_h200.rs` checks that b equals min(engine occupancy, 8) on every row.)
   It checks the reduction is a function: the same (c, b) never gives two answers.
2. Enumerates every way to split the H200's 66 TPCs (132 SMs, 2 SMs per TPC) into groups
   of 1..9 TPCs (GH100 has at most 9 TPCs per GPC; 235,899 multisets) and, for each
   model family below, keeps the groupings that reproduce every (c, b) answer.

Model families (s = SMs of a group, per-group clusters, summed over groups):
  naive     floor(s * b / c)            blocks of one cluster may share an SM
  distinct  floor(s * b / c) if s >= c  each block of a cluster on its own SM
  layered   b * floor(s / c)            clusters packed in b independent one-block layers
  pow2      distinct, with c rounded up to a power of two

Result on the 2026-11-29 H200 recording: only `distinct` fits, with exactly one grouping,
{9, 9, 8, 8, 8, 8, 8, 4, 1, 1, 1, 1} TPCs: eight virtual GPCs (the sorted "skyline"
9, 9, 8, 8, 8, 8, 8, 4 TPCs) plus four singleton TPCs, which is how NVIDIA's resource
manager describes Hopper's virtual GPCs (`NV2080_CTRL_CMD_GR_GET_GLOBAL_SM_ORDER`,
`virtualGpcId`: enabled GPCs ordered by TPC count, ids 8-23 for singleton TPC holders).
It also lists how many 66-TPC groupings agree with the H100 SXM evidence
(field case 28 and the cluster-size-2 identity) to show how much that evidence pins down.
"""

import csv
import sys
from collections import defaultdict

SMS = 132
TPCS = SMS // 2
MAX_TPC_PER_GROUP = 9


def load(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    groups = defaultdict(dict)
    for r in rows:
        key = (r["kernel"], r["block_size"], r["dynamic_smem"])
        groups[key][int(r["cluster_size"])] = int(r["max_active_clusters"])
    table = {}
    for key, by_c in groups.items():
        one = by_c[1]
        assert one % SMS == 0, (key, one)
        b = one // SMS
        for c, answer in by_c.items():
            old = table.setdefault((c, b), answer)
            assert old == answer, f"(c={c}, b={b}) gives {old} and {answer}"
    return rows, table


def partitions(n, largest):
    if n == 0:
        yield []
        return
    for p in range(min(n, largest), 0, -1):
        for rest in partitions(n - p, p):
            yield [p] + rest


def pow2(c):
    p = 1
    while p < c:
        p *= 2
    return p


FAMILIES = {
    "naive": lambda s, b, c: s * b // c,
    "distinct": lambda s, b, c: s * b // c if s >= c else 0,
    "layered": lambda s, b, c: b * (s // c),
    "pow2": lambda s, b, c: s * b // pow2(c) if s >= pow2(c) else 0,
}


def predict(family, tpcs, b, c):
    f = FAMILIES[family]
    return sum(f(2 * t, b, c) for t in tpcs)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/h200/clusters.tsv"
    rows, table = load(path)
    table = {k: v for k, v in table.items() if k[1] > 0}
    print(f"{len(rows)} rows -> {len(table)} distinct (cluster size, blocks per SM) answers")
    for c in sorted({c for c, _ in table}):
        line = "  ".join(f"b={b}:{table[(c, b)]}" for cc, b in sorted(table) if cc == c)
        print(f"  c={c:2}: {line}")

    layouts = [p for p in partitions(TPCS, MAX_TPC_PER_GROUP)]
    print(f"{len(layouts)} groupings of {TPCS} TPCs into groups of 1..{MAX_TPC_PER_GROUP}")
    for family in FAMILIES:
        fits = [
            L
            for L in layouts
            if all(predict(family, L, b, c) == v for (c, b), v in table.items())
        ]
        print(f"family {family:9}: {len(fits)} fitting groupings")
        for L in fits[:5]:
            print(f"    TPCs per group: {L}")

    # H100 SXM evidence: one block per SM gives 30 clusters of 4, 15 of 8, 7 of 16
    # (field case 28), and 66 clusters of 2 holds for any grouping of whole TPCs.
    h100 = {(4, 1): 30, (8, 1): 15, (16, 1): 7, (2, 1): 66}
    fits = [
        L
        for L in layouts
        if all(predict("distinct", L, b, c) == v for (c, b), v in h100.items())
    ]
    print(f"H100 SXM evidence alone: {len(fits)} groupings fit the distinct family")


if __name__ == "__main__":
    main()
