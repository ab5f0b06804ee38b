"""DataParallelExecutorGroup: one executor per context; a batch is cut along its batch axis
by the workload, each piece runs on its device, outputs are concatenated back."""
import logging
from collections import OrderedDict

import numpy as np

from .. import context as ctx
from .. import ndarray as nd
from ..io import DataDesc

__all__ = ['DataParallelExecutorGroup']

# MXNet's dtype codes (the ``__dtype__`` attribute of a variable) to numpy types.
_DTYPE_CODE_TO_NP = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8, 4: np.int32,
                     5: np.int8, 6: np.int64, 7: np.bool_, 8: np.int16, 9: np.uint16,
                     10: np.uint32, 11: np.uint64}


def _split_input_slice(batch_size, work_load_list):
    """Slices of [0, batch_size) proportional to `work_load_list` (rounding leftovers go to
    the last device). An empty slice is an error: the batch is too small for the devices."""
    total = float(sum(work_load_list))
    counts = [round(w * batch_size / total) for w in work_load_list]
    short = batch_size - sum(counts)
    if short > 0:
        counts[-1] += short
    slices, end = [], 0
    for count in counts:
        begin = int(min(end, batch_size))
        end = int(min(begin + count, batch_size))
        if begin >= end:
            raise ValueError('Too many slices. Some splits are empty: batch size %d cut for '
                             'work loads %s' % (batch_size, list(work_load_list)))
        slices.append(slice(begin, end))
    return slices


def _copy_part(src, dst, part, axis):
    """dst <- src[part] along `axis` (the whole of src when the part covers it)."""
    if axis < 0 or (part.start == 0 and src.shape[axis] == part.stop):
        src.copyto(dst)
    elif axis == 0:
        src[part.start:part.stop].copyto(dst)
    else:
        nd.slice_axis(src, axis=axis, begin=part.start, end=part.stop).copyto(dst)


def _load_general(data, targets, major_axis):
    """Copy each source array into its per-device targets: a target list of (slice, array)
    gets its slice; per-device sources (lists) go one to one."""
    for src, dsts, axis in zip(data, targets, major_axis):
        if isinstance(dsts, nd.NDArray):
            src.copyto(dsts)
        elif isinstance(src, (list, tuple)):
            for s, d in zip(src, dsts):
                s.copyto(d)
        else:
            for part, dst in dsts:
                _copy_part(src, dst, part, axis)


def _load_per_device(batches, field, targets):
    """A list of batches (one per device): device k's arrays come from batches[k]."""
    for i, per_name in enumerate(targets):
        for batch, (_, dst) in zip(batches, per_name):
            getattr(batch, field)[i].copyto(dst)


def _load_data(batch, targets, major_axis):
    if isinstance(batch, list):
        _load_per_device(batch, 'data', targets)
    else:
        _load_general(batch.data, targets, major_axis)


def _load_label(batch, targets, major_axis):
    if isinstance(batch, list):
        _load_per_device(batch, 'label', targets)
    else:
        _load_general(batch.label, targets, major_axis)


def _merge_multi_context(outputs, major_axis):
    """One array per output: the devices' pieces concatenated along the batch axis (an
    output without batch axis is taken from the first device)."""
    merged = []
    for pieces, axis in zip(outputs, major_axis):
        if axis >= 0 and len(pieces) > 1:
            first = pieces[0].context
            merged.append(nd.concat(*[p.as_in_context(first) for p in pieces], dim=axis))
        else:
            merged.append(pieces[0])
    return merged


def _prepare_group2ctxs(group2ctxs, ctx_len):
    """One {ctx_group: Context} per device from None, a list of such dicts, or one dict whose
    values are a Context or a list of 1 or `ctx_len` contexts."""
    if group2ctxs is None:
        return [None] * ctx_len
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != ctx_len:
            raise ValueError("group2ctxs: expected %d dicts (one per context), given %d"
                             % (ctx_len, len(group2ctxs)))
        return group2ctxs
    if isinstance(group2ctxs, dict):
        per_device = [{} for _ in range(ctx_len)]
        for group, value in group2ctxs.items():
            if isinstance(value, ctx.Context):
                ctxs = [value] * ctx_len
            elif len(value) == 1:
                ctxs = list(value) * ctx_len
            elif len(value) == ctx_len:
                ctxs = list(value)
            else:
                raise ValueError("group2ctxs[%s]: expected 1 or %d contexts, given %d"
                                 % (group, ctx_len, len(value)))
            for i in range(ctx_len):
                per_device[i][group] = ctxs[i]
        return per_device
    raise TypeError("group2ctxs should be a list of dict of str to Context, or a dict of str "
                    "to Context or list of Context; given %s" % type(group2ctxs).__name__)


def _exec_bytes(executor):
    """Bytes the executor allocated, from the 'Total N MB allocated' line of debug_str."""
    try:
        lines = executor.debug_str().split('\n')
    except (AttributeError, NotImplementedError):
        return 0
    for line in reversed(lines):
        words = line.split()
        if len(words) >= 3 and words[0] == 'Total' and words[2] == 'MB':
            try:
                return int(float(words[1]))
            except ValueError:
                return 0
    return 0


def _as_descs(shapes):
    if shapes is None:
        return None
    return [x if isinstance(x, DataDesc) else DataDesc(*x) for x in shapes]


class DataParallelExecutorGroup(object):
    """Executors of one symbol on several devices, sharing the work of each batch.

    Parameters mirror MXNet 1.9: `workload` (relative batch share per context), `param_names`
    (arguments that are parameters), `shared_group` (another group, e.g. another bucket,
    whose parameter and data memory this one reuses), `fixed_param_names` (no gradient),
    `grad_req` ('write'/'add'/'null', per argument as a list or dict), `state_names`
    (inputs kept between batches) and `group2ctxs` (ctx_group -> Context placement)."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req='write', state_names=None, group2ctxs=None):
        self.param_names = param_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = contexts
        self.workload = workload
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(contexts))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self._total_exec_bytes = 0
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])

        data_shapes = _as_descs(data_shapes)
        label_shapes = _as_descs(label_shapes)
        self.grad_req = self._grad_reqs('null' if not for_training else grad_req,
                                        [x.name for x in data_shapes])

        if shared_group is not None:
            self.shared_data_arrays = shared_group.shared_data_arrays
        else:
            self.shared_data_arrays = [{} for _ in contexts]

        self.batch_size = None
        self.slices = None
        self.execs = []
        self._default_execs = None
        self.data_arrays = None
        self.label_arrays = None
        self.param_arrays = None
        self.state_arrays = None
        self.grad_arrays = None
        self.aux_arrays = None
        self.input_grad_arrays = None
        self.data_shapes = None
        self.label_shapes = None
        self.data_names = None
        self.label_names = None
        self.data_layouts = None
        self.label_layouts = None
        self.output_names = self.symbol.list_outputs()
        self.num_outputs = len(self.output_names)
        self.output_layouts = [DataDesc.get_batch_axis(self.symbol[i].attr('__layout__'))
                               for i in range(self.num_outputs)]
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req, data_names):
        """{argument: 'write'|'add'|'null'}: parameters (unless fixed) and, with
        inputs_need_grad, the data get `grad_req`; everything else 'null'."""
        def default(name, req):
            if name in self.param_names:
                return 'null' if name in self.fixed_param_names else req
            if name in data_names:
                return req if self.inputs_need_grad else 'null'
            return 'null'
        if isinstance(grad_req, str):
            return {k: default(k, grad_req) for k in self.arg_names}
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise ValueError("grad_req: expected one entry per argument (%d), given %d"
                                 % (len(self.arg_names), len(grad_req)))
            return dict(zip(self.arg_names, grad_req))
        if isinstance(grad_req, dict):
            reqs = {k: default(k, 'write') for k in self.arg_names}
            reqs.update(grad_req)
            return reqs
        raise ValueError("grad_req must be one of str, list, tuple, or dict.")

    def decide_slices(self, data_shapes):
        """Batch axis of each input (from its layout); sets batch_size and the per-device
        slices from the first input that has one."""
        assert data_shapes, "decide_slices: no input shapes"
        major_axis = [DataDesc.get_batch_axis(x.layout) for x in data_shapes]
        for (name, shape), axis in zip(data_shapes, major_axis):
            if axis == -1:
                continue
            batch_size = shape[axis]
            if self.batch_size is not None:
                if batch_size != self.batch_size:
                    raise ValueError("all data must have the same batch size: batch_size = "
                                     "%d, but %s has shape %s" % (self.batch_size, name, shape))
            else:
                self.batch_size = batch_size
                self.slices = _split_input_slice(self.batch_size, self.workload)
        return major_axis

    def _collect_arrays(self):
        """Per-name lists of the executors' arrays, the views the module reads and writes."""
        def parts(name, i, e):
            part = self.slices[i] if self.slices else slice(i, i + 1)
            return part, e.arg_dict[name]
        self.data_arrays = [[parts(name, i, e) for i, e in enumerate(self.execs)]
                            for name, _ in self.data_shapes]
        self.state_arrays = [[e.arg_dict[name] for e in self.execs] for name in self.state_names]
        if self.label_shapes is not None:
            self.label_arrays = [[parts(name, i, e) for i, e in enumerate(self.execs)]
                                 for name, _ in self.label_shapes]
        else:
            self.label_arrays = None
        param_idx = [i for i, name in enumerate(self.arg_names) if name in self.param_names]
        self.param_arrays = [[e.arg_arrays[i] for e in self.execs] for i in param_idx]
        if self.for_training:
            self.grad_arrays = [[e.grad_arrays[i] for e in self.execs] for i in param_idx]
        else:
            self.grad_arrays = None
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_arrays[self.arg_names.index(name)]
                                       for e in self.execs]
                                      for name, _ in self.data_shapes if name in self.arg_names]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [[e.aux_arrays[i] for e in self.execs]
                           for i in range(len(self.aux_names))]

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind one executor per context (or, with `reshape`, reshape the first-bound ones)."""
        assert reshape or not self.execs, "bind_exec: executors are already bound"
        data_shapes = _as_descs(data_shapes)
        label_shapes = _as_descs(label_shapes)
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        if label_shapes is not None:
            self.label_layouts = self.decide_slices(label_shapes)
        for i in range(len(self.contexts)):
            data_i = self._sliced_shape(data_shapes, i, self.data_layouts)
            label_i = [] if label_shapes is None else \
                self._sliced_shape(label_shapes, i, self.label_layouts)
            if reshape:
                self.execs[i] = self._default_execs[i].reshape(
                    allow_up_sizing=True, **dict(data_i + label_i))
            else:
                self.execs.append(self._bind_ith_exec(i, data_i, label_i, shared_group))
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [d.name for d in data_shapes]
        if label_shapes is not None:
            self.label_names = [d.name for d in label_shapes]
        self._collect_arrays()

    def reshape(self, data_shapes, label_shapes):
        """Reshape the executors for new input shapes (memory of the first binding reused)."""
        data_shapes = _as_descs(data_shapes)
        label_shapes = _as_descs(label_shapes)
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy the parameters into every executor."""
        for e in self.execs:
            e.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Write the devices' average of each parameter into `arg_params`/`aux_params`
        (in place, keeping their dtypes)."""
        for names, blocks, out in ((self.param_names, self.param_arrays, arg_params),
                                   (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                mean = sum(w.copyto(ctx.cpu()) for w in block) / len(block)
                mean.astype(out[name].dtype).copyto(out[name])

    def forward(self, data_batch, is_train=None):
        """Load the batch's pieces into the executors and run them (training mode by
        default when bound for training)."""
        _load_data(data_batch, self.data_arrays, self.data_layouts)
        if is_train is None:
            is_train = self.for_training
        if self.label_arrays is not None:
            has_label = data_batch[0].label if isinstance(data_batch, list) else data_batch.label
            if has_label:
                _load_label(data_batch, self.label_arrays, self.label_layouts)
        for e in self.execs:
            e.forward(is_train=is_train)

    def get_output_shapes(self):
        """[(output name, shape of the merged output)]."""
        shapes = []
        for name, out, axis in zip(self.output_names, self.execs[0].outputs,
                                   self.output_layouts):
            shape = list(out.shape)
            if axis >= 0:
                shape[axis] = self.batch_size
            shapes.append((name, tuple(shape)))
        return shapes

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs [begin, end) of the last forward: merged across devices, or as
        [[out_dev1, out_dev2], ...]."""
        if end is None:
            end = self.num_outputs
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        if merge_multi_context:
            outputs = _merge_multi_context(outputs, self.output_layouts)
        return outputs

    def get_states(self, merge_multi_context=True):
        """The state arrays as [[state1_dev1, state1_dev2], ...] (merging is unsupported)."""
        assert not merge_multi_context, \
            "merge_multi_context=True is not supported for get_states yet."
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the states from per-device arrays `states` or to one scalar `value`."""
        if states is not None:
            assert value is None, "Only one of states & value can be specified."
            _load_general(states, self.state_arrays, (0,) * len(states))
        else:
            assert value is not None, "At least one of states & value must be specified."
            for per_device in self.state_arrays:
                for dst in per_device:
                    dst[:] = value

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (bound with inputs_need_grad)."""
        assert self.inputs_need_grad, "get_input_grads: bind with inputs_need_grad=True"
        if merge_multi_context:
            return _merge_multi_context(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def backward(self, out_grads=None):
        """Backward on every device; `out_grads` (for outputs that are not losses) are cut
        along their batch axis like the data."""
        assert self.for_training, 're-bind with for_training=True to run backward'
        out_grads = out_grads or []
        for i, (e, part) in enumerate(zip(self.execs, self.slices)):
            pieces = []
            for grad, axis in zip(out_grads, self.output_layouts):
                if axis >= 0:
                    piece = nd.slice_axis(grad, axis=axis, begin=part.start, end=part.stop)
                    pieces.append(piece.as_in_context(self.contexts[i]))
                else:
                    pieces.append(grad.copyto(self.contexts[i]))
            e.backward(out_grads=pieces)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update `eval_metric` with each device's outputs against its part of `labels`
        (already per device when `pre_sliced`)."""
        for n, (e, part) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_part = labels[n]
            else:
                labels_part = []
                for label, axis in zip(labels, self.label_layouts):
                    if axis == 0:
                        labels_part.append(label[part])
                    elif axis > 0:
                        labels_part.append(nd.slice_axis(label, axis=axis, begin=part.start,
                                                         end=part.stop)
                                           .as_in_context(label.context))
                    else:
                        labels_part.append(label)
            eval_metric.update_dict(OrderedDict(zip(self.label_names or [], labels_part)),
                                    OrderedDict(zip(self.output_names, e.outputs)))

    def _input_types(self, data_shapes, label_shapes):
        """Input dtypes: the descriptors', except data variables declaring ``__dtype__``."""
        types = {x.name: x.dtype for x in data_shapes}
        attrs = self.symbol.attr_dict()
        for name in self.symbol.list_inputs():
            code = attrs.get(name, {}).get('__dtype__')
            if name in types and code is not None and code != '-1':
                types[name] = _DTYPE_CODE_TO_NP[int(code)]
        types.update({x.name: x.dtype for x in label_shapes or []})
        return types

    def _bind_ith_exec(self, i, data_shapes, label_shapes, shared_group):
        """simple_bind the symbol on context i, sharing parameters (and free memory) with
        the same device's executor of `shared_group`."""
        shapes = dict(data_shapes)
        shapes.update(dict(label_shapes or []))
        executor = self.symbol.simple_bind(
            ctx=self.contexts[i], grad_req=self.grad_req,
            type_dict=self._input_types(data_shapes, label_shapes),
            shared_arg_names=self.param_names,
            shared_exec=None if shared_group is None else shared_group.execs[i],
            group2ctx=self.group2ctxs[i], shared_buffer=self.shared_data_arrays[i], **shapes)
        self._total_exec_bytes += _exec_bytes(executor)
        return executor

    def _sliced_shape(self, shapes, i, major_axis):
        """Descriptors of device i's piece (batch axis cut to its slice)."""
        sliced = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            sliced.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return sliced

    def install_monitor(self, mon):
        """Install a mx.mon.Monitor on every executor."""
        for e in self.execs:
            mon.install(e)
