"""Seeded generator of benchmark runs and qrels in TREC format.

Three shapes, as in the speed targets:

* ``msmarco``: 6,980 queries x 1,000 documents (about 7M run lines), binary
  qrels with about 1.07 relevant documents per query, about 5% of scores tied.
* ``wide``: 50,000 queries x 100 documents (5M run lines), sparse graded
  qrels 0-3 (one to five judged documents a query).
* ``robust04``: 100 queries x 1,000 documents with dense graded qrels, as
  Robust04's: about 1,400 judgments a query (a third of them of ranked
  documents, most of them 0), scores with 4 decimals that tie now and then.

Scaled versions (``--scale 0.1``) give the smaller sizes the runner uses to
show that cost grows linearly.  The same seed always gives the same files.

    python benchmarks/generate.py --shape msmarco --out /tmp/bench
"""

import argparse
import os
import random
from typing import Dict, List, Tuple

SHAPES: Dict[str, Tuple[int, int, str]] = {
    # name: (queries, documents per query, kind of qrels)
    "msmarco": (6980, 1000, "binary"),
    "wide": (50000, 100, "sparse"),
    "robust04": (100, 1000, "dense"),
}


def generate(shape: str, out_dir: str, *, scale: float = 1.0, seed: int = 42) -> Tuple[str, str]:
    """Write ``<shape>.qrels`` and ``<shape>.run`` into *out_dir*; return their paths."""
    n_queries, depth, kind = SHAPES[shape]
    places = 4 if kind == "dense" else 3
    n_queries = max(1, int(n_queries * scale))
    rng = random.Random(seed)
    os.makedirs(out_dir, exist_ok=True)
    tag = f"{shape}-{scale:g}"
    qrels_path = os.path.join(out_dir, f"{tag}.qrels")
    run_path = os.path.join(out_dir, f"{tag}.run")
    collection = 8_800_000
    with open(qrels_path, "w") as qf, open(run_path, "w") as rf:
        for q in range(n_queries):
            qid = str(1_000_000 + q * 7)
            docs = rng.sample(range(collection), depth)
            if kind == "dense":
                # pooled judgments: a third of them of ranked documents, the
                # rest of documents other systems retrieved; mostly 0
                judged = rng.sample(docs, rng.randint(400, 500))
                judged += [rng.randrange(collection) for _ in range(rng.randint(850, 1000))]
                rels = {d: rng.choice((0,) * 14 + (1, 1, 2)) for d in judged}
            elif kind == "sparse":
                # sparse graded judgments, as large query sets have them: a
                # few judged passages per query, sometimes one not retrieved
                judged = rng.sample(docs, rng.randint(1, 4))
                if rng.random() < 0.3:
                    judged.append(rng.randrange(collection))
                rels = {d: rng.choice((0, 1, 1, 2, 3)) for d in judged}
            else:
                # MS MARCO dev: mostly one relevant passage, sometimes two or more
                n_rel = 1 + (rng.random() < 0.06) + (rng.random() < 0.01)
                # about a third of relevant passages are not retrieved at all
                rels = {}
                for _ in range(n_rel):
                    d = rng.choice(docs) if rng.random() < 0.66 else rng.randrange(collection)
                    rels[d] = 1
            for d in sorted(rels):
                qf.write(f"{qid} 0 {d} {rels[d]}\n")
            scores: List[float] = []
            for _ in range(depth):
                # rounding to 3 decimals ties about 5% of the scores of a query
                scores.append(round(rng.gauss(20.0, 6.0), places))
            scores.sort(reverse=True)
            lines = [
                f"{qid} Q0 {d} {rank} {s:.{places}f} bench\n"
                for rank, (d, s) in enumerate(zip(docs, scores), 1)
            ]
            rf.write("".join(lines))
    return qrels_path, run_path


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--shape", choices=sorted(SHAPES), default="msmarco")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", default="bench-data")
    args = p.parse_args()
    q, r = generate(args.shape, args.out, scale=args.scale, seed=args.seed)
    print(q)
    print(r)


if __name__ == "__main__":
    main()
