// The soft verbs device: a software "softib0" (or several devices, below) in place of
// libibverbs, whose reliable-connected queue pairs reach each other across the
// processes of one host, so that weft's verbs transport is tested where the kernel has
// no RDMA. Test code only: never linked into libweft. It is strict where hardware is: a protocol
// mistake of the transport (an RDMA WRITE before the peer said where, a SEND with no receive
// posted, a wrong key, an access out of bounds, a lost completion) fails with the completion status
// an adapter would give, and the reason on stderr ("softib0: ...") and in soft_verbs_last_error(),
// instead of quietly working.
//
// Using it
//   - Link //tests/transport/ib/soft_verbs:soft_verbs_from_env into the test binary (and
//     into any program the test starts, a testonly target) and set WEFT_TEST_SOFT_VERBS
//     (non-empty) in the environment of the processes: at start-up each one installs the
//     device as its verbs (use_verbs_for_testing), with no code in main. run_ranks()
//     passes the parent's environment on, or takes it in RunOptions::env; a cc_test's
//     `env` attribute sets it for the whole test.
//   - Or link :soft_verbs and call install_soft_verbs() (or pass soft_verbs_api()
//     where a VerbsApi is taken) in a single process.
//
// Environment (read by test code only; weft itself never reads these)
//   WEFT_TEST_SOFT_VERBS        non-empty: install the device at start-up (with
//                               :soft_verbs_from_env linked). An absolute path is also
//                               the fabric directory; any other value ("1") means the
//                               default directory below.
//   WEFT_TEST_SOFT_VERBS_FAULT  faults to inject, read when a process opens its first
//                               context: comma-separated NAME:N, counted per process,
//                               each firing once:
//                                 bad_rkey_after:N         the RDMA WRITE (with or without
//                                   immediate) after the first N goes out with a wrong
//                                   rkey (its completion: IBV_WC_REM_ACCESS_ERR)
//                                 drop_completion_after:N  the successful signaled send
//                                   completion after the first N is never delivered
//                               Anything else makes open_device fail with EINVAL.
//   WEFT_TEST_SOFT_VERBS_DMA_BUF
//                               "1": the table has ibv_reg_dmabuf_mr, as libibverbs 34
//                               and later have (otherwise it has none, as before 34).
//                               It registers the range at its iova, once it has checked
//                               that the descriptor's file is what this process maps
//                               there (dma_buf.h): the fake device runtime's memfds.
//   WEFT_TEST_SOFT_VERBS_DEVICES
//                               the devices (device_list.h), read once per process,
//                               when it first lists them: comma-separated NAME[:NUMA],
//                               such as "softib0:0,softib1:1" (at most 16; names of
//                               letters, digits, '_', '-' and '.'; NUMA, the node the
//                               device says it is attached to, an integer in
//                               [-1, 1023], -1 (unknown) when left out). Unset or
//                               empty: softib0 alone, its node unknown. Anything else
//                               makes get_device_list fail with EINVAL, the reason on
//                               stderr. Every process of a test must see the same list:
//                               a device's GIDs follow from its place in it.
//
// The fabric
//   The processes of a test meet in a directory: $WEFT_TEST_SOFT_VERBS when it is an
//   absolute path, else $TEST_TMPDIR/soft_verbs (Bazel removes TEST_TMPDIR after the
//   test), else /tmp/weft-soft-verbs-<process group id> (left behind, holding the file
//   "qpn"; remove it yourself). Nothing goes to /dev/shm. Its files, mapped MAP_SHARED:
//     qpn          the allocator of queue pair numbers (24-bit, unique in the fabric)
//     qp.<qpn>     a queue pair: state, attributes, owner pid, and its receive queue
//                  (removed when the queue pair is destroyed)
//     mr.<pid>.<n> a process's memory regions: keys, bounds, access, protection domain
//                  (removed when the process closes its last context)
//   A process that exits without destroying leaves its files there; its peers notice
//   that it exited all the same.
//
// The device
//   By default one device, softib0, with one port: ACTIVE, Ethernet link layer (RoCE),
//   active MTU 4096, LID 0, and two GIDs: 0 fe80::5eef:ff:fe00:1 (IB/RoCE v1), 1
//   ::ffff:127.0.0.1 (RoCE v2, IPv4-mapped). WEFT_TEST_SOFT_VERBS_DEVICES lists others
//   instead: the device at index k of the list is the same but for its GIDs, which end
//   in k + 1 (fe80::5eef:ff:fe00:<k+1>, ::ffff:127.0.0.<k+1>), and its node GUID; every
//   device is on the one fabric of the test, so a queue pair of one reaches a queue
//   pair of any other, as two NICs on one switch do. Each reports its NUMA node through
//   the table's device_numa_node (an entry of weft's own; the system's reads sysfs).
//   Limits, per device: max_qp_wr 16384, max_sge 16, max_cqe 65536, max_inline_data
//   256, max_qp_rd_atom 16, no atomics; max_mr 8192 per process.
//   Completion channels exist but their fd never becomes readable: a transport over the
//   soft device must busy-poll its CQs (weft's do, with a TCP doorbell to sleep on).
//
// What it enforces
//   - RC queue pairs only (another qp_type: EINVAL). modify_qp walks RESET -> INIT ->
//     RTR -> RTS (and any state -> ERR or RESET), requiring exactly the attribute bits
//     the kernel requires at each step and refusing the others, with EINVAL: to INIT
//     STATE|PKEY_INDEX|PORT|ACCESS_FLAGS; to RTR STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN|
//     MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER; to RTS STATE|TIMEOUT|RETRY_CNT|RNR_RETRY|
//     SQ_PSN|MAX_QP_RD_ATOMIC. At RTR the AV must carry a GRH (is_global) whose dgid is
//     a GID of one of the devices, and dest_qp_num must be a queue pair of the fabric.
//   - post_recv from INIT on; post_send in RTS only (else EINVAL with *bad_wr set). In
//     ERR both are accepted and complete with IBV_WC_WR_FLUSH_ERR. A full send queue
//     (max_send_wr requests whose completions, or a later one's, were not polled) or
//     receive queue answers ENOMEM.
//   - Every sge is checked against the local memory region of its lkey (registered, same
//     protection domain, in bounds; LOCAL_WRITE for receive buffers and READ
//     destinations): a bad one completes its request with IBV_WC_LOC_PROT_ERR and puts
//     the queue pair in ERR. Remote accesses need a registered rkey of the peer's
//     protection domain, in bounds, with REMOTE_WRITE (RDMA WRITE) or REMOTE_READ (READ)
//     both on the region and in the peer queue pair's qp_access_flags; otherwise
//     IBV_WC_REM_ACCESS_ERR and both queue pairs go to ERR. dereg_mr invalidates the
//     keys for everyone at once.
//   - The first request also checks that sq_psn here equals rq_psn there (else
//     IBV_WC_RETRY_EXC_ERR, as the peer would drop every packet).
//   - A CQ holding more completions than its cqe overruns: poll_cq returns -1 (errno
//     EOVERFLOW) from then on. Destroying or deallocating an object still in use
//     answers EBUSY, as the kernel does; an unknown or destroyed handle, EINVAL.
//
// How work moves
//   A send request is carried out when it is posted, by the posting process, as both
//   adapters would: a SEND takes the oldest receive the peer posted (its sges live in the
//   peer's qp.<qpn> file), checks it against the peer's region table and writes the
//   bytes straight into the peer's buffer with process_vm_writev; RDMA WRITE checks the
//   rkey and writes; WRITE_WITH_IMM writes, then consumes a receive
//   (IBV_WC_RECV_RDMA_WITH_IMM with byte_len and imm_data); READ checks and reads with
//   process_vm_readv. IBV_SEND_INLINE data is copied at post time. The sender's
//   completion is queued at once (when signaled, or with sq_sig_all); the receiver's
//   appears when it polls its receive CQ, in the order of its posted receives, with
//   byte_len, imm_data and IBV_WC_WITH_IMM, qp_num and src_qp.
//   A request that cannot go yet waits at the head of its send queue, holding back the
//   ones behind it, and is retried at every post_send and every poll_cq of a CQ the
//   queue pair uses (so the sender must keep polling, as it does to learn completions):
//     - RNR: the peer has no receive posted. Retried for rnr_retry times the RNR timer
//       that the peer's min_rnr_timer encodes (table 45 of the InfiniBand
//       specification, e.g. 12 = 0.64 ms); rnr_retry 7 retries for ever; 0 fails at
//       once. A receive found later counts only if posted before that deadline (each
//       posted receive carries its CLOCK_MONOTONIC time). Then the request completes
//       with IBV_WC_RNR_RETRY_EXC_ERR and the sender goes to ERR; the receiver is not
//       affected.
//     - The peer is in RESET or INIT: retried for (retry_cnt + 1) x 4.096 us x
//       2^timeout, then IBV_WC_RETRY_EXC_ERR.
//   Failing at once with IBV_WC_RETRY_EXC_ERR (sender to ERR): the peer's process
//   exited (watched with a pidfd, so a zombie counts), its queue pair was destroyed, is
//   in ERR, or is connected to another queue pair.
//   A message larger than the receive buffer completes at the receiver with
//   IBV_WC_LOC_LEN_ERR and at the sender with IBV_WC_REM_INV_REQ_ERR; a receive whose
//   buffer the receiver may not write, IBV_WC_LOC_PROT_ERR there and IBV_WC_REM_OP_ERR
//   here. In both, and after a remote access error, both queue pairs go to ERR.
//   A queue pair in ERR completes every outstanding and newly posted request, signaled
//   or not, with IBV_WC_WR_FLUSH_ERR, its receives when its receive CQ is polled. Other
//   errors always make a completion too, signaled or not.
//
// Threads: one process-wide mutex serialises every call. Across processes, every queue
// of the fabric has one producer and one consumer, published with release/acquire. A
// process that forks without exec must open the device in the child, not before the
// fork (run_ranks execs, so its ranks start clean).
#pragma once

#include <infiniband/verbs.h>

#include <string>

#include "transport/ib/verbs_api.h"

namespace weft::testing {

// The table of the soft device's verbs.
const transport::ib::VerbsApi& soft_verbs_api();

// Makes the soft device this process's verbs (use_verbs_for_testing), as
// :soft_verbs_from_env does at start-up when WEFT_TEST_SOFT_VERBS is set.
void install_soft_verbs();

// The fabric directory this process uses (above), whether or not it exists yet.
std::string soft_verbs_fabric_directory();

// Arms faults in this process, in WEFT_TEST_SOFT_VERBS_FAULT's syntax ("" for none),
// restarting their counts; the variable is not read afterwards. false, with the reason
// in *why, when `spec` does not parse.
bool set_soft_verbs_faults(const std::string& spec, std::string* why = nullptr);

// Why the device last refused a call or failed a work request in this process; "" if
// it never did.
std::string soft_verbs_last_error();

// "IBV_WC_REM_ACCESS_ERR" for a completion status (libibverbs' ibv_wc_status_str, which
// a test of weft does not link).
const char* wc_status_name(int status);

namespace soft_verbs {

// The entries of soft_verbs_api(), with the signatures of the VerbsApi it fills.
ibv_device** get_device_list(int* num_devices);
void free_device_list(ibv_device** list);
const char* get_device_name(ibv_device* device);
ibv_context* open_device(ibv_device* device);
int close_device(ibv_context* context);
int query_device(ibv_context* context, ibv_device_attr* attr);
int query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr);
int query_gid(ibv_context* context, uint8_t port, int index, ibv_gid* gid);
int query_gid_type(ibv_context* context, uint8_t port, int index, ibv_gid_type* type);
int device_numa_node(ibv_device* device);
ibv_pd* alloc_pd(ibv_context* context);
int dealloc_pd(ibv_pd* pd);
ibv_mr* reg_mr(ibv_pd* pd, void* addr, size_t length, int access);
int dereg_mr(ibv_mr* mr);
// In the table only where WEFT_TEST_SOFT_VERBS_DMA_BUF is set (soft_verbs_api()).
ibv_mr* reg_dmabuf_mr(ibv_pd* pd, uint64_t offset, size_t length, uint64_t iova, int fd,
                      int access);
ibv_comp_channel* create_comp_channel(ibv_context* context);
int destroy_comp_channel(ibv_comp_channel* channel);
ibv_cq* create_cq(ibv_context* context, int cqe, void* cq_context, ibv_comp_channel* channel,
                  int comp_vector);
int destroy_cq(ibv_cq* cq);
ibv_qp* create_qp(ibv_pd* pd, ibv_qp_init_attr* attr);
int modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask);
int destroy_qp(ibv_qp* qp);
int poll_cq(ibv_cq* cq, int num_entries, ibv_wc* wc);
int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr);
int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr);

}  // namespace soft_verbs
}  // namespace weft::testing
