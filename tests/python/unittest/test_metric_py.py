# mx.metric: each metric against numpy and against values MXNet 1.9.1 printed on the same
# inputs, local vs global totals, configs, create() forms and the registry's errors.
import json
import math

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import InvalidConfigError, MXNetError

nd = mx.nd
metric = mx.metric

PRED3 = nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
LABEL3 = nd.array([0, 1, 1])


def make_data():
    """The inputs the MXNet 1.9.1 values below were computed on (same generator, same order)."""
    rng = np.random.RandomState(3)
    d = {"scores": rng.rand(12, 5).astype("float32"),
         "cls": rng.randint(0, 5, 12).astype("float32")}
    d["bin_preds"] = [rng.rand(8, 2).astype("float32") for _ in range(3)]
    d["bin_labels"] = [rng.randint(0, 2, 8).astype("float32") for _ in range(3)]
    d["reg_label"] = rng.rand(6).astype("float32")
    d["reg_pred"] = rng.rand(6).astype("float32")
    d["pear_labels"] = [rng.rand(4, 3).astype("float32") for _ in range(3)]
    d["pear_preds"] = [rng.rand(4, 3).astype("float32") for _ in range(3)]
    d["probs"] = d["scores"] / d["scores"].sum(axis=1, keepdims=True)
    return d


D = make_data()


def batches(labels, preds):
    return [([nd.array(l)], [nd.array(p)]) for l, p in zip(labels, preds)]


def run(m, data, reset_local_after=None):
    """Update with each batch (reset_local after batch i when asked); (get(), get_global())."""
    for i, (labels, preds) in enumerate(data):
        m.update(labels, preds)
        if i == reset_local_after:
            m.reset_local()
    return m.get(), m.get_global()


def scores_and_classes():
    return [([nd.array(D["cls"])], [nd.array(D["scores"])]),
            ([nd.array(D["cls"][:6])], [nd.array(D["scores"][6:])])]


def binary():
    return batches(D["bin_labels"], D["bin_preds"])


def regression():
    return [([nd.array(D["reg_label"])], [nd.array(D["reg_pred"])]),
            ([nd.array(D["reg_label"].reshape(3, 2))], [nd.array(D["reg_pred"].reshape(3, 2))])]


# (make metric, data, reset_local_after, local value, global value, rtol); values printed
# by MXNet 1.9.1. rtol 1e-6 where a float32 reduction of mx.nd rounds differently.
CASES_191 = {
    "acc": (lambda: metric.Accuracy(), lambda: [([LABEL3], [PRED3])], None,
            0.6666666666666666, 0.6666666666666666, 0),
    "acc_axis0": (lambda: metric.Accuracy(axis=0),
                  lambda: [([nd.array([1, 0])], [nd.array([[0.1, 0.9], [0.8, 0.2], [0.1, 0.0]])])],
                  None, 1.0, 1.0, 0),
    "acc_class_indices": (lambda: metric.Accuracy(),
                          lambda: [([nd.array([0, 1, 2, 2])], [nd.array([0, 1, 1, 2])])], None,
                          0.75, 0.75, 0),
    "acc_reset_local": (lambda: metric.Accuracy(), scores_and_classes, 0,
                        0.16666666666666666, 0.2222222222222222, 0),
    "topk2": (lambda: metric.TopKAccuracy(top_k=2), lambda: scores_and_classes()[:1], None,
              0.5, 0.5, 0),
    "topk3": (lambda: metric.TopKAccuracy(top_k=3), scores_and_classes, 0,
              0.6666666666666666, 0.6111111111111112, 0),
    "f1_macro": (lambda: metric.F1(), binary, None, 0.43333333333333335, 0.43333333333333335, 0),
    "f1_macro_reset": (lambda: metric.F1(), binary, 0, 0.4, 0.43333333333333335, 0),
    "f1_micro": (lambda: metric.F1(average="micro"), binary, None,
                 0.43478260869565216, 0.43478260869565216, 0),
    "f1_micro_reset": (lambda: metric.F1(average="micro"), binary, 0,
                       0.4, 0.43478260869565216, 0),
    "mcc_macro": (lambda: metric.MCC(), binary, None,
                  -0.044239709837910667, -0.044239709837910667, 0),
    "mcc_macro_reset": (lambda: metric.MCC(), binary, 0,
                        -0.09969289809019932, -0.044239709837910667, 0),
    "mcc_micro": (lambda: metric.MCC(average="micro"), binary, None, 0.0, 0.0, 0),
    "mcc_micro_reset": (lambda: metric.MCC(average="micro"), binary, 0,
                        -0.034815531191139566, 0.0, 0),
    "perplexity": (lambda: metric.Perplexity(None), lambda: scores_and_classes()[:1], None,
                   3.3601389580635375, 3.3601389580635375, 1e-6),
    "perplexity_ignore": (lambda: metric.Perplexity(1),
                          lambda: scores_and_classes()[:1] + [([LABEL3], [PRED3])], None,
                          3.0184140962188506, 3.0184140962188506, 1e-6),
    "perplexity_axis0": (lambda: metric.Perplexity(None, axis=0),
                         lambda: [([nd.array([0, 1])], [nd.array(D["scores"][:2, :2])])], None,
                         3.802195564595845, 3.802195564595845, 1e-6),
    "mae": (lambda: metric.MAE(), regression, None, 0.3652952015399933, 0.3652952015399933, 0),
    "mse": (lambda: metric.MSE(), regression, None, 0.16108915209770203, 0.16108915209770203, 0),
    "rmse": (lambda: metric.RMSE(), regression, None, 0.4013591408729553, 0.4013591408729553, 0),
    "mae_row_vs_column": (lambda: metric.MAE(), lambda: [([nd.array(D["reg_label"])],
                                                          [nd.array(D["reg_pred"][:, None])])],
                          None, 0.3652952015399933, 0.3652952015399933, 0),
    "ce": (lambda: metric.CrossEntropy(),
           lambda: [([nd.array(D["cls"])], [nd.array(D["probs"])])], None,
           2.025633970896403, 2.025633970896403, 0),
    "ce_eps_column_label": (lambda: metric.CrossEntropy(eps=0.1),
                            lambda: [([nd.array(D["cls"][:, None])], [nd.array(D["probs"])])],
                            None, 1.3441449801127117, 1.3441449801127117, 0),
    "nll_reset": (lambda: metric.NegativeLogLikelihood(),
                  lambda: [([nd.array(D["cls"])], [nd.array(D["probs"])]), ([LABEL3], [PRED3])],
                  0, 0.5715994834899902, 1.7348270734151205, 0),
    "pearson_macro": (lambda: metric.PearsonCorrelation(),
                      lambda: batches(D["pear_labels"], D["pear_preds"]), None,
                      0.040331045590117645, 0.040331045590117645, 0),
    "pcc": (lambda: metric.PCC(), lambda: scores_and_classes()[:1] + [
        ([nd.array([0, 6, 2])], [nd.array([1, 6, 2])])], None,
            0.14709954876517708, 0.14709954876517708, 0),
    "pcc_reset": (lambda: metric.PCC(), lambda: scores_and_classes()[:1] + [
        ([nd.array([0, 6, 2])], [nd.array([1, 6, 2])])], 0,
                  0.6666666666666666, 0.14709954876517708, 0),
    "loss_reset": (lambda: metric.Loss(), lambda: [(None, [nd.array(D["scores"])]), (None, [PRED3])],
                   0, 0.5, 0.470847158720999, 1e-6),
    "custom_tuple": (lambda: metric.CustomMetric(
        lambda l, p: (float(np.abs(l - p).sum()), l.size)),
        lambda: regression()[:1], None, 0.36529521147410077, 0.36529521147410077, 1e-12),
}


@pytest.mark.parametrize("case", sorted(CASES_191))
def test_values_match_mxnet_191(case):
    make, data, reset_after, local, global_, rtol = CASES_191[case]
    (name, got_local), (name2, got_global) = run(make(), data(), reset_after)
    assert name == name2
    np.testing.assert_allclose(got_local, local, rtol=rtol, atol=1e-15)
    np.testing.assert_allclose(got_global, global_, rtol=rtol, atol=1e-15)


def test_accuracy_matches_numpy_for_scores_and_indices():
    scores, cls = D["scores"], D["cls"]
    expected = (scores.argmax(axis=1) == cls).mean()
    assert metric.Accuracy().__class__ is metric.create("acc").__class__
    acc = metric.Accuracy()
    acc.update([nd.array(cls)], [nd.array(scores)])
    assert acc.get() == ("accuracy", expected)
    acc = metric.Accuracy()
    acc.update([nd.array(cls)], [nd.array(scores.argmax(axis=1))])
    assert acc.get()[1] == expected
    # 2-D labels are compared flattened against the argmax of each row
    acc = metric.Accuracy()
    acc.update([nd.array(cls.reshape(3, 4))], [nd.array(scores)])
    assert acc.get()[1] == expected and acc.num_inst == 12


def test_topk_matches_numpy():
    scores, cls = D["scores"], D["cls"].astype(int)
    top3 = np.argsort(-scores, axis=1)[:, :3]
    expected = np.mean([c in row for c, row in zip(cls, top3)])
    m = metric.TopKAccuracy(top_k=3)
    m.update([nd.array(cls)], [nd.array(scores)])
    assert m.get() == ("top_k_accuracy_3", expected)
    with pytest.raises(AssertionError, match="Please use Accuracy"):
        metric.TopKAccuracy(top_k=1)


def confusion(labels, preds):
    predicted = preds.argmax(axis=1)
    tp = np.sum((predicted == 1) & (labels == 1))
    fp = np.sum((predicted == 1) & (labels == 0))
    fn = np.sum((predicted == 0) & (labels == 1))
    tn = np.sum((predicted == 0) & (labels == 0))
    return tp, fp, fn, tn


def test_f1_and_mcc_micro_match_numpy_over_all_batches():
    labels = np.concatenate(D["bin_labels"])
    preds = np.concatenate(D["bin_preds"])
    tp, fp, fn, tn = confusion(labels, preds)
    f1 = 2. * tp / (2 * tp + fp + fn)
    denominator = np.prod([t for t in (tp + fp, tp + fn, tn + fp, tn + fn) if t])
    mcc = (tp * tn - fp * fn) / np.sqrt(denominator)
    micro_f1 = metric.F1(average="micro")
    got_f1, _ = run(micro_f1, binary())
    assert micro_f1.metrics.precision == float(tp) / (tp + fp)
    assert micro_f1.metrics.global_recall == float(tp) / (tp + fn)
    assert micro_f1.metrics.total_examples == len(labels)
    got_mcc, _ = run(metric.MCC(average="micro"), binary())
    np.testing.assert_allclose(got_f1[1], f1, rtol=1e-12)
    np.testing.assert_allclose(got_mcc[1], mcc, rtol=1e-12, atol=1e-15)


def test_f1_rejects_more_than_two_classes():
    with pytest.raises(ValueError, match="only supports binary classification"):
        metric.F1().update([nd.array([0, 1, 2])], [nd.array(np.eye(3))])


def test_perplexity_matches_numpy_with_ignored_labels():
    probs, cls = D["probs"], D["cls"].astype(int)
    picked = probs[np.arange(12), cls]
    keep = cls != 2
    expected = np.exp(-np.log(picked[keep]).sum() / keep.sum())
    m = metric.Perplexity(ignore_label=2)
    m.update([nd.array(cls)], [nd.array(probs)])
    np.testing.assert_allclose(m.get()[1], expected, rtol=1e-6)
    assert m.num_inst == keep.sum()
    with pytest.raises(AssertionError, match="shape mismatch"):
        m.update([nd.array([1, 2])], [nd.array(probs)])


def test_regression_metrics_match_numpy():
    l, p = D["reg_label"], D["reg_pred"]
    for name, fn in (("mae", lambda: np.abs(l - p).mean()), ("mse", lambda: ((l - p) ** 2).mean()),
                     ("rmse", lambda: np.sqrt(((l - p) ** 2).mean()))):
        m = metric.create(name)
        m.update([nd.array(l)], [nd.array(p)])
        np.testing.assert_allclose(m.get()[1], fn(), rtol=1e-6)


def test_cross_entropy_and_nll_match_numpy():
    probs, cls = D["probs"], D["cls"].astype(int)
    expected = -np.log(probs[np.arange(12), cls] + 1e-12).mean()
    for name in ("ce", "nll_loss"):
        m = metric.create(name)
        m.update([nd.array(cls)], [nd.array(probs)])
        np.testing.assert_allclose(m.get()[1], expected, rtol=1e-6)
    with pytest.raises(AssertionError, match="one label per prediction row"):
        metric.CrossEntropy().update([nd.array([0, 1])], [nd.array(probs)])


def test_pearson_macro_and_micro_match_numpy():
    labels, preds = D["pear_labels"], D["pear_preds"]
    macro = np.mean([np.corrcoef(p.ravel(), l.ravel())[0, 1] for l, p in zip(labels, preds)])
    all_l = np.concatenate([l.ravel() for l in labels]).astype(np.float64)
    all_p = np.concatenate([p.ravel() for p in preds]).astype(np.float64)
    micro = np.corrcoef(all_p, all_l)[0, 1]
    (_, got_macro), _ = run(metric.PearsonCorrelation(), batches(labels, preds))
    (_, got_micro), (_, got_micro_global) = run(metric.PearsonCorrelation(average="micro"),
                                                batches(labels, preds))
    np.testing.assert_allclose(got_macro, macro, rtol=1e-12)
    # 1.9.1 printed 0.06771803974995126 for the local micro value
    np.testing.assert_allclose(got_micro, 0.06771803974995126, rtol=1e-12)
    np.testing.assert_allclose(got_micro, micro, rtol=1e-12)
    # the global micro value is the same correlation (MXNet 1.9.1 returned 0.0 here)
    np.testing.assert_allclose(got_micro_global, micro, rtol=1e-12)
    with pytest.raises(ValueError, match="does not match"):
        metric.PearsonCorrelation().update([nd.zeros((2, 3))], [nd.zeros((3, 2))])


def test_pearson_micro_reset_local_restarts_the_local_correlation():
    labels, preds = D["pear_labels"], D["pear_preds"]
    m = metric.PearsonCorrelation(average="micro")
    (_, local), (_, global_) = run(m, batches(labels, preds), reset_local_after=0)
    rest_l = np.concatenate([l.ravel() for l in labels[1:]]).astype(np.float64)
    rest_p = np.concatenate([p.ravel() for p in preds[1:]]).astype(np.float64)
    np.testing.assert_allclose(local, np.corrcoef(rest_p, rest_l)[0, 1], rtol=1e-12)
    m.reset_local()
    assert math.isnan(m.get()[1]) and not math.isnan(m.get_global()[1])


def test_pcc_matches_mcc_for_two_classes_and_reference_for_three():
    labels, preds = D["bin_labels"][0], D["bin_preds"][0]
    pcc, mcc = metric.PCC(), metric.MCC()
    pcc.update([nd.array(labels)], [nd.array(preds)])
    mcc.update([nd.array(labels)], [nd.array(preds)])
    np.testing.assert_allclose(pcc.get()[1], mcc.get()[1], rtol=1e-12)
    # three classes: Gorodkin's R_K from the confusion matrix (rows: predicted, cols: label)
    cls, predicted = D["cls"].astype(int) % 3, D["scores"][:, :3].argmax(axis=1)
    cm = np.zeros((3, 3))
    np.add.at(cm, (predicted, cls), 1)
    n, x, y = cm.sum(), cm.sum(axis=1), cm.sum(axis=0)
    expected = (np.trace(cm) * n - x @ y) / np.sqrt((n * n - x @ x) * (n * n - y @ y))
    pcc = metric.PCC()
    pcc.update([nd.array(cls)], [nd.array(D["scores"][:, :3])])
    np.testing.assert_allclose(pcc.get()[1], expected, rtol=1e-12)
    assert pcc.k == 3


def test_loss_sums_predictions_and_ignores_labels():
    for preds in ([PRED3], PRED3):
        m = metric.Loss()
        m.update(None, preds)
        np.testing.assert_allclose(m.get()[1], PRED3.asnumpy().mean(), rtol=1e-6)
    assert metric.Torch().name == "torch" and metric.Caffe().name == "caffe"
    assert isinstance(metric.create("torch"), metric.Loss)


def test_custom_metric_names_values_and_no_config():
    def mean_gap(label, pred):
        return float(np.abs(label - pred).mean())

    m = metric.create(mean_gap)
    assert m.name == "mean_gap"
    assert metric.CustomMetric(lambda l, p: 0.0).name == "custom(<lambda>)"
    run(m, regression())
    np.testing.assert_allclose(m.get()[1], np.abs(D["reg_label"] - D["reg_pred"]).mean(),
                               rtol=1e-6)
    assert m.num_inst == 2
    wrapped = metric.np(mean_gap, name="gap")
    assert wrapped.name == "gap" and isinstance(wrapped, metric.CustomMetric)
    with pytest.raises(NotImplementedError):
        m.get_config()
    # extra predictions (e.g. RNN states) are allowed only when asked for
    extra = metric.CustomMetric(mean_gap, allow_extra_outputs=True)
    extra.update([nd.ones((2,))], [nd.ones((2,)), nd.zeros((3,))])
    assert extra.get()[1] == 0.0
    with pytest.raises(ValueError, match="does not match"):
        metric.CustomMetric(mean_gap).update([nd.ones((2,))], [nd.ones((2,)), nd.zeros((3,))])


def test_composite_lists_children_and_keeps_global_totals():
    comp = metric.create(["acc", "ce"])
    assert isinstance(comp, metric.CompositeEvalMetric)
    comp.update([LABEL3], [PRED3])
    assert comp.get() == (["accuracy", "cross-entropy"], [0.6666666666666666, 0.5715994834899902])
    comp.reset_local()
    assert all(math.isnan(v) for v in comp.get()[1])
    assert comp.get_global() == (["accuracy", "cross-entropy"],
                                 [0.6666666666666666, 0.5715994834899902])
    assert comp.get_metric(1).name == "cross-entropy"
    with pytest.raises(ValueError, match="out of range"):
        comp.get_metric(5)
    comp.reset()
    assert all(math.isnan(v) for v in comp.get_global()[1])


def test_global_totals_survive_reset_local_for_every_metric():
    for name, args in (("acc", ()), ("top_k_acc", (2,)), ("f1", ()), ("mcc", ()),
                       ("perplexity", (-1,)), ("mae", ()), ("mse", ()), ("rmse", ()),
                       ("ce", ()), ("nll_loss", ()), ("pcc", ()), ("loss", ())):
        data = binary()
        continuous = metric.create(name, *args)
        run(continuous, data)
        split = metric.create(name, *args)
        (_, local), (_, global_) = run(split, data, reset_local_after=1)
        np.testing.assert_allclose(global_, continuous.get()[1], rtol=1e-12, err_msg=name)
        expected_local = run(metric.create(name, *args), data[2:])[0][1]
        np.testing.assert_allclose(local, expected_local, rtol=1e-12, err_msg=name)


def test_empty_metric_is_nan_and_str():
    assert str(metric.Accuracy()) == "EvalMetric: {'accuracy': nan}"
    for m in (metric.Accuracy(), metric.F1(), metric.Perplexity(None), metric.PCC(),
              metric.PearsonCorrelation(average="micro")):
        assert math.isnan(m.get()[1]) and math.isnan(m.get_global()[1])


def test_name_value_pairs():
    acc = metric.Accuracy(name="my_acc")
    acc.update([LABEL3], [PRED3])
    assert acc.get_name_value() == [("my_acc", 0.6666666666666666)]
    assert acc.get_global_name_value() == [("my_acc", 0.6666666666666666)]
    comp = metric.create(["acc", "mae"])
    assert [n for n, _ in comp.get_name_value()] == ["accuracy", "mae"]


def test_update_dict_selects_by_name():
    preds = {"out": PRED3, "other": nd.zeros((3, 2))}
    labels = {"lab": LABEL3, "extra": nd.zeros((3,))}
    acc = metric.Accuracy(output_names=["out"], label_names=["lab"])
    acc.update_dict(labels, preds)
    assert acc.get()[1] == 0.6666666666666666
    comp = metric.CompositeEvalMetric([metric.Accuracy()], output_names=["out"],
                                      label_names=["lab"])
    comp.update_dict(labels, preds)
    assert comp.get()[1] == [0.6666666666666666]


def test_check_label_shapes():
    labels, preds = metric.check_label_shapes(LABEL3, PRED3, wrap=True)
    assert labels[0] is LABEL3 and preds[0] is PRED3
    with pytest.raises(ValueError, match="Shape of labels 2 does not match shape of predictions 1"):
        metric.check_label_shapes([1, 2], [1])
    with pytest.raises(ValueError, match=r"\(3,\) does not match shape of predictions \(3, 2\)"):
        metric.check_label_shapes(LABEL3, PRED3, shape=True)
    # a single NDArray pair is accepted by update
    mse = metric.create("mse")
    mse.update(nd.array([[1, 2, 3, 4]]) + 0.1, nd.array([[1, 2, 3, 4]]))
    np.testing.assert_allclose(mse.get()[1], 0.01, rtol=1e-5)


CONFIGURABLE = [("acc", (), {"axis": 0}), ("top_k_acc", (), {"top_k": 4}), ("f1", (), {}),
                ("f1", (), {"average": "micro"}), ("mcc", (), {}), ("perplexity", (-1,), {}),
                ("mae", (), {}), ("mse", (), {}), ("rmse", (), {}), ("ce", (), {"eps": 1e-5}),
                ("nll_loss", (), {}), ("pearsonr", (), {"average": "micro"}), ("pcc", (), {}),
                ("loss", (), {}), ("torch", (), {}), ("caffe", (), {}),
                ("acc", (), {"name": "x", "output_names": ["o"], "label_names": ["l"]})]


@pytest.mark.parametrize("name,args,kwargs", CONFIGURABLE)
def test_config_round_trip(name, args, kwargs):
    m = metric.create(name, *args, **kwargs)
    config = m.get_config()
    for again in (metric.create(config), metric.create(json.dumps(config))):
        assert type(again) is type(m) and again.get_config() == config
        assert getattr(again, "average", "macro") == getattr(m, "average", "macro")


def test_configs_match_mxnet_191():
    assert metric.create("acc").get_config() == {
        "axis": 1, "metric": "Accuracy", "name": "accuracy", "output_names": None,
        "label_names": None}
    assert metric.create(["acc", "f1"]).get_config() == {
        "metric": "CompositeEvalMetric", "name": "composite", "output_names": None,
        "label_names": None, "metrics": [
            {"axis": 1, "metric": "Accuracy", "name": "accuracy", "output_names": None,
             "label_names": None},
            {"metric": "F1", "name": "f1", "output_names": None, "label_names": None}]}
    assert metric.create("perplexity", -1).get_config()["ignore_label"] == -1
    comp = metric.create(json.dumps(metric.create(["acc", "f1"]).get_config()))
    assert [type(m) for m in comp.metrics] == [metric.Accuracy, metric.F1]


def test_registered_names_match_mxnet_191():
    assert sorted(mx.registry.get_registry(metric.EvalMetric)) == sorted([
        "acc", "accuracy", "caffe", "ce", "composite", "compositeevalmetric", "crossentropy",
        "custommetric", "f1", "loss", "mae", "mcc", "mse", "negativeloglikelihood", "nll_loss",
        "pcc", "pearsoncorrelation", "pearsonr", "perplexity", "rmse", "top_k_acc",
        "top_k_accuracy", "topkaccuracy", "torch"])


def test_create_forms():
    acc = metric.Accuracy()
    assert metric.create(acc) is acc
    assert type(metric.create("ACC")) is metric.Accuracy
    assert metric.create("acc", axis=0).axis == 0
    assert metric.create('["acc", {"axis": 0}]').axis == 0
    comp = metric.create([acc, "mae", lambda l, p: 0.0])
    assert [type(m) for m in comp.metrics] == [metric.Accuracy, metric.MAE, metric.CustomMetric]


def test_unknown_names_raise_invalid_config_error():
    with pytest.raises(InvalidConfigError, match="foo is not registered") as info:
        metric.create("foo")
    assert isinstance(info.value, MXNetError) and isinstance(info.value, AssertionError)
    with pytest.raises(AssertionError, match="already an instance"):
        metric.create(metric.Accuracy(), 1)
    with pytest.raises(MXNetError, match="string type"):
        metric.create(3)


def test_register_custom_metric_class():
    @metric.register
    @metric.alias("pyinit_test_metric_alias")
    class PyinitTestMetric(metric.EvalMetric):
        def __init__(self, name="pyinit_test"):
            super().__init__(name)

        def update(self, labels, preds):
            self.sum_metric += 1
            self.num_inst += 1

    m = metric.create("pyinit_test_metric_alias")
    m.update(None, None)
    assert type(m) is PyinitTestMetric and m.get() == ("pyinit_test", 1.0)
    # without has_global_stats the global value is the local one
    assert m.get_global() == m.get()
