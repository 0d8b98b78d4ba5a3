"""A word translation table from a parallel corpus (IBM Model 1, Brown et al. 1993, with a NULL source
word), and the word splitting the evaluation scripts share. Used to judge alignments (alignment_eval.py)
and tag placement (markup_eval.py) against something learned from data the model was not evaluated on.

    lex = Lexicon.train(src_lines, tgt_lines, iterations=5)
    lex.prob("hund", "dog")            # t(target word | source word)
    lex.best_target("dog")             # the source word's most likely translation ("hund")
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

_WORD = re.compile(r"\w+", re.UNICODE)
NULL = "<null>"


def words(text: str) -> List[Tuple[str, int, int]]:
    """Lowercased words of `text` with their character spans (punctuation is not a word)."""
    return [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def byte_words(text: str) -> List[Tuple[str, int, int]]:
    """words(), with spans in UTF-8 bytes (tern's spans are bytes)."""
    out = []
    for w, b, e in words(text):
        out.append((w, len(text[:b].encode("utf-8")), len(text[:e].encode("utf-8"))))
    return out


class Lexicon:
    def __init__(self, t: Dict[str, Dict[str, float]]):
        self.t = t  # t[source word][target word]

    @staticmethod
    def train(src_lines: Iterable[str], tgt_lines: Iterable[str], iterations: int = 5) -> "Lexicon":
        pairs = [([w for w, _, _ in words(s)] + [NULL], [w for w, _, _ in words(t)])
                 for s, t in zip(src_lines, tgt_lines)]
        # Uniform start over co-occurring pairs.
        t: Dict[str, Dict[str, float]] = defaultdict(dict)
        for src, tgt in pairs:
            for s in src:
                row = t[s]
                for w in tgt:
                    row[w] = 1.0
        for _ in range(iterations):
            count: Dict[str, Dict[str, float]] = defaultdict(lambda: defaultdict(float))
            total: Dict[str, float] = defaultdict(float)
            for src, tgt in pairs:
                for w in tgt:
                    z = sum(t[s][w] for s in src)
                    if z <= 0:
                        continue
                    for s in src:
                        c = t[s][w] / z
                        count[s][w] += c
                        total[s] += c
            t = defaultdict(dict)
            for s, row in count.items():
                tot = total[s]
                t[s] = {w: c / tot for w, c in row.items()}
        return Lexicon(dict(t))

    def prob(self, target: str, source: str) -> float:
        return self.t.get(source, {}).get(target, 0.0)

    def best_target(self, source: str) -> Optional[str]:
        row = self.t.get(source)
        if not row:
            return None
        return max(row.items(), key=lambda kv: (kv[1], kv[0]))[0]

    def best_source(self, target: str, sources: Sequence[str]) -> Optional[int]:
        """Index of the source word (in `sources`) that best explains `target` (None if NULL does)."""
        best, best_p = None, self.prob(target, NULL)
        for i, s in enumerate(sources):
            p = self.prob(target, s)
            if p > best_p:
                best, best_p = i, p
        return best
