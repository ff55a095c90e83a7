#include "tests/transport/ib/soft_verbs/soft_verbs.h"

#include <cstdlib>
#include <iterator>
#include <mutex>

#include "tests/transport/ib/soft_verbs/device.h"
#include "tests/transport/ib/soft_verbs/fabric.h"
#include "tests/transport/ib/soft_verbs/faults.h"

namespace weft::testing {

const transport::ib::VerbsApi& soft_verbs_api() {
  static const transport::ib::VerbsApi api = [] {
    transport::ib::VerbsApi table;
    table.get_device_list = soft_verbs::get_device_list;
    table.free_device_list = soft_verbs::free_device_list;
    table.get_device_name = soft_verbs::get_device_name;
    table.open_device = soft_verbs::open_device;
    table.close_device = soft_verbs::close_device;
    table.query_device = soft_verbs::query_device;
    table.query_port = soft_verbs::query_port;
    table.query_gid = soft_verbs::query_gid;
    table.query_gid_type = soft_verbs::query_gid_type;
    table.device_numa_node = soft_verbs::device_numa_node;
    table.alloc_pd = soft_verbs::alloc_pd;
    table.dealloc_pd = soft_verbs::dealloc_pd;
    table.reg_mr = soft_verbs::reg_mr;
    table.dereg_mr = soft_verbs::dereg_mr;
    // Optional, as in libibverbs before 34: only where a test asks for GPUDirect RDMA by
    // dma-buf, so that the others see the table of an ordinary host.
    const char* dma_buf = std::getenv("WEFT_TEST_SOFT_VERBS_DMA_BUF");
    if (dma_buf != nullptr && std::string(dma_buf) == "1") {
      table.reg_dmabuf_mr = soft_verbs::reg_dmabuf_mr;
    }
    table.create_comp_channel = soft_verbs::create_comp_channel;
    table.destroy_comp_channel = soft_verbs::destroy_comp_channel;
    table.create_cq = soft_verbs::create_cq;
    table.destroy_cq = soft_verbs::destroy_cq;
    table.create_qp = soft_verbs::create_qp;
    table.modify_qp = soft_verbs::modify_qp;
    table.destroy_qp = soft_verbs::destroy_qp;
    table.poll_cq = soft_verbs::poll_cq;
    table.post_send = soft_verbs::post_send;
    table.post_recv = soft_verbs::post_recv;
    return table;
  }();
  return api;
}

void install_soft_verbs() { transport::ib::use_verbs_for_testing(&soft_verbs_api()); }

std::string soft_verbs_fabric_directory() { return soft_verbs::fabric_directory(); }

bool set_soft_verbs_faults(const std::string& spec, std::string* why) {
  std::string reason;
  const auto plan = soft_verbs::parse_fault_plan(spec, &reason);
  if (!plan) {
    if (why != nullptr) *why = reason;
    return false;
  }
  soft_verbs::Device& d = soft_verbs::device();
  std::lock_guard lock(d.mutex);
  d.faults.arm(*plan);
  d.faults_chosen = true;
  return true;
}

std::string soft_verbs_last_error() {
  soft_verbs::Device& d = soft_verbs::device();
  std::lock_guard lock(d.mutex);
  return d.last_error;
}

const char* wc_status_name(int status) {
  static const char* const kNames[] = {
      "IBV_WC_SUCCESS",           "IBV_WC_LOC_LEN_ERR",
      "IBV_WC_LOC_QP_OP_ERR",     "IBV_WC_LOC_EEC_OP_ERR",
      "IBV_WC_LOC_PROT_ERR",      "IBV_WC_WR_FLUSH_ERR",
      "IBV_WC_MW_BIND_ERR",       "IBV_WC_BAD_RESP_ERR",
      "IBV_WC_LOC_ACCESS_ERR",    "IBV_WC_REM_INV_REQ_ERR",
      "IBV_WC_REM_ACCESS_ERR",    "IBV_WC_REM_OP_ERR",
      "IBV_WC_RETRY_EXC_ERR",     "IBV_WC_RNR_RETRY_EXC_ERR",
      "IBV_WC_LOC_RDD_VIOL_ERR",  "IBV_WC_REM_INV_RD_REQ_ERR",
      "IBV_WC_REM_ABORT_ERR",     "IBV_WC_INV_EECN_ERR",
      "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
      "IBV_WC_RESP_TIMEOUT_ERR",  "IBV_WC_GENERAL_ERR",
  };
  static_assert(IBV_WC_GENERAL_ERR == 21);
  if (status < 0 || status >= static_cast<int>(std::size(kNames))) return "unknown status";
  return kNames[status];
}

}  // namespace weft::testing
