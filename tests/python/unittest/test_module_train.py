"""mx.mod.Module, BucketingModule and SequentialModule on real symbols and executors:
training, checkpoints (ours and MXNet 1.9.1's), prediction, multi-context splitting."""
import os
import pickle

import numpy as np
import pytest

import mxnet as mx

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')


def _mlp(num_hidden=32, num_classes=2):
    data = mx.sym.Variable('data')
    net = mx.sym.FullyConnected(data, num_hidden=num_hidden, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.FullyConnected(net, num_hidden=num_classes, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def _two_class_data(n, seed):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 8).astype(np.float32)
    y = (x[:, 0] - 0.5 * x[:, 1] + 0.25 * x[:, 2] > 0).astype(np.float32)
    return x, y


def _fit_mlp(num_epoch=8, context=None, **kwargs):
    mx.random.seed(11)
    x, y = _two_class_data(400, 0)
    train = mx.io.NDArrayIter(x, y, batch_size=20, shuffle=False)
    mod = mx.mod.Module(_mlp(), context=context or mx.cpu())
    mod.fit(train, num_epoch=num_epoch, optimizer='sgd',
            optimizer_params={'learning_rate': 0.1, 'momentum': 0.9},
            initializer=mx.init.Xavier(), **kwargs)
    return mod


def test_fit_mlp_on_synthetic_data_reaches_90_percent(tmp_path):
    prefix = str(tmp_path / 'mlp')
    xv, yv = _two_class_data(200, 1)
    val = mx.io.NDArrayIter(xv, yv, batch_size=20)
    ends = []
    mod = _fit_mlp(eval_data=val, eval_metric='acc',
                   epoch_end_callback=[mx.callback.do_checkpoint(prefix, period=4),
                                       lambda epoch, sym, arg, aux: ends.append(epoch)],
                   batch_end_callback=mx.callback.Speedometer(20, 10))
    assert ends == list(range(8))
    (name, acc), = mod.score(val, 'acc')
    assert name == 'accuracy'
    assert acc > 0.9, acc
    assert os.path.exists(prefix + '-symbol.json')
    assert os.path.exists(prefix + '-0004.params') and os.path.exists(prefix + '-0008.params')
    sym, arg, aux = mx.model.load_checkpoint(prefix, 8)
    assert sym.list_arguments() == mod.symbol.list_arguments()
    for k, v in mod.get_params()[0].items():
        assert np.array_equal(v.asnumpy(), arg[k].asnumpy())


def test_predict_equals_manual_forward():
    mod = _fit_mlp(num_epoch=1)
    x, _ = _two_class_data(50, 2)
    # 50 rows in batches of 20: the last batch is padded and the padding dropped
    pred = mod.predict(mx.io.NDArrayIter(x, batch_size=20))
    assert pred.shape == (50, 2)
    arg, _ = mod.get_params()
    h = np.maximum(x.dot(arg['fc1_weight'].asnumpy().T) + arg['fc1_bias'].asnumpy(), 0)
    z = h.dot(arg['fc2_weight'].asnumpy().T) + arg['fc2_bias'].asnumpy()
    e = np.exp(z - z.max(axis=1, keepdims=True))
    assert np.allclose(pred.asnumpy(), e / e.sum(axis=1, keepdims=True), atol=1e-5)
    # the other output forms of predict and iter_predict agree
    it = mx.io.NDArrayIter(x, batch_size=20)
    per_batch = mod.predict(it, merge_batches=False)
    assert [len(b) for b in per_batch] == [1, 1, 1]
    assert [b[0].shape[0] for b in per_batch] == [20, 20, 10]
    listed = mod.predict(it, always_output_list=True)
    assert isinstance(listed, list) and np.array_equal(listed[0].asnumpy(), pred.asnumpy())
    rows = sum(out[0].shape[0] for out, _, _ in mod.iter_predict(it))
    assert rows == 50


def test_checkpoint_round_trip_with_optimizer_states(tmp_path):
    prefix = str(tmp_path / 'rt')
    mod = _fit_mlp(num_epoch=2, kvstore=None)
    mod.save_checkpoint(prefix, 2, save_optimizer_states=True)
    assert os.path.exists(prefix + '-0002.states')
    mod2 = mx.mod.Module.load(prefix, 2, load_optimizer_states=True)
    mod2.bind(data_shapes=[('data', (20, 8))], label_shapes=[('softmax_label', (20,))])
    mod2.init_optimizer(optimizer='sgd',
                        optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    assert mod2.symbol.tojson() == mod.symbol.tojson()
    for a, b in zip(mod.get_params(), mod2.get_params()):
        assert sorted(a) == sorted(b)
        for k in a:
            assert np.array_equal(a[k].asnumpy(), b[k].asnumpy())
    assert sorted(mod._updater.states) == sorted(mod2._updater.states)
    for k, v in mod._updater.states.items():
        assert np.array_equal(v.asnumpy(), mod2._updater.states[k].asnumpy())
    x, _ = _two_class_data(20, 3)
    assert np.array_equal(mod.predict(mx.nd.array(x)).asnumpy(),
                          mod2.predict(mx.nd.array(x)).asnumpy())


def test_load_mxnet191_checkpoint_predicts_as_mxnet191():
    prefix = os.path.join(FIXTURES, 'module_mxnet191')
    expected = np.load(prefix + '_expected.npz')
    mod = mx.mod.Module.load(prefix, 2, load_optimizer_states=True)
    mod.bind(data_shapes=[('data', expected['x'].shape)],
             label_shapes=[('softmax_label', (expected['x'].shape[0],))])
    out = mod.predict(mx.io.NDArrayIter(expected['x'], batch_size=16))
    assert np.allclose(out.asnumpy(), expected['prob'], rtol=1e-4, atol=1e-5)
    # 1.9.1's pickled momentum states load into our Updater
    mod.init_optimizer(optimizer='sgd', optimizer_params={'momentum': 0.9}, kvstore=None)
    with open(prefix + '-0002.states', 'rb') as f:
        saved = pickle.loads(f.read())
    assert sorted(mod._updater.states) == sorted(saved) == list(range(6))
    for k, v in saved.items():
        assert np.array_equal(mod._updater.states[k].asnumpy(), v.asnumpy())


def test_two_contexts_split_batch_and_sum_gradients():
    mx.random.seed(5)
    x, y = _two_class_data(40, 4)
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    grads, outs = [], []
    for ctxs, work in (([mx.cpu(0)], None), ([mx.cpu(0), mx.cpu(1)], [1, 3])):
        mod = mx.mod.Module(_mlp(), context=ctxs, work_load_list=work)
        mod.bind(data_shapes=[('data', (40, 8))], label_shapes=[('softmax_label', (40,))])
        mod.init_params(initializer=mx.init.Constant(0.05))
        mod.forward_backward(batch)
        if len(ctxs) == 2:
            pieces = mod.get_outputs(merge_multi_context=False)[0]
            assert [p.shape[0] for p in pieces] == [10, 30]
        outs.append(mod.get_outputs()[0].asnumpy())
        group = mod._exec_group
        grads.append({name: sum(g.asnumpy() for g in per_dev)
                      for name, per_dev in zip(group.param_names, group.grad_arrays)})
    assert np.allclose(outs[0], outs[1], atol=1e-6)
    for name in grads[0]:
        assert np.allclose(grads[0][name], grads[1][name], atol=1e-5), name


def test_update_with_two_contexts_keeps_copies_equal():
    mod = mx.mod.Module(_mlp(), context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[('data', (10, 8))], label_shapes=[('softmax_label', (10,))])
    mod.init_params(initializer=mx.init.Xavier())
    mod.init_optimizer(optimizer_params={'learning_rate': 0.5})
    x, y = _two_class_data(10, 6)
    before = mod.get_params()[0]['fc1_weight'].asnumpy().copy()
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    mod.update()
    w0, w1 = [w.asnumpy() for w in mod._exec_group.param_arrays[0]]
    assert np.allclose(w0, w1)
    assert not np.allclose(before, w0)


def test_bind_errors_name_the_input():
    mod = mx.mod.Module(_mlp())
    with pytest.raises(ValueError, match='data'):
        mod.bind(data_shapes=[('x', (4, 8))])
    with pytest.raises(TypeError):
        mod.bind(data_shapes=[('data', mx.nd.array([4, 8]))])
    assert not mod.binded
    with pytest.raises(ValueError, match="input with name 'nope'"):
        mx.mod.Module(_mlp(), data_names=['nope'])


def test_set_params_missing_and_extra():
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[('data', (4, 8))], label_shapes=[('softmax_label', (4,))])
    mod.init_params()
    arg, aux = mod.get_params()
    partial = {k: v for k, v in arg.items() if k != 'fc2_bias'}
    with pytest.raises(RuntimeError, match='fc2_bias'):
        mod.set_params(partial, aux)
    mod.set_params(partial, aux, allow_missing=True)
    extra = dict(arg, other_weight=mx.nd.ones((2,)))
    with pytest.raises(ValueError):
        mod.set_params(extra, aux, allow_missing=True)
    mod.set_params(extra, aux, allow_missing=True, allow_extra=True)


def _bucket_sym_gen(seq_len):
    # (batch, seq_len) -> one row per step, so the weight's shape is the same in every bucket
    data = mx.sym.Reshape(mx.sym.Variable('data'), shape=(-1, 1))
    weight = mx.sym.Variable('shared_weight')
    net = mx.sym.FullyConnected(data, weight=weight, num_hidden=4, no_bias=True, name='fc')
    net = mx.sym.sum(net, axis=1) * float(seq_len)
    return mx.sym.MakeLoss(net, name='loss'), ('data',), None


def test_bucketing_module_shares_parameters_across_buckets():
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=3)
    mod.bind(data_shapes=[('data', (2, 3))])
    mod.init_params(initializer=mx.init.One())
    mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
    for key in (3, 2, 3):
        batch = mx.io.DataBatch([mx.nd.ones((2, key))], None, bucket_key=key,
                                provide_data=[mx.io.DataDesc('data', (2, key))])
        mod.forward(batch, is_train=True)
        assert mod.get_outputs()[0].shape == (2 * key,)
        mod.backward()
        mod.update()
    assert sorted(mod._buckets) == [2, 3]
    w3 = mod._buckets[3]._exec_group.param_arrays[0][0]
    w2 = mod._buckets[2]._exec_group.param_arrays[0][0]
    assert np.array_equal(w3.asnumpy(), w2.asnumpy())
    assert not np.allclose(w3.asnumpy(), 1.0)


def test_bucketing_checkpoint_round_trip(tmp_path):
    prefix = str(tmp_path / 'bk')
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=3)
    mod.bind(data_shapes=[('data', (2, 3))])
    mod.init_params(initializer=mx.init.Uniform(0.5))
    mod.switch_bucket(2, [('data', (2, 2))])
    mod.save_checkpoint(prefix, 1)
    assert os.path.exists(prefix + '-3-symbol.json') and os.path.exists(prefix + '.buckets')
    mod2 = mx.mod.BucketingModule.load(prefix, 1, sym_gen=_bucket_sym_gen,
                                       default_bucket_key=3)
    mod2.bind(data_shapes=[('data', (2, 3))])
    a, b = mod.get_params()[0], mod2.get_params()[0]
    assert np.array_equal(a['shared_weight'].asnumpy(), b['shared_weight'].asnumpy())


def test_two_contexts_without_kvstore_module_sum_gradients(monkeypatch):
    # a build without mx.kvstore: the devices' gradients are still summed before the
    # local update, so both copies stay equal (and equal to one device's update)
    monkeypatch.setattr(mx.model, '_kvstore_module', lambda: None)
    x, y = _two_class_data(10, 6)
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    weights = []
    for ctxs in ([mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]):
        mod = mx.mod.Module(_mlp(), context=ctxs)
        mod.bind(data_shapes=[('data', (10, 8))], label_shapes=[('softmax_label', (10,))])
        mod.init_params(initializer=mx.init.Constant(0.1))
        mod.init_optimizer(optimizer_params={'learning_rate': 0.5})
        assert mod._update_on_kvstore is False
        mod.forward_backward(batch)
        mod.update()
        copies = [w.asnumpy() for w in mod._exec_group.param_arrays[0]]
        assert all(np.allclose(copies[0], c) for c in copies)
        weights.append(copies[0])
    assert np.allclose(weights[0], weights[1], atol=1e-6)
    with pytest.raises(ValueError, match='no mx.kvstore'):
        mx.model._create_kvstore('dist_sync', 2, {})
