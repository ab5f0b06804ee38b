"""Vocabulary: tokens indexed as MXNet 1.9.1 indexes them: the unknown token at 0, then the
reserved tokens, then the counter's tokens by decreasing frequency (ties by token order)."""
import collections

__all__ = ['Vocabulary']

UNKNOWN_IDX = 0


class Vocabulary(object):
    """Indexes the tokens of `counter` (a collections.Counter), keeping at most
    `most_freq_count` of them and only those seen at least `min_freq` times.

    Unknown tokens map to index 0 (`unknown_token`); `reserved_tokens` (e.g. '<pad>',
    '<eos>') take the next indices."""

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token='<unk>',
                 reserved_tokens=None):
        assert min_freq > 0, '`min_freq` must be set to a positive value.'
        if reserved_tokens is not None:
            assert unknown_token not in set(reserved_tokens), \
                '`reserved_token` cannot contain `unknown_token`.'
            assert len(set(reserved_tokens)) == len(reserved_tokens), \
                '`reserved_tokens` cannot contain duplicate reserved tokens.'
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + (self._reserved_tokens or [])
        self._token_to_idx = {t: i for i, t in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter(counter, most_freq_count, min_freq)

    def _index_counter(self, counter, most_freq_count, min_freq):
        assert isinstance(counter, collections.Counter), \
            '`counter` must be an instance of collections.Counter.'
        special = set(self._idx_to_token)
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
        for token, freq in ranked:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        """dict token -> index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list index -> token."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        return self._unknown_token

    @property
    def reserved_tokens(self):
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list of tokens (unknown: 0)."""
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, UNKNOWN_IDX)
        return [self._token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]

    def to_tokens(self, indices):
        """The token of an index, or the tokens of a list of indices."""
        single = not isinstance(indices, list)
        out = []
        for idx in ([indices] if single else indices):
            if not isinstance(idx, int) or not 0 <= idx < len(self._idx_to_token):
                raise ValueError('Token index %s in the provided `indices` is invalid.' % idx)
            out.append(self._idx_to_token[idx])
        return out[0] if single else out
