// Collective operations over a group (default: the world).
//
// Every member of the group calls the same collectives in the same order, with the
// same root, op, dtype and matching counts. A process that is not a member takes no
// part, as in the original package: its call returns at once, doing nothing and
// checking none of its arguments (the asynchronous forms return a Request that has
// already completed); a destroyed group is still InvalidArgument. Threads may call
// collectives on different groups at once; on one group, calls from several threads must
// still be ordered the same way on every rank. Where ranks disagree (another collective,
// op, root, dtype or count) the call fails with DesyncError naming both calls, on every
// rank, instead of returning a wrong answer or hanging; a rank that had nothing to
// receive in it may have returned already, and its next collective on the group fails.
//
// Roots: an `int root` is a WORLD rank, in every group, as in the original package
// (broadcast(t, 1, g) takes world rank 1's data); one that is not a member of the group
// is InvalidArgument. Every rooted collective also takes GroupRank{r}, the group's rank
// r (weft/group.h). Ranks everywhere else below (slices, counts[r]) are group ranks.
//
// Buffers: "count" below is the count of the input tensor of the calling rank and
// n the group size. Out-of-place forms leave the input untouched. In-place forms:
//   all_reduce(t), reduce(t, root): the result replaces t (at the root, for reduce).
//   all_gather / gather: the input may be this rank's slice of the output
//     (input.data() == output.data() + rank * count elements); it is then not copied.
//   reduce_scatter: the output may be this rank's slice of the input.
// A non-root rank's output of reduce and gather, and the root's input of scatter's
// peers, are not used and may be empty tensors. Non-root tensors of reduce are left
// unchanged.
//
// Variable-count forms take one count per rank and optional displacements (element
// offsets into the gathered buffer; empty means packed one after another in rank order).
//
// The asynchronous forms (i-prefixed) return at once; the operation runs in the
// background, in call order, and the buffers belong to it until its Request completes.
// The Request's error is the collective's error.
//
// Reductions: kSum, kProduct, kMin, kMax, kAvg on every dtype; kBand, kBor, kBxor on
// integer dtypes only (InvalidArgument otherwise). kMin and kMax propagate NaN. kAvg
// is the sum divided by n at the end (integers: truncating division). float16 and
// bfloat16 are combined in float32 and rounded back to their own format after each
// pairwise step. Every rank ends with bitwise-identical all_reduce results. Every rank
// should pass the same op; where they differ, all_reduce and reduce_scatter raise
// DesyncError, while reduce is not checked: its shared-memory algorithm applies the
// root's op, its tree algorithms each rank's own over its subtree (MPI implementations
// behave alike there, and MPI programs in use depend on it).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "weft/group.h"
#include "weft/request.h"
#include "weft/tensor.h"
#include "weft/timeout.h"
#include "weft/types.h"

namespace weft {

using Counts = std::span<const uint64_t>;

// new_group: a group of the world ranks `ranks`, renumbered 0..size-1 in that order.
// Every world rank calls it (members or not) in the same order with the same list;
// it checks that they agree and fails with DesyncError naming the ranks that differ.
// No ranks, or an empty list, means every world rank (as the original's new_group()).
Group new_group(const std::vector<int>& ranks = {}, Timeout timeout = kDefaultTimeout);
// split_group: MPI_Comm_split over `parent`. Every member of `parent` calls it, in the
// same order as its other collectives on `parent`; members that pass the same color
// (>= 0) form one new group, ranked by (key, rank in parent). A negative color joins no
// group: the result is empty. Fails with InvalidArgument on a process outside `parent`.
std::optional<Group> split_group(const Group& parent, int color, int key,
                                 Timeout timeout = kDefaultTimeout);
// subgroup: MPI_Comm_create_group over `parent`. Only the members of the new group call
// it: the parent ranks `parent_ranks`, each with the same list (the new group's rank
// order) and the same `tag` (>= 0). The other members of `parent` take no part and may
// be doing anything meanwhile, collectives on `parent` included. Calls over one parent
// that may run at once on a common member must pass different tags (tags are told apart
// modulo 2^24). Fails with InvalidArgument on a bad list or on a process outside it or
// outside `parent`, and with DesyncError when the first member's list or tag differs.
// Note: threads of one process that create groups at the same time (new_group,
// split_group or subgroup) can block each other until the timeout while the groups set
// up their shared-memory arenas, which wait on the job's store over the process's one
// store connection; WEFT_SHM_ARENA_BYTES=0 avoids it.
Group subgroup(const Group& parent, const std::vector<int>& parent_ranks, int tag = 0,
               Timeout timeout = kDefaultTimeout);
// Releases a group's resources. Every member calls it; later use of any handle of the
// group fails with InvalidArgument. The world group cannot be destroyed this way.
void destroy_group(const Group& group);

void barrier(const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request ibarrier(const Group& group = Group());

void broadcast(const Tensor& tensor, int root, const Group& group = Group(),
               Timeout timeout = kDefaultTimeout);
Request ibroadcast(const Tensor& tensor, int root, const Group& group = Group());
void broadcast(const Tensor& tensor, GroupRank root, const Group& group = Group(),
               Timeout timeout = kDefaultTimeout);
Request ibroadcast(const Tensor& tensor, GroupRank root, const Group& group = Group());

void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::kSum, const Group& group = Group(),
                Timeout timeout = kDefaultTimeout);
void all_reduce(const Tensor& input, const Tensor& output, ReduceOp op = ReduceOp::kSum,
                const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request iall_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::kSum,
                    const Group& group = Group());
Request iall_reduce(const Tensor& input, const Tensor& output, ReduceOp op = ReduceOp::kSum,
                    const Group& group = Group());

void reduce(const Tensor& tensor, int root, ReduceOp op = ReduceOp::kSum,
            const Group& group = Group(), Timeout timeout = kDefaultTimeout);
void reduce(const Tensor& input, const Tensor& output, int root, ReduceOp op = ReduceOp::kSum,
            const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request ireduce(const Tensor& tensor, int root, ReduceOp op = ReduceOp::kSum,
                const Group& group = Group());
Request ireduce(const Tensor& input, const Tensor& output, int root, ReduceOp op = ReduceOp::kSum,
                const Group& group = Group());
void reduce(const Tensor& tensor, GroupRank root, ReduceOp op = ReduceOp::kSum,
            const Group& group = Group(), Timeout timeout = kDefaultTimeout);
void reduce(const Tensor& input, const Tensor& output, GroupRank root, ReduceOp op = ReduceOp::kSum,
            const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request ireduce(const Tensor& tensor, GroupRank root, ReduceOp op = ReduceOp::kSum,
                const Group& group = Group());
Request ireduce(const Tensor& input, const Tensor& output, GroupRank root,
                ReduceOp op = ReduceOp::kSum, const Group& group = Group());

// output: n * count elements, rank r's input at r * count.
void all_gather(const Tensor& input, const Tensor& output, const Group& group = Group(),
                Timeout timeout = kDefaultTimeout);
Request iall_gather(const Tensor& input, const Tensor& output, const Group& group = Group());

// The list forms of all_gather, gather and scatter, as the original's
// all_gather(tensor_list, tensor, group), gather(tensor, dst, gather_list, group) and
// scatter(tensor, src, scatter_list, group): a list holds one tensor per member, in
// group-rank order, each of `tensor`'s dtype and count, all in host memory
// (InvalidArgument naming the list's index otherwise). gather_list and scatter_list are
// used at the root (dst, src) only and may be empty elsewhere. They run as the flat
// forms over a staging buffer of the whole list: scatter copies its list in when called;
// all_gather and gather copy the result out once the collective has succeeded, before
// the call returns or the Request completes.
void all_gather(std::span<const Tensor> tensor_list, const Tensor& tensor,
                const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request iall_gather(std::span<const Tensor> tensor_list, const Tensor& tensor,
                    const Group& group = Group());

// output (root only): n * count elements.
void gather(const Tensor& input, const Tensor& output, int root, const Group& group = Group(),
            Timeout timeout = kDefaultTimeout);
Request igather(const Tensor& input, const Tensor& output, int root, const Group& group = Group());
void gather(const Tensor& input, const Tensor& output, GroupRank root, const Group& group = Group(),
            Timeout timeout = kDefaultTimeout);
Request igather(const Tensor& input, const Tensor& output, GroupRank root,
                const Group& group = Group());
// The list form (see all_gather's): `dst` (the root) ends with every member's tensor.
void gather(const Tensor& tensor, int dst, std::span<const Tensor> gather_list = {},
            const Group& group = Group(), Timeout timeout = kDefaultTimeout);
void gather(const Tensor& tensor, GroupRank dst, std::span<const Tensor> gather_list = {},
            const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request igather(const Tensor& tensor, int dst, std::span<const Tensor> gather_list = {},
                const Group& group = Group());
Request igather(const Tensor& tensor, GroupRank dst, std::span<const Tensor> gather_list = {},
                const Group& group = Group());

// input (root only): n * count elements, where count is the output's; rank r gets the
// r-th slice.
void scatter(const Tensor& input, const Tensor& output, int root, const Group& group = Group(),
             Timeout timeout = kDefaultTimeout);
Request iscatter(const Tensor& input, const Tensor& output, int root, const Group& group = Group());
void scatter(const Tensor& input, const Tensor& output, GroupRank root,
             const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request iscatter(const Tensor& input, const Tensor& output, GroupRank root,
                 const Group& group = Group());
// The list form (see all_gather's): each member's `tensor` gets its entry of `src`'s
// scatter_list.
void scatter(const Tensor& tensor, int src, std::span<const Tensor> scatter_list = {},
             const Group& group = Group(), Timeout timeout = kDefaultTimeout);
void scatter(const Tensor& tensor, GroupRank src, std::span<const Tensor> scatter_list = {},
             const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request iscatter(const Tensor& tensor, int src, std::span<const Tensor> scatter_list = {},
                 const Group& group = Group());
Request iscatter(const Tensor& tensor, GroupRank src, std::span<const Tensor> scatter_list = {},
                 const Group& group = Group());

// input: n * count elements where count is the output's; rank r ends with the
// reduction of every rank's r-th slice.
void reduce_scatter(const Tensor& input, const Tensor& output, ReduceOp op = ReduceOp::kSum,
                    const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request ireduce_scatter(const Tensor& input, const Tensor& output, ReduceOp op = ReduceOp::kSum,
                        const Group& group = Group());

// input and output: n * count elements; slice j of rank i's input becomes slice i of
// rank j's output. In place when input and output are the same tensor.
void all_to_all(const Tensor& input, const Tensor& output, const Group& group = Group(),
                Timeout timeout = kDefaultTimeout);
Request iall_to_all(const Tensor& input, const Tensor& output, const Group& group = Group());

// counts[r]: elements rank r contributes (input.count() must equal counts[rank]).
void all_gatherv(const Tensor& input, const Tensor& output, Counts counts, Counts displs = {},
                 const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request iall_gatherv(const Tensor& input, const Tensor& output, Counts counts, Counts displs = {},
                     const Group& group = Group());
void gatherv(const Tensor& input, const Tensor& output, Counts counts, int root, Counts displs = {},
             const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request igatherv(const Tensor& input, const Tensor& output, Counts counts, int root,
                 Counts displs = {}, const Group& group = Group());
void gatherv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
             Counts displs = {}, const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request igatherv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
                 Counts displs = {}, const Group& group = Group());
// counts[r]: elements of the reduction rank r receives; the input holds sum(counts)
// elements, rank r's part packed after those of the ranks before it (MPI's
// Reduce_scatter). In place when the output is this rank's part of the input.
void reduce_scatterv(const Tensor& input, const Tensor& output, Counts counts,
                     ReduceOp op = ReduceOp::kSum, const Group& group = Group(),
                     Timeout timeout = kDefaultTimeout);
Request ireduce_scatterv(const Tensor& input, const Tensor& output, Counts counts,
                         ReduceOp op = ReduceOp::kSum, const Group& group = Group());
// counts[r]: elements rank r receives (output.count() must equal counts[rank]).
void scatterv(const Tensor& input, const Tensor& output, Counts counts, int root,
              Counts displs = {}, const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request iscatterv(const Tensor& input, const Tensor& output, Counts counts, int root,
                  Counts displs = {}, const Group& group = Group());
void scatterv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
              Counts displs = {}, const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request iscatterv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
                  Counts displs = {}, const Group& group = Group());
// send_counts[j]: elements this rank sends to rank j, from send_displs[j] (packed when
// empty); recv_counts[i]: elements it receives from rank i, at recv_displs[i].
void all_to_allv(const Tensor& input, Counts send_counts, Counts send_displs, const Tensor& output,
                 Counts recv_counts, Counts recv_displs, const Group& group = Group(),
                 Timeout timeout = kDefaultTimeout);
Request iall_to_allv(const Tensor& input, Counts send_counts, Counts send_displs,
                     const Tensor& output, Counts recv_counts, Counts recv_displs,
                     const Group& group = Group());

}  // namespace weft
