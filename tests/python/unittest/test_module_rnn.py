"""mx.rnn: sentence encoding and bucketing iterator, symbolic cells and their checkpoints."""
import numpy as np
import pytest

import mxnet as mx

def test_encode_sentences_builds_and_uses_vocab():
    ids, vocab = mx.rnn.encode_sentences([['a', 'b'], ['b', 'c']], invalid_label=0,
                                         start_label=0)
    # id 0 is the invalid label, so the first word gets 1
    assert ids == [[1, 2], [2, 3]]
    assert vocab == {'\n': 0, 'a': 1, 'b': 2, 'c': 3}
    ids, vocab2 = mx.rnn.encode_sentences([['a', 'z']], vocab=dict(vocab),
                                          unknown_token='<unk>', start_label=4)
    assert ids == [[1, 4]] and vocab2['<unk>'] == 4
    with pytest.raises(ValueError, match='Unknown token z'):
        mx.rnn.encode_sentences([['z']], vocab=dict(vocab))


def test_bucket_sentence_iter_pads_and_shifts_labels():
    sentences = [[1, 2, 3], [4, 5, 6], [7, 8], [9, 10], [1, 2, 3, 4, 5, 6, 7]]
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=2, buckets=[2, 3, 5],
                                   invalid_label=-1)
    assert it.buckets == [2, 3]            # bucket 5 got no sentence; the 7-long is dropped
    assert it.default_bucket_key == 3
    assert it.provide_data[0].shape == (2, 3) and it.provide_label[0].name == 'softmax_label'
    batches = list(it)
    assert sorted(b.bucket_key for b in batches) == [2, 3]
    for b in batches:
        data, label = b.data[0].asnumpy(), b.label[0].asnumpy()
        assert data.shape == (2, b.bucket_key) == b.provide_data[0].shape
        assert np.array_equal(label[:, :-1], data[:, 1:])
        assert np.all(label[:, -1] == -1)
    it.reset()
    assert len(list(it)) == 2
    tn = mx.rnn.BucketSentenceIter(sentences, batch_size=2, buckets=[2, 3], layout='TN')
    assert tn.provide_data[0].shape == (3, 2)
    assert all(b.data[0].shape == (b.bucket_key, 2) for b in tn)


def test_lstm_unroll_names_match_mxnet():
    cell = mx.rnn.LSTMCell(10, prefix='lstm_')
    inputs = [mx.sym.Variable('t%d_data' % i) for i in range(3)]
    outputs, states = cell.unroll(3, inputs)
    outputs = mx.sym.Group(outputs)
    assert sorted(cell.params._params) == ['lstm_h2h_bias', 'lstm_h2h_weight',
                                            'lstm_i2h_bias', 'lstm_i2h_weight']
    assert outputs.list_outputs() == ['lstm_t0_out_output', 'lstm_t1_out_output',
                                      'lstm_t2_out_output']
    _, out_shapes, _ = outputs.infer_shape(t0_data=(4, 5), t1_data=(4, 5), t2_data=(4, 5))
    assert out_shapes == [(4, 10)] * 3
    assert len(states) == 2


def test_fused_and_unfused_weights_round_trip():
    fused = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru', bidirectional=True, prefix='g_')
    stack = fused.unfuse()
    data = mx.sym.Variable('data')
    out, _ = fused.unroll(3, data, layout='TNC', merge_outputs=True)
    arg_shapes, _, _ = out.infer_shape(data=(3, 2, 5))
    size = dict(zip(out.list_arguments(), arg_shapes))['g_parameters']
    flat = mx.nd.array(np.arange(np.prod(size), dtype=np.float32))
    unpacked = fused.unpack_weights({'g_parameters': flat})
    assert unpacked['g_l0_i2h_r_weight'].shape == (4, 5)
    assert unpacked['g_r1_i2h_z_weight'].shape == (4, 8)
    # per-gate arrays -> the stack's per-cell fused i2h/h2h arrays -> back -> one array
    per_cell = stack.pack_weights(unpacked)
    assert per_cell['g_l0_i2h_weight'].shape == (12, 5)
    repacked = fused.pack_weights(stack.unpack_weights(per_cell))
    assert np.array_equal(repacked['g_parameters'].asnumpy(), flat.asnumpy())


def test_rnn_checkpoint_round_trip(tmp_path):
    cell = mx.rnn.LSTMCell(3, prefix='l_')
    out, _ = cell.unroll(2, mx.sym.Variable('data'), merge_outputs=True)
    args = {'l_i2h_weight': mx.nd.ones((12, 4)), 'l_i2h_bias': mx.nd.arange(12),
            'l_h2h_weight': mx.nd.ones((12, 3)) * 2, 'l_h2h_bias': mx.nd.zeros((12,))}
    prefix = str(tmp_path / 'r')
    mx.rnn.save_rnn_checkpoint(cell, prefix, 1, out, args, {})
    raw = mx.nd.load(prefix + '-0001.params')
    assert 'arg:l_i2h_f_bias' in raw and 'arg:l_i2h_bias' not in raw
    assert np.array_equal(raw['arg:l_i2h_f_bias'].asnumpy(), np.arange(3, 6))
    _, arg, _ = mx.rnn.load_rnn_checkpoint(cell, prefix, 1)
    for k, v in args.items():
        assert np.array_equal(arg[k].asnumpy(), v.asnumpy())


def test_bucketing_module_trains_lstm_language_model():
    mx.random.seed(1)
    np.random.seed(1)
    vocab, hidden = 12, 16
    sentences = [[(start + k) % (vocab - 1) + 1 for k in range(length)]
                 for start in range(vocab - 1) for length in (4, 6) for _ in range(4)]
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=8, buckets=[4, 6], invalid_label=0)
    cell = mx.rnn.LSTMCell(hidden, prefix='lstm_')

    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data, input_dim=vocab, output_dim=8, name='embed')
        cell.reset()
        outputs, _ = cell.unroll(seq_len, embed, merge_outputs=True)
        pred = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-1, hidden)),
                                     num_hidden=vocab, name='pred')
        out = mx.sym.SoftmaxOutput(pred, mx.sym.Reshape(label, shape=(-1,)), name='softmax',
                                   ignore_label=0, use_ignore=True)
        return out, ('data',), ('softmax_label',)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=it.default_bucket_key)
    metric = mx.metric.Perplexity(ignore_label=0)
    mod.fit(it, eval_metric=metric, num_epoch=15, optimizer='adam',
            optimizer_params={'learning_rate': 0.05}, initializer=mx.init.Xavier())
    assert sorted(mod._buckets) == [4, 6]
    (_, ppl), = mod.score(it, metric)
    # the next word is a deterministic function of the current one
    assert ppl < 2.0, ppl
