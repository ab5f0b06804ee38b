// The table of every environment variable the framework reads; docs/env_var.md is generated
// from it (tools/gen_env_var_doc.py) and a test fails when the two disagree.
#include "common/env.h"

namespace mxnet {
namespace env {

const std::vector<VarInfo>& AllVars() {
  static const std::vector<VarInfo> vars = {
      // ---- Engine ----
      {"MXNET_ENGINE_TYPE", "string", "ThreadedEnginePerDevice",
       "NaiveEngine|ThreadedEngine|ThreadedEnginePerDevice|NaiveEngineAsync|ThreadedEngineAsync|"
       "ThreadedEnginePerDeviceAsync",
       "The dependency engine. NaiveEngine runs every operation synchronously in the pushing "
       "thread (useful for debugging); ThreadedEngine shares one worker pool of "
       "MXNET_CPU_WORKER_NTHREADS + MXNET_CPU_PRIORITY_NTHREADS threads (at least 2) between all "
       "devices; ThreadedEnginePerDevice keeps separate pools per device. An `Async` suffix is "
       "accepted as in MXNet and selects the same engine."},
      {"MXNET_CPU_WORKER_NTHREADS", "int", "1", "",
       "Worker threads per CPU device that run CPU operations in parallel (at least 1). Each "
       "operation is itself parallelized with OpenMP; set OMP_NUM_THREADS for that."},
      {"MXNET_OMP_ADAPTIVE_THREADS", "bool", "1", "",
       "When 1, an operation run by an engine worker uses fewer OpenMP threads than configured "
       "(OMP_NUM_THREADS, mx.util.set_num_omp_threads; at least one) while other work holds "
       "the cores: one fewer while a frontend thread (the Python thread) keeps pushing "
       "operations (for 5 ms or more, without a pause of a millisecond or a wait for results), and "
       "none on the cores other processes kept busy over the last 0.2 s (sampled from "
       "/proc/stat). A thread that waits for a core stalls the whole operation. Some oneDNN "
       "GEMMs and convolutions round differently for another thread count, so results can "
       "then differ in their last bits from run to run; 0, or MXNET_ENFORCE_DETERMINISM=1, "
       "always uses the configured count. docs/perf.md has the measurements."},
      {"MXNET_CPU_PRIORITY_NTHREADS", "int", "4", "",
       "Worker threads for CPU operations pushed as prioritized (FnProperty::kCPUPrioritized)."},
      {"MXNET_MP_WORKER_NTHREADS", "int", "1", "",
       "Engine worker threads per CPU pool in a forked child process (DataLoader workers, "
       "multiprocessing): after fork() the child restarts its engine with this many threads "
       "and one OpenMP thread, so several workers do not each claim every core."},
      {"MXNET_MP_OPENCV_NUM_THREADS", "int", "0", "",
       "OpenCV's own thread count (cv::setNumThreads) in a forked child process (DataLoader "
       "workers, multiprocessing); 0, the default, keeps OpenCV single-threaded there."},
      {"MXNET_GPU_WORKER_NTHREADS", "int", "2", "",
       "Worker threads (and CUDA streams) per GPU for computation."},
      {"MXNET_GPU_COPY_NTHREADS", "int", "2", "",
       "Worker threads per GPU for host-device copies."},
      {"MXNET_GPU_WORKER_NSTREAMS", "int", "1", "",
       "GPU engine (CUDA builds, ThreadedEnginePerDevice): CUDA streams per GPU worker thread. "
       "This engine gives each worker one non-blocking stream per GPU and waits for it after "
       "each operation, so 1 is the only value used; another value is read at engine start and "
       "logged as ignored (MXNet 1.9 accepted 2 to overlap auxiliary work)."},
      // ---- Storage ----
      {"MXNET_USE_NAIVE_STORAGE_MANAGER", "bool", "0", "",
       "When 1, every allocation goes straight to the system allocator and no pool is kept, "
       "whatever the MXNET_<DEV>_MEM_POOL_TYPE variables say."},
      {"MXNET_CPU_MEM_POOL_TYPE", "string", "Naive", "Naive|Round|Unpooled",
       "Pool strategy for CPU memory. Naive rounds each request up to a multiple of "
       "MXNET_CPU_MEM_POOL_PAGE_SIZE (large ones to a multiple of "
       "MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE) and reuses a freed block for a later request of the "
       "same rounded size; Round rounds to a power of two below 2^ROUND_LINEAR_CUTOFF bytes and "
       "to a multiple of 2^ROUND_LINEAR_CUTOFF above, so blocks are reused more often when sizes "
       "vary; Unpooled gives memory back to the system at once. A pool never holds more than "
       "twice the most memory its arrays have used at once: past that, cached blocks of sizes "
       "no longer asked for go back to the system, oldest first. (MXNet 1.9 did not pool CPU "
       "memory; these CPU variables follow MXNet 2.0.)"},
      {"MXNET_CPU_MEM_POOL_RESERVE", "int", "5", "",
       "Percentage of physical memory the CPU pool leaves to the system and other processes: "
       "when holding one more block would cross it, or the system's available memory "
       "(MemAvailable, which counts what other processes use) would drop below it, the pool "
       "first gives back what it caches."},
      {"MXNET_CPU_MEM_POOL_PAGE_SIZE", "int", "4096", "",
       "Naive pool: requests are rounded up to a multiple of this many bytes. Round pool: the "
       "smallest block; must be a power of two. At least 32."},
      {"MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE", "int", "2097152", "",
       "Naive pool: a request whose page-rounded size is larger than this is rounded up to a "
       "multiple of this size. 1 disables it."},
      {"MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "int", "24", "",
       "Round pool: requests up to 2^cutoff bytes are rounded up to a power of two (at least "
       "the page size); larger ones to a multiple of 2^cutoff. Between 20 and 34."},
      {"MXNET_CPU_PINNED_MEM_POOL_TYPE", "string", "Naive", "Naive|Round|Unpooled",
       "Pool strategy for CPU-pinned memory (as MXNET_CPU_MEM_POOL_TYPE). Without CUDA, or "
       "without a GPU, pinned memory is ordinary host memory."},
      {"MXNET_CPU_PINNED_MEM_POOL_RESERVE", "int", "5", "",
       "As MXNET_CPU_MEM_POOL_RESERVE, for CPU-pinned memory."},
      {"MXNET_CPU_PINNED_MEM_POOL_PAGE_SIZE", "int", "4096", "",
       "As MXNET_CPU_MEM_POOL_PAGE_SIZE, for CPU-pinned memory."},
      {"MXNET_CPU_PINNED_MEM_LARGE_ALLOC_ROUND_SIZE", "int", "2097152", "",
       "As MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE, for CPU-pinned memory."},
      {"MXNET_CPU_PINNED_MEM_POOL_ROUND_LINEAR_CUTOFF", "int", "24", "",
       "As MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF, for CPU-pinned memory."},
      {"MXNET_GPU_MEM_POOL_TYPE", "string", "Naive", "Naive|Round|Unpooled",
       "Pool strategy for GPU memory (as MXNET_CPU_MEM_POOL_TYPE)."},
      {"MXNET_GPU_MEM_POOL_RESERVE", "int", "5", "",
       "Percentage of GPU memory left for things other than arrays (kernel launches, cuDNN "
       "workspaces): when an allocation would eat into it, counting memory taken by others, the "
       "pool first gives back what it caches. Raise it if kernel launches fail with "
       "out-of-memory after many steps."},
      {"MXNET_GPU_MEM_POOL_PAGE_SIZE", "int", "4096", "",
       "As MXNET_CPU_MEM_POOL_PAGE_SIZE, for GPU memory."},
      {"MXNET_GPU_MEM_LARGE_ALLOC_ROUND_SIZE", "int", "2097152", "",
       "As MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE, for GPU memory; the default keeps large blocks "
       "whole 2 MiB driver slabs so that freeing them really returns memory."},
      {"MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "int", "24", "",
       "As MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF, for GPU memory."},
      // ---- Operators ----
      {"MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "bool", "1", "",
       "When 1, an operator that cannot compute on its sparse (row_sparse/csr) inputs directly "
       "logs once per operator and storage types that it runs on dense copies of them (storage "
       "fallback). 0 silences the message; the result is the same either way."},
      {"MXNET_INFER_STORAGE_TYPE_VERBOSE_LOGGING", "bool", "0", "",
       "When 1, binding a symbol (executor, simple_bind) logs the storage type of every entry "
       "and the dispatch mode of every node that the graph storage-type pass inferred."},
      {"MXNET_CPU_TEMP_COPY", "int", "4", "",
       "Copies of the temp space (operator scratch memory, taken from the CPU storage pool) "
       "kept per CPU device. Operators using one copy run one at a time, so more copies let "
       "more such operators run in parallel. A copy keeps blocks under 4 MiB between calls. "
       "Larger requests take a block shared by all copies of the device for the call: the "
       "smallest free one that fits, or a new one; the device keeps at most "
       "MXNET_CPU_WORKER_NTHREADS such blocks (the largest) between calls, so the copies do "
       "not each hold the largest request ever made."},
      {"MXNET_GPU_TEMP_COPY", "int", "1", "",
       "As MXNET_CPU_TEMP_COPY, per GPU."},
      {"MXNET_ENFORCE_DETERMINISM", "bool", "0", "",
       "When 1, operators that have a faster non-deterministic variant use the deterministic one, "
       "and engine workers keep the configured OpenMP thread count (see "
       "MXNET_OMP_ADAPTIVE_THREADS)."},
      {"MXNET_CUSTOM_OP_NUM_THREADS", "int", "16", "",
       "The most threads that run the Python forward/backward of custom operators "
       "(mx.operator). Threads start when every existing one is busy; each callback holds the "
       "Python GIL, so more threads help only when callbacks wait (for the engine or for "
       "nested custom operators). At least 1. With NaiveEngine callbacks run in the invoking "
       "thread instead."},
      {"MXNET_USE_OPERATOR_TUNING", "bool", "1", "",
       "When 1, a CPU operator loop (elementwise kernels, reductions, copies, sorts) stays on "
       "one thread below a size threshold and uses OpenMP from it (see "
       "MXNET_USE_NUM_CORES_OPERATOR_TUNING); when 0, every loop of 2 or more elements uses "
       "OpenMP. Read at each operator call. MXNet 1.9 also accepted a list of dtypes here; "
       "this build has one threshold for all dtypes, so only 0 and 1 are accepted."},
      {"MXNET_ENABLE_OPERATOR_TUNING", "bool", "1", "",
       "When 0, the size threshold is off, as with MXNET_USE_OPERATOR_TUNING=0. (MXNet 1.9 "
       "timed each operator at start-up to set per-operator thresholds; this build uses the "
       "fixed cost model of MXNET_USE_NUM_CORES_OPERATOR_TUNING instead, so nothing is timed.)"},
      {"OMP_WAIT_POLICY", "string", "", "ACTIVE|PASSIVE",
       "OpenMP's (libgomp's) own variable: whether a thread that finishes a parallel region "
       "spins before it sleeps. When neither it nor GOMP_SPINCOUNT is set, the Python package "
       "sets GOMP_SPINCOUNT=10000 instead (see there). PASSIVE sleeps at once: on a quiet "
       "2-core machine a sleeping thread takes ~0.1 ms to wake for the next region, which made "
       "a small MLP's training steps 1.7x slower than with short spinning (docs/perf.md). Read "
       "once, when libgomp loads."},
      {"GOMP_SPINCOUNT", "int", "10000", "",
       "libgomp's own variable: how many times a thread that finished a parallel region spins "
       "(about 10 ns each here) before it sleeps. The Python package sets 10000 (about 0.1 ms) "
       "before it loads the library when neither this nor OMP_WAIT_POLICY is set: enough to "
       "keep a team warm between the regions of one operator and between back-to-back "
       "operators, short enough not to hold a core others need for long; libgomp's own default "
       "(300000, several ms) took those cores on a busy machine (docs/perf.md). A program using "
       "the C API directly gets libgomp's default. Read once, when libgomp loads."},
      {"MXNET_USE_NUM_CORES_OPERATOR_TUNING", "int", "0", "",
       "The number of cores c the size threshold assumes; 0 means the number of OpenMP threads "
       "(OMP_NUM_THREADS, mx.util.set_num_omp_threads). A loop of n elements goes parallel when "
       "the time c cores save, n * (1 - 1/c) element operations, covers the cost of an OpenMP "
       "fork, taken as 16384 element operations: from n = ceil(16384 * c / (c - 1)), which is "
       "32768 for c = 2 and nears 16384 for many cores; with c = 1 loops never go parallel. "
       "Read at each operator call."},
      {"MXNET_SAFE_ACCUMULATION", "bool", "0", "",
       "MXNet 1.9 accumulated float16 reductions (sum, mean, norm, nansum, prod) in float16 "
       "unless this was 1, so large float16 sums overflowed to inf. This build always "
       "accumulates as MXNet does with 1 (float16 in float32, float32 in float64, integers in "
       "int64), so both values give the same, accurate results; the variable is accepted for "
       "compatibility and not read."},
      {"MXNET_ONEDNN_ENABLED", "bool", "1", "",
       "In a build with oneDNN (USE_ONEDNN, mx.runtime.Features() 'ONEDNN'): 0 makes every "
       "operator use its plain CPU kernel instead of oneDNN's primitive (results agree to "
       "float32 rounding). Read at each operator call. Without oneDNN in the build, no effect."},
      {"MXNET_MKLDNN_ENABLED", "bool", "1", "",
       "The old name of MXNET_ONEDNN_ENABLED (MXNet 1.x), read when the new one is not set."},
      {"MXNET_ONEDNN_CACHE_NUM", "int", "-1", "",
       "How many oneDNN primitives (one per operator, shapes and arguments) each engine thread "
       "keeps ready; beyond it the least recently used is dropped and rebuilt when needed. -1: "
       "no bound; 0: no cache (every call builds its primitive). Bound it when input shapes "
       "vary without end."},
      {"MXNET_MKLDNN_CACHE_NUM", "int", "-1", "",
       "The old name of MXNET_ONEDNN_CACHE_NUM (MXNet 1.x), read when the new one is not set."},
      {"MXNET_ONEDNN_WINOGRAD", "bool", "1", "",
       "oneDNN convolutions (float32) may run Winograd kernels (F(4x4, 3x3): 3x3 stride-1 "
       "convolutions with channels a multiple of 16, on AVX-512) where oneDNN finds them "
       "faster than direct ones for the shape (its convolution_auto): about 1.5x on "
       "ResNet-18's 3x3 convolutions, forward and backward. Their rounding differs: about 3x "
       "the mean and 6x the largest error of direct kernels against float64 (2e-6 of the "
       "largest output there). 0 runs direct kernels only, as MXNet 1.9.1. Read when a "
       "convolution runs (its primitives are cached per choice)."},
      {"MXNET_ONEDNN_BLOCKED_LAYOUT", "bool", "1", "",
       "Hybridized blocks (CachedOp): a value passed only between operators that read and "
       "write it in oneDNN's channel-blocked layout (2-D convolution and its gradient, fused "
       "convolution, max/avg pooling, BatchNorm on axis 1, activations, same-shape sums; "
       "float32 (N, C, H, W) with C a multiple of 16, or 8 without AVX-512) stays in it "
       "instead of being reordered to NCHW and back, in inference and in training (the "
       "forward values backward reads included). Graph outputs, inputs, their gradients and "
       "what other operators read stay NCHW; results are the same. 0 turns it off. Read when "
       "a graph is made (hybridize's first call). No effect without oneDNN."},
      // ---- Graph executor ----
      {"MXNET_EXEC_ENABLE_INPLACE", "bool", "1", "",
       "When 1, a bound executor's memory plan lets an operator that declares it can (ReLU, "
       "sigmoid, elementwise arithmetic, ...) write its output over an input that nothing "
       "reads afterwards, so the two share one block. 0 gives every output its own block "
       "(reused only after its last reader). In hybridized blocks (CachedOp) an output equal "
       "to its input (elemwise_add's gradient, identity) is the input's array itself when 1, "
       "a copy when 0."},
      {"MXNET_FUSE_BN_RELU", "bool", "1", "",
       "Hybridized blocks (CachedOp): a BatchNorm whose output only a ReLU (Activation "
       "relu, or relu) reads runs with it as one _contrib_BatchNormWithReLU node, whose "
       "kernels apply the ReLU in the normalization's own pass and its gradient in the "
       "normalization's backward, with the same results as the two ops. 0 turns it off. "
       "Read when a graph is made (hybridize's first call)."},
      {"NNVM_EXEC_MATCH_RANGE", "int", "16", "",
       "Memory planning of a bound executor: a value may take a free block at most this many "
       "times its size, or a free block down to 1/this of its size which is then grown; 1 "
       "reuses blocks of exactly the size only."},
      {"MXNET_EXEC_NUM_TEMP", "int", "1", "",
       "Temp spaces (operator scratch memory) a bound executor takes per context its nodes "
       "run on: it takes this many of the device's MXNET_CPU_TEMP_COPY / MXNET_GPU_TEMP_COPY "
       "shared copies when it is bound and gives them in turn to its operators that ask for "
       "temp space. Operators sharing one run one at a time; more lets more of them run in "
       "parallel, for more memory. The default, 1, is MXNet 1.9.1's one temp space per "
       "context per executor."},
      {"MXNET_ELIMINATE_COMMON_EXPR", "bool", "1", "",
       "When 1, binding a symbol (bind, simple_bind, Module) first merges nodes that apply the "
       "same deterministic operator with the same attributes to the same inputs, so each such "
       "expression is computed once; Executor.get_optimized_symbol shows the merged graph. Ops "
       "using random numbers or writing their inputs are never merged."},
      {"MXNET_BACKWARD_DO_MIRROR", "int", "0", "",
       "Mirroring (memonger): when not 0, training graphs (bind/simple_bind with gradients, "
       "Module, and hybridized Gluon blocks, read when the graph is built) keep fewer forward "
       "values for backward: the outputs of cheap deterministic operators (activations, "
       "elementwise arithmetic, pooling, reshapes, ...) are freed after forward and recomputed "
       "in backward from the values that are kept anyway (Convolution, FullyConnected, Concat "
       "and SoftmaxOutput outputs, variables). Dropout, random operators and operators that "
       "write their inputs (BatchNorm's moving statistics) are never recomputed. Saves memory "
       "for some extra forward work; results are the same. A node attribute "
       "force_mirroring='True' (__force_mirroring__) mirrors that node even when this is 0."},
      {"MXNET_EXEC_BULK_EXEC_INFERENCE", "bool", "1", "",
       "When 1, an inference run of a bound executor or of a hybridized block (CachedOp) "
       "pushes its operators to the engine in bulks (see mx.engine.bulk): consecutive "
       "synchronous operators on one device, up to the whole graph, become one engine task, "
       "which saves the engine's per-operator cost. A bulk ends at an operator that cannot "
       "join (asynchronous, another device, a copy). Ignored by NaiveEngine."},
      {"MXNET_EXEC_BULK_EXEC_TRAIN", "bool", "1", "",
       "When 1, training runs (forward with autograd recording or is_train, backward) of a "
       "bound executor, a hybridized block and autograd's backward push their operators in "
       "bulks of at most MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD / _BWD operators."},
      {"MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN", "int", "15", "",
       "Most operators in one bulk of a training run, forward and backward, unless "
       "MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD or _BWD says otherwise. 0 disables bulking."},
      {"MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD", "int", "15", "",
       "Most operators in one bulk of a training forward run; when unset, "
       "MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN."},
      {"MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD", "int", "15", "",
       "Most operators in one bulk of a backward run; when unset, "
       "MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN."},
      {"MXNET_ENABLE_CUDA_GRAPHS", "bool", "0", "",
       "When 1, MXNet 1.9.1 captures the bulks of a GPU executor's (and a static hybridized "
       "block's) operators as CUDA graphs and replays them. Read when an executor is bound; "
       "this build has no GPU backend yet, so a bind with it set logs once that it is "
       "ignored, and it takes effect once the GPU backend exists."},
      // ---- Subgraph backends ----
      {"MXNET_SUBGRAPH_BACKEND", "string", "", "",
       "The subgraph backend Symbol.bind and simple_bind partition the graph with before "
       "running it: ONEDNN (old name MKLDNN) fuses convolution + batch norm + activation + sum "
       "and FullyConnected + activation into oneDNN primitives with post-ops; default and "
       "default_v2 are the test backends (ops named through MXSetSubgraphPropertyOpNames). "
       "Unset, empty or NONE: no partitioning. An unknown name fails the bind naming it. Read "
       "at each bind. optimize_for and hybridize(backend=...) name their backend directly."},
      {"MXNET_SUBGRAPH_VERBOSE", "int", "1", "",
       "Logging of graph partitioning: 0 silent, 1 logs the backend applied, 2 also each "
       "property (pattern) applied."},
      {"MXNET_DISABLE_MKLDNN_CONV_OPT", "bool", "0", "",
       "1: the ONEDNN (MKLDNN) subgraph backend fuses no convolution. Read at the first "
       "partitioning."},
      {"MXNET_DISABLE_MKLDNN_FUSE_CONV_BN", "bool", "0", "",
       "1: the ONEDNN backend does not fold a BatchNorm into the convolution before it."},
      {"MXNET_DISABLE_MKLDNN_FUSE_CONV_RELU", "bool", "0", "",
       "1: the ONEDNN backend does not fuse activations into convolutions."},
      {"MXNET_DISABLE_MKLDNN_FUSE_CONV_SUM", "bool", "0", "",
       "1: the ONEDNN backend does not fuse a residual elemwise add into convolutions."},
      {"MXNET_DISABLE_MKLDNN_FC_OPT", "bool", "0", "",
       "1: the ONEDNN backend fuses nothing into FullyConnected."},
      {"MXNET_DISABLE_MKLDNN_FUSE_FC_ELTWISE", "bool", "0", "",
       "1: the ONEDNN backend does not fuse activations into FullyConnected."},
      // ---- Profiler ----
      {"MXNET_PROFILER_AUTOSTART", "bool", "0", "",
       "When 1, the profiler starts when the library loads, recording what MXNET_PROFILER_MODE "
       "selects, and writes profile.json in the working directory at process exit."},
      {"MXNET_PROFILER_MODE", "int", "13", "",
       "What the autostarted profiler records, a bitmask: 1 symbolic (graph) operators, 2 "
       "imperative operators, 4 C API calls, 8 memory. The default (13, as MXNet) leaves out "
       "imperative operators; use 15 to record everything."},
      // ---- Python front ----
      {"MXNET_LIBRARY_PATH", "string", "", "",
       "Absolute path of the libmxnet.so the Python package loads instead of its own."},
      {"MXNET_HOME", "string", "~/.mxnet", "",
       "Folder where mx.base.data_dir() and the downloading helpers (mx.test_utils.download "
       "callers, model stores) keep data; read at each call."},
      {"MXNET_OPTIMIZER_AGGREGATION_SIZE", "int", "4", "",
       "How many weights of one dtype the SGD and LARS optimizers (mx.optimizer) update in one "
       "fused multi-weight operator call when an Updater or Trainer hands them several; LAMB "
       "reads it too, with default 45 and at most 45. 0 updates weights one at a time. Read "
       "when the optimizer is created."},
      {"MXNET_UPDATE_ON_KVSTORE", "bool", "1", "",
       "gluon.Trainer's default for update_on_kvstore when it uses a KVStore (parameters on "
       "several contexts): 1 runs the optimizer in the KVStore on the summed gradient and "
       "pulls the new weights, 0 pulls the summed gradient and updates each context's copy. "
       "With kvstore='local' and a parameter above 16M elements it becomes 0, as in MXNet. "
       "Read when the Trainer first steps."},
      // ---- KVStore ----
      {"MXNET_KVSTORE_REDUCTION_NTHREADS", "int", "4", "",
       "Threads that sum the arrays pushed to a 'local' or 'device' KVStore from several "
       "contexts, for arrays of at least MXNET_KVSTORE_BIGARRAY_BOUND elements (smaller ones "
       "are summed by one thread). Read when the store is created."},
      {"MXNET_KVSTORE_BIGARRAY_BOUND", "int", "1000000", "",
       "Arrays with at least this many elements are summed by MXNET_KVSTORE_REDUCTION_NTHREADS "
       "threads in chunks of min(this, 4096) elements. A distributed store ('dist_*') also "
       "splits an array of at least this many elements over all the servers (a smaller one "
       "goes whole to one server), as MXNet. Read when the store is created."},
      // ---- Distributed KVStore (parameter server; tools/launch.py sets the DMLC_* ones) ----
      {"DMLC_ROLE", "string", "worker", "worker|server|scheduler",
       "This process's role in a distributed job. A server or scheduler runs its loop at "
       "`import mxnet` and exits when the job ends, as in MXNet."},
      {"DMLC_PS_ROOT_URI", "string", "", "",
       "Address of the scheduler (required by every node of a distributed job)."},
      {"DMLC_PS_ROOT_PORT", "int", "0", "",
       "Port the scheduler listens on (required). A port already in use fails with an error "
       "naming it."},
      {"DMLC_NUM_SERVER", "int", "0", "", "Number of server processes of the job (required)."},
      {"DMLC_NUM_WORKER", "int", "0", "", "Number of worker processes of the job (required)."},
      {"DMLC_INTERFACE", "string", "", "",
       "Network interface (e.g. eth0) whose IPv4 address this node announces to the others. "
       "Unset: loopback when the scheduler is on loopback, else the first interface that is up "
       "and not loopback."},
      {"DMLC_NODE_HOST", "string", "", "",
       "Address this node announces to the others; overrides DMLC_INTERFACE."},
      {"DMLC_PS_SECRET", "string", "", "",
       "A job's shared secret: every message carries a token derived from it, and a node "
       "drops (and logs) messages whose token differs, so a process of another job or with a "
       "wrong secret cannot join or disturb this one. tools/launch.py sets a fresh one per job "
       "unless it is already set. A token, not encryption: use a private network."},
      {"PS_VERBOSE", "int", "0", "0|1|2",
       "Parameter-server logging: 1 logs each node joining and its address, 2 also every "
       "message sent and received."},
      {"PS_HEARTBEAT_INTERVAL", "float", "1", "",
       "Seconds between the heartbeats each node sends the scheduler (0 turns heartbeats and "
       "failure detection off). ps-lite's default is 0; this one is on so that a dead node "
       "is noticed."},
      {"PS_HEARTBEAT_TIMEOUT", "float", "60", "",
       "A node the scheduler has not heard from for this many seconds is declared dead, and "
       "a node that has not heard from the scheduler for that long gives up on it: every "
       "other node then fails its pending push, pull and barrier with an MXNetError naming "
       "the node, instead of hanging (0: never)."},
      {"PS_CONNECT_TIMEOUT", "float", "300", "",
       "Seconds a node waits for the job's nodes to meet at the scheduler before failing with "
       "an error saying how many arrived."},
      {"PS_RESEND", "bool", "0", "",
       "Reliable delivery between the nodes of a distributed job, as ps-lite's: every message "
       "is numbered and acknowledged by its receiver, one not acknowledged within "
       "PS_RESEND_TIMEOUT ms is sent again, and receivers drop the duplicates. Set it the same "
       "on every node."},
      {"PS_RESEND_TIMEOUT", "float", "1000", "",
       "With PS_RESEND: milliseconds after which an unacknowledged message is sent again."},
      {"PS_DROP_MSG", "int", "0", "",
       "Testing, as ps-lite's: each node drops this percentage of the messages it receives "
       "(not the registrations), to exercise PS_RESEND; without PS_RESEND a lost request is "
       "never replaced and the job stalls. Never set it in real jobs."},
      {"MXNET_KVSTORE_SLICE_THRESHOLD", "int", "40000", "",
       "dist_p3: the most elements of one slice. A key's array is cut into slices of this "
       "many elements, given to the servers round-robin, and each slice is pushed and pulled "
       "as its own message, so that a layer needed sooner (higher priority) can pass the "
       "slices of the others. Read when a key is initialized."},
      {"DMLC_PS_WATER_MARK", "int", "10", "",
       "dist_p3: the most slice requests a worker keeps in flight; the others wait in priority "
       "order (highest first, in order of issue within a priority). launch.py --p3 sets 10, "
       "as MXNet's (ps-lite: the bound on outstanding messages). Read when a dist_p3 store is "
       "created."},
      {"MXNET_KVSTORE_USETREE", "bool", "0", "",
       "1: a 'device' KVStore (and the device side of 'dist_*_device') sums each key along a "
       "binary tree of the pushing devices and copies pulled values down it, as MXNet's "
       "CommDeviceTree. The trees (one per root device) are planned at the first push from "
       "several devices: over the GPUs' NVLink/P2P link weights, or, for CPU contexts, every "
       "pair alike. Compressed and row_sparse pushes are summed as without it. Unlike MXNet, "
       "also in builds without CUDA and for mx.cpu(i) contexts. Read when the store is "
       "created."},
      {"MXNET_KVSTORE_LOGTREE", "bool", "0", "",
       "With MXNET_KVSTORE_USETREE=1: log (INFO) the link matrices and every reduction tree "
       "when the trees are planned, in MXNet's layout."},
      {"MXNET_KVSTORE_TREE_ARRAY_BOUND", "int", "10000000", "",
       "With MXNET_KVSTORE_USETREE=1: a key of more elements than this, whose first dimension "
       "is at least twice the number of devices, is cut into one block of rows per device; "
       "block r is summed along the tree rooted at device r and copied back down it, so all "
       "trees (and links) share the work. Read when the store is created."},
      {"MXNET_KVSTORE_TREE_BACKTRACK", "bool", "0", "",
       "With MXNET_KVSTORE_USETREE=1: 1 plans the trees by backtracking search (exhaustive up "
       "to 8 devices, else the first tree found) instead of recursive Kernighan-Lin graph "
       "partitioning (which also falls back to the search when it finds no tree of minimal "
       "depth). Read when the store is created."},
      {"MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY", "float", "0.7", "",
       "With MXNET_KVSTORE_USETREE=1: after each tree is planned, the weights of the links it "
       "uses are multiplied by this, so the trees of later roots prefer other links (1: no "
       "penalty). Read when the store is created."},
      {"MXNET_ENABLE_GPU_P2P", "bool", "1", "",
       "Let the 'device' KVStore enable peer access (cudaDeviceEnablePeerAccess) between the "
       "GPUs that push a key, where the hardware allows it, warning with the access matrix when "
       "some pair cannot, as MXNet. Read when a 'device' store is created; used at its first "
       "push (USE_CUDA builds)."},
      {"MXNET_ENABLE_CYTHON", "bool", "1", "",
       "MXNet 1.9 chose between its Cython and ctypes bindings with this. This package has one "
       "binding, the compiled pybind11 extension mxnet._ffi, which is always used; the ctypes "
       "library handle mx.base._LIB exists beside it for C API calls. Setting 0 logs a warning "
       "at import that the extension is used anyway."},
      {"MXNET_ENFORCE_CYTHON", "bool", "0", "",
       "When 1, `import mxnet` fails with an ImportError naming this variable and the loader's "
       "error if the compiled extension mxnet._ffi cannot load. (There is no fallback binding, "
       "so import fails without it too, with the plain loader error.)"},
      // ---- Logging ----
      {"DMLC_LOG_STACK_TRACE_DEPTH", "int", "0", "",
       "Read by dmlc-core's logging: frames of the stack trace appended to a fatal error's "
       "message. This library compiles dmlc logging with DMLC_LOG_STACK_TRACE=0 (errors are "
       "raised as MXNetError with the message alone), so no trace is collected and the "
       "variable has no effect."},
  };
  return vars;
}

}  // namespace env
}  // namespace mxnet
