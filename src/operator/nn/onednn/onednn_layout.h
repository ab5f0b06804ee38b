// Values a graph keeps in oneDNN's channel-blocked layout between oneDNN operators: what an
// operator declares it can read and write that way, the marks a graph pass puts on its nodes,
// and what a marked kernel reads from them. Light: no oneDNN header.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LAYOUT_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LAYOUT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mxnet/op_attr_types.h"
#include "nnvm/node.h"

namespace mxnet {
namespace op {
namespace onednn {

/*!
 * \brief The contract. A value "held blocked" is a float32 4-D (N, C, H, W) array with C a
 * multiple of BlockSize() whose buffer holds oneDNN's nChw{B}c layout (B = BlockSize()):
 * element (n, c, h, w) at ((n * C/B + c/B) * H * W + h * W + w) * B + c % B. Same size as
 * NCHW, no padding, so elementwise work on equal-shape values does not depend on it.
 * A value of another shape or dtype is never held blocked, whatever its marks say; so the
 * node writing a marked value and the nodes reading it decide alike from its shape alone.
 */
int BlockSize();
bool BlockedShape(const TShape& shape, int dtype);

/*! \brief Inputs and outputs of a node that can be held blocked together: all of them are,
 *  or none (an elementwise op's operands and result; a fused sum operand and the output it
 *  is added into). Separate groups are independent. */
struct LayoutGroup {
  std::vector<uint32_t> inputs, outputs;
};
/*! \brief Op attribute "FBlockedLayout": the groups this node can run with held blocked;
 *  every input and output in none stays plain. An op declaring it honours the marks in every
 *  kernel path it has (BlockedIn / BlockedOut below, OnPlainCopies where it has no blocked
 *  kernel). Only a graph pass over values users never see sets marks (CachedOp). */
using FBlockedLayout = std::function<std::vector<LayoutGroup>(const nnvm::NodeAttrs&)>;

/*! \brief The groups of an elementwise op whose inputs and outputs all have one shape (an
 *  activation, a same-shape sum, their gradients): all of them together, whose buffers it
 *  reads and writes element by element whatever their layout. */
std::vector<LayoutGroup> ElementwiseLayoutGroups(const nnvm::NodeAttrs& attrs);

/*! \brief The marks of a node: bit i of in / out set when input / output i is held blocked
 *  (if BlockedShape). Stored in the node's dict under kMarkKey, which no parser reads. */
struct LayoutMarks {
  uint64_t in{0}, out{0};
  bool any() const { return in != 0 || out != 0; }
};
extern const char* const kMarkKey;
LayoutMarks MarksOf(const nnvm::NodeAttrs& attrs);
/*! \brief attrs with marks m (a copy; parsed state shared). */
nnvm::NodeAttrs WithMarks(const nnvm::NodeAttrs& attrs, const LayoutMarks& m);

/*! \brief Whether input / output i of this call holds the blocked layout. */
bool BlockedIn(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& in, uint32_t i);
bool BlockedOut(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& out, uint32_t i);
/*! \brief Whether any input or output of this call holds it. */
bool AnyBlocked(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<TBlob>& out);

/*! \brief Runs kernel (a plain-layout kernel) on plain copies of the blocked inputs and
 *  outputs of this call and moves the results back into the blocked outputs, honouring req.
 *  The path of a marked node whose blocked kernel does not take this call (oneDNN off, an
 *  unsupported geometry): correct, not fast. */
void OnPlainCopies(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                   const std::function<void(const std::vector<TBlob>&,
                                            const std::vector<OpReqType>&,
                                            const std::vector<TBlob>&)>& kernel);

/*! \brief Which activation tensors of one oneDNN call are held blocked (the rest plain):
 *  forward src (data) and dst (output); backward also diff_dst and diff_src. */
struct BlockedActs {
  bool src{false}, dst{false}, diff_src{false}, diff_dst{false};
};

/*! \brief The suffix a primitive cache key takes for acts (empty when nothing is blocked). */
std::string ActsKey(const BlockedActs& acts);

/*! \brief The element copies between NCHW and the blocked layout (shape (N, C, H, W), C a
 *  multiple of BlockSize()); plain loops, no oneDNN primitive. */
void ToBlocked(const TShape& shape, const float* plain, float* blocked);
void ToPlain(const TShape& shape, const float* blocked, float* plain);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LAYOUT_H_
