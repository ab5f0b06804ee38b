"""Token counting for building vocabularies."""
import collections
import re

__all__ = ['count_tokens_from_str']


def count_tokens_from_str(source_str, token_delim=' ', seq_delim='\n', to_lower=False,
                          counter_to_update=None):
    """A collections.Counter of the tokens of `source_str`, split on `token_delim` and
    `seq_delim` (both regular expressions), empty tokens dropped, lower-cased when
    `to_lower`; with `counter_to_update`, that counter updated and returned."""
    tokens = [t for t in re.split(token_delim + '|' + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
