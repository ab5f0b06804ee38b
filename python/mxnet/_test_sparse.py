"""Random sparse arrays for mx.test_utils (MXNet 1.9 names and signatures): rand_sparse_ndarray,
create_sparse_array(_zd), the csr dataset generators and their input checks."""
import numpy as np
import numpy.random as rnd

from . import ndarray as nd

__all__ = ["rand_sparse_ndarray", "create_sparse_array", "create_sparse_array_zd",
           "shuffle_csr_column_indices"]


def _validate_csr_generation_inputs(num_rows, num_cols, density, distribution="uniform"):
    if density < 0 or density > 1:
        raise ValueError("density has to be between 0 and 1")
    if num_rows <= 0 or num_cols <= 0:
        raise ValueError("num_rows or num_cols should be greater than 0")
    if distribution == "powerlaw" and int(num_rows * num_cols * density) < 2 * num_rows:
        raise ValueError("not supported for this density: %s for this shape (%s, %s) Please "
                         "keep : num_rows * num_cols * density >= 2 * num_rows"
                         % (density, num_rows, num_cols))


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices within each row of a scipy csr matrix (in place): a valid
    but unsorted csr matrix."""
    for i in range(len(csr.indptr) - 1):
        begin, end = csr.indptr[i], csr.indptr[i + 1]
        part = np.array(csr.indices[begin:end])
        np.random.shuffle(part)
        csr.indices[begin:end] = part


def _uniform_csr(num_rows, num_cols, density, dtype, data_init=None, shuffle_csr_indices=False):
    """A CSRNDArray whose nonzeros sit at uniformly random positions (values in [0, 1))."""
    _validate_csr_generation_inputs(num_rows, num_cols, density)
    try:
        from scipy import sparse as spsp
    except ImportError:
        spsp = None
    if spsp is None:
        dense = rnd.rand(num_rows, num_cols)
        dense = (dense * (dense < density)).astype(dtype)
        return nd.array(dense, dtype=dtype).tostype("csr")
    csr = spsp.rand(num_rows, num_cols, density, dtype=dtype, format="csr")
    if data_init is not None:
        csr.data.fill(data_init)
    if shuffle_csr_indices:
        shuffle_csr_column_indices(csr)
    return nd.sparse.csr_matrix((csr.data, csr.indices, csr.indptr), shape=(num_rows, num_cols),
                                dtype=dtype)


def _powerlaw_csr(num_rows, num_cols, density, dtype):
    """A CSRNDArray whose rows hold 1, 2, 4, ... nonzeros (every row at least one) until
    num_rows * num_cols * density nonzeros are placed."""
    _validate_csr_generation_inputs(num_rows, num_cols, density, "powerlaw")
    left = int(num_rows * num_cols * density)
    out = np.zeros((num_rows, num_cols), dtype=dtype)
    done = lambda: nd.array(out, dtype=dtype).tostype("csr")  # noqa: E731
    for row in range(num_rows):
        out[row][0] = 1 + rnd.uniform(0.001, 2)
        left -= 1
        if left <= 0:
            return done()
    width = 2
    for row in range(num_rows):
        limit = min(num_cols, width)
        if limit == num_cols and left > limit:
            out[row] = 1 + rnd.uniform(0.001, 2)
            left -= limit - 1
            if left <= 0:
                return done()
            continue
        for col in range(1, limit):
            out[row][col] = 1 + rnd.uniform(0.001, 2)
            left -= 1
            if left <= 0:
                return done()
        width *= 2
    if left > 0:
        raise ValueError("not supported for this density: %s for this shape (%s,%s)"
                         % (density, num_rows, num_cols))
    return done()


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts: (rsp, (values, indices)) for 'row_sparse' (rows
    kept with probability density, or rsp_indices), (csr, (indptr, indices, data)) for 'csr'
    ('uniform' or 'powerlaw' distribution)."""
    from .test_utils import default_context, default_dtype, assign_each
    ctx = ctx if ctx else default_context()
    density = rnd.rand() if density is None else density
    dtype = default_dtype() if dtype is None else dtype
    distribution = "uniform" if distribution is None else distribution
    if stype == "row_sparse":
        assert distribution == "uniform", "Distribution %s not supported for row_sparse" \
            % distribution
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
            assert len(indices) <= shape[0]
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            return (nd.zeros(shape, stype="row_sparse", dtype=dtype, ctx=ctx),
                    (np.array([], dtype=dtype), np.array([])))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = assign_each(val, modifier_func)
        arr = nd.sparse.row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype == "csr":
        assert len(shape) == 2
        if distribution == "uniform":
            csr = _uniform_csr(shape[0], shape[1], density, dtype, data_init,
                               shuffle_csr_indices)
        elif distribution == "powerlaw":
            csr = _powerlaw_csr(shape[0], shape[1], density, dtype)
        else:
            raise AssertionError("Distribution not supported: %s" % distribution)
        csr = csr.as_in_context(ctx)
        return csr, (csr.indptr, csr.indices, csr.data)
    raise AssertionError("unknown storage type")


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=.5, shuffle_csr_indices=False):
    """A random sparse array (row_sparse indices sorted when given)."""
    if stype == "row_sparse":
        indices = None if rsp_indices is None else np.sort(np.asarray(rsp_indices))
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     rsp_indices=indices, dtype=dtype,
                                     modifier_func=modifier_func)
    elif stype == "csr":
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     dtype=dtype, modifier_func=modifier_func,
                                     shuffle_csr_indices=shuffle_csr_indices)
    else:
        raise AssertionError("Unknown storage type: " + stype)
    return arr


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """As create_sparse_array; a row_sparse array holds exactly the rows rsp_indices."""
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None:
            assert len(rsp_indices) <= shape[0]
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)
