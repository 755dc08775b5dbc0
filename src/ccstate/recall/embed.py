"""Optional semantic ranking from a local static-embedding model, fused with BM25.

A static-embedding model (model2vec's layout: `model.safetensors` holding an `embeddings`
matrix, `tokenizer.json`, `config.json`) maps each token to a vector; a text's vector is
the mean of its tokens' vectors. `recall.embedding_model` names such a folder the user has
downloaded; nothing is downloaded here. numpy is needed (`pip install 'ccstate[semantic]'`);
the `tokenizers` package is used when installed, else WordPiece and WordLevel vocabularies
are read directly. Vectors live in the index (`vecs`), computed for new moments at each
update and all again when the model changes.
"""

from __future__ import annotations

import json
import re
import sqlite3
import struct
import unicodedata
from pathlib import Path
from typing import Any

from ccstate.errors import CcstateError

FLOOR = 0.5  # the least cosine similarity a semantic-only hit needs
MAX_TOKENS = 256  # tokens embedded per text
BATCH = 512
NEEDS_NUMPY = (
    "recall.embedding_model needs numpy: pip install 'ccstate[semantic]' "
    '(or set recall.embedding_model to "" for BM25 alone)'
)
_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8"}
_PUNCT = re.compile(r"(\W)", re.UNICODE)


class Model:
    """Token vectors and a tokenizer; `encode` gives unit-length text vectors."""

    def __init__(self, folder: Path, matrix: Any, tokenize: Any, fingerprint: str) -> None:
        self.folder = folder
        self.matrix = matrix  # [vocab, dim] as stored (memory-mapped): rows read on use
        self.tokenize = tokenize  # text -> list of token ids
        self.fingerprint = fingerprint

    def encode(self, texts: list[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.matrix.shape[1]), dtype=np.float32)
        for row, text in enumerate(texts):
            ids = self.tokenize(text)[:MAX_TOKENS]
            if ids:
                vector = self.matrix[ids].astype(np.float32).mean(axis=0)
                norm = float(np.linalg.norm(vector))
                out[row] = vector / norm if norm > 0 else vector
        return out


def load_model(name: str, project: Path | None = None) -> Model:
    """The model in folder `name` (relative names are under `project`); CcstateError if not."""
    try:
        import numpy as np
    except ImportError as exc:
        raise CcstateError(NEEDS_NUMPY) from exc
    folder = Path(name).expanduser()
    if not folder.is_absolute() and project is not None:
        folder = project / folder
    weights, tok = folder / "model.safetensors", folder / "tokenizer.json"
    for needed in (weights, tok):
        if not needed.is_file():
            raise CcstateError(
                f"recall.embedding_model: {needed} not found; point it at a model2vec model "
                'folder (model.safetensors, tokenizer.json), or set it to ""'
            )
    try:
        st, ts = weights.stat(), tok.stat()
    except OSError as exc:
        raise CcstateError(f"recall.embedding_model: {exc}") from exc
    fingerprint = f"{folder}:{st.st_size}:{st.st_mtime_ns}"
    key = f"{fingerprint}:{ts.st_size}:{ts.st_mtime_ns}"
    if key not in _LOADED:  # the update before a query and the query read it once
        _LOADED.clear()
        _LOADED[key] = Model(
            folder, _read_safetensors(weights, "embeddings", np), _tokenizer(tok), fingerprint
        )
    return _LOADED[key]


_LOADED: dict[str, Model] = {}  # the last model read, by its files' sizes and times


def _read_safetensors(path: Path, key: str, np: Any) -> Any:
    """The embedding matrix, memory-mapped in its stored dtype: a query reads only its
    tokens' rows, and loading costs the header alone (#27.1)."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            (length,) = struct.unpack("<Q", fh.read(8))
            if length > size - 8:
                raise ValueError(f"a header of {length} bytes in a file of {size}")
            header = json.loads(fh.read(length))
        spec = (
            header[key]
            if key in header
            else next(v for k, v in header.items() if k != "__metadata__")
        )
        start, stop = (int(n) for n in spec["data_offsets"])
        dtype = np.dtype(_DTYPES[spec["dtype"]])
        shape = tuple(int(n) for n in spec["shape"])
        if len(shape) != 2 or not shape[0] or stop - start != shape[0] * shape[1] * dtype.itemsize:
            raise ValueError(f"the embedding matrix is {shape} in {stop - start} bytes")
        if 8 + length + stop > size:
            raise ValueError("the file is shorter than its header says")
        return np.memmap(path, dtype=dtype, mode="r", offset=8 + length + start, shape=shape)
    except (OSError, struct.error, ValueError, KeyError, StopIteration, TypeError) as exc:
        raise CcstateError(
            f"{path}: not a safetensors file with an embedding matrix ({exc})"
        ) from exc


def _tokenizer(path: Path) -> Any:
    """text -> token ids: the `tokenizers` package when present, else WordPiece/WordLevel."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return _plain_tokenizer(path)
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:  # the binding raises plain Exception for a file it cannot read
        raise CcstateError(f"{path}: not a tokenizer the tokenizers package reads ({exc})") from exc
    return lambda text: tok.encode(text, add_special_tokens=False).ids


def _plain_tokenizer(path: Path) -> Any:
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CcstateError(f"{path}: not a tokenizer.json ({exc})") from exc
    model = (spec.get("model") if isinstance(spec, dict) else None) or {}
    if not isinstance(model, dict):
        model = {}
    kind, vocab = model.get("type"), model.get("vocab")
    if kind not in ("WordPiece", "WordLevel") or not isinstance(vocab, dict):
        raise CcstateError(
            f"{path}: a {kind} tokenizer needs the tokenizers package: pip install tokenizers"
        )
    normalizer = spec.get("normalizer") or {}
    lower = bool(normalizer.get("lowercase", True)) if normalizer else True
    prefix = str(model.get("continuing_subword_prefix") or "##")
    unk = vocab.get(str(model.get("unk_token") or "[UNK]"))

    def words(text: str) -> list[str]:
        if lower:
            text = unicodedata.normalize("NFD", text.lower())
            text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        return [w for chunk in text.split() for w in _PUNCT.split(chunk) if w]

    def tokenize(text: str) -> list[int]:
        out: list[int] = []
        for word in words(text):
            if kind == "WordLevel":
                found = vocab.get(word)
                out += [found] if found is not None else []
            else:
                out += _wordpiece(word, vocab, prefix)
        return [i for i in out if i != unk]

    return tokenize


def _wordpiece(word: str, vocab: dict[str, int], prefix: str) -> list[int]:
    """Greedy longest-match-first pieces (BERT's WordPiece); [] when no piece fits."""
    ids, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                ids.append(vocab[piece])
                break
            end -= 1
        if end == start:
            return []  # the word is unknown
        start = end
    return ids


# How a vector is stored (#27.1): its largest magnitude as a float32 scale, then its values
# as int8 of that scale (dims + 4 bytes: a quarter of float32, about half of float16). The
# stamp in `meta.embedding_model` names it, so vectors stored otherwise count as another
# model's: re-embedded once, never compared.
VECTOR_FORMAT = "int8+scale"


def stamp(model: Model) -> str:
    """What `meta.embedding_model` holds: vectors of another stamp are never compared."""
    return f"{model.fingerprint}|{VECTOR_FORMAT}"


def restamp(con: sqlite3.Connection, model: Model) -> None:
    """Inside a write transaction: every vector goes when `model` is not the one that made
    them, and `model` is recorded (recall's moments and find's chunks alike)."""
    row = con.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    if row is None or row[0] != stamp(model):
        con.execute("DELETE FROM vecs")
        con.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('embedding_model', ?)", (stamp(model),)
        )


def embed_rows(
    con: sqlite3.Connection, model: Model, todo: list[tuple[int, str]], deadline: float | None
) -> int:
    """Inside a write transaction: (id, text) rows embedded into `vecs`, a `BATCH` at a time;
    past `deadline` (`time.monotonic()`) no further batch starts. How many were embedded."""
    import time

    import numpy as np

    done = 0
    for start in range(0, len(todo), BATCH):
        if deadline is not None and time.monotonic() > deadline:
            break
        chunk = todo[start : start + BATCH]
        blobs = quantise(model.encode([text for _id, text in chunk]), np)
        con.executemany(
            "INSERT INTO vecs(id, v) VALUES (?, ?)",
            [(row_id, blobs[n]) for n, (row_id, _text) in enumerate(chunk)],
        )
        done += len(chunk)
    return done


def quantise(vectors: Any, np: Any) -> list[bytes]:
    """Rows of float vectors as stored: a float32 scale, then int8 values."""
    scale = np.abs(vectors).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    values = np.rint(vectors / scale[:, None]).astype(np.int8)
    return [scale[n].astype("<f4").tobytes() + values[n].tobytes() for n in range(len(vectors))]


def dequantised_scores(blobs: list[bytes], query: Any, np: Any) -> Any:
    """Each stored vector's dot product with `query` (its cosine: both are unit length)."""
    raw = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), -1)
    scales = raw[:, :4].copy().view("<f4").ravel()
    values = raw[:, 4:].view(np.int8).astype(np.float32)
    return (values @ query) * scales


def _same_ids(con: sqlite3.Connection) -> bool:
    """Does every moment have a vector, and every vector a moment? (Counts and ends: a vector
    is added or deleted only with its moment, in `update_vectors`.)"""
    docs = con.execute("SELECT count(*), min(id), max(id) FROM docs").fetchone()
    vecs = con.execute("SELECT count(*), min(id), max(id) FROM vecs").fetchone()
    return tuple(docs) == tuple(vecs)


def update_vectors(con: sqlite3.Connection, model: Model, deadline: float | None = None) -> int:
    """Embed the moments that have no vector yet (all of them when the model changed); how
    many. Past `deadline` (`time.monotonic()`, a hook's budget) no further batch starts: what
    is embedded is kept, and the next update embeds the rest (a model named over a big index
    is embedded over several hook runs, or at once by `ccstate recall`)."""
    if vectors_current(con, model) and _same_ids(con):
        return 0  # nothing to embed: no write lock taken (a query's update runs this too)
    con.execute("CREATE TABLE IF NOT EXISTS vecs(id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
    con.execute("BEGIN IMMEDIATE")
    try:
        restamp(con, model)
        con.execute("DELETE FROM vecs WHERE id NOT IN (SELECT id FROM docs)")
        todo = con.execute(
            "SELECT id, title, body FROM docs WHERE id NOT IN (SELECT id FROM vecs) ORDER BY id"
        ).fetchall()
        done = embed_rows(con, model, [(i, f"{t}\n{b}") for i, t, b in todo], deadline)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return done


class Embedder:
    """The semantic ranking `search.search` fuses with BM25."""

    def __init__(self, model: Model, floor: float = FLOOR) -> None:
        self.model = model
        self.floor = floor

    def rank(
        self, con: sqlite3.Connection, text: str, where: str, params: list[Any], limit: int
    ) -> dict[int, float]:
        """{moment id: cosine} of the `limit` nearest moments, best first."""
        import numpy as np

        if not vectors_current(con, self.model):
            return {}  # none yet, or another model's: BM25 alone (the next update embeds)
        query = self.model.encode([text])[0]
        if not query.any():
            return {}  # no word of the question is in the model: no ranking to add
        rows = con.execute(
            f"SELECT v.id, v.v FROM vecs v JOIN docs d ON d.id = v.id WHERE 1 {where}", params
        ).fetchall()
        if not rows:
            return {}
        ids = np.array([r[0] for r in rows])
        scores = dequantised_scores([r[1] for r in rows], query, np)
        best = np.argsort(-scores)[:limit]
        return {int(ids[i]): float(scores[i]) for i in best}


def vectors_current(con: sqlite3.Connection, model: Model) -> bool:
    """Are the index's vectors this model's (`update_vectors` stamps them)? Another model's
    vectors (or dimensions) are never compared with this one's."""
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        con.execute("SELECT 1 FROM vecs LIMIT 1").fetchone()
    except sqlite3.OperationalError:  # no vectors table yet
        return False
    return row is not None and row[0] == stamp(model)


def embedder_for(name: str, project: Path) -> Embedder | None:
    """The configured model's Embedder, or None when `recall.embedding_model` is empty."""
    if not name:
        return None
    return Embedder(load_model(name, project))


def semantic_status(name: str, project: Path, index_file: Path) -> tuple[str, bool]:
    """`ccstate doctor`'s words on a configured model: ("; semantic ranking on/off ...",
    whether it is off)."""
    try:
        model = load_model(name, project)
        con = sqlite3.connect(f"file:{index_file}?mode=ro", uri=True)
        try:
            current = vectors_current(con, model)
            if current:  # a hook embeds within its budget: the rest may still be to come
                embedded = con.execute("SELECT count(*) FROM vecs").fetchone()[0]
                moments = con.execute("SELECT count(*) FROM docs").fetchone()[0]
        finally:
            con.close()
    except (CcstateError, sqlite3.Error) as exc:
        return f"; semantic ranking off (BM25 alone): {exc}", True
    if not current:
        return "; semantic ranking off until `ccstate recall` embeds the moments", True
    if embedded < moments:
        return (
            f"; semantic ranking on ({model.folder}) for {embedded:,} of {moments:,} moments "
            "so far (`ccstate recall` embeds the rest)",
            False,
        )
    return f"; semantic ranking on ({model.folder})", False
