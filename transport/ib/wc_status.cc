#include "transport/ib/wc_status.h"

#include <infiniband/verbs.h>

namespace weft::transport::ib {
namespace {

struct StatusName {
  int status;
  const char* name;
  const char* meaning;  // as ibv_wc_status_str words it
};

constexpr StatusName kStatuses[] = {
    {IBV_WC_SUCCESS, "IBV_WC_SUCCESS", "success"},
    {IBV_WC_LOC_LEN_ERR, "IBV_WC_LOC_LEN_ERR", "local length error"},
    {IBV_WC_LOC_QP_OP_ERR, "IBV_WC_LOC_QP_OP_ERR", "local QP operation error"},
    {IBV_WC_LOC_EEC_OP_ERR, "IBV_WC_LOC_EEC_OP_ERR", "local EE context operation error"},
    {IBV_WC_LOC_PROT_ERR, "IBV_WC_LOC_PROT_ERR", "local protection error"},
    {IBV_WC_WR_FLUSH_ERR, "IBV_WC_WR_FLUSH_ERR", "work request flushed"},
    {IBV_WC_MW_BIND_ERR, "IBV_WC_MW_BIND_ERR", "memory management operation error"},
    {IBV_WC_BAD_RESP_ERR, "IBV_WC_BAD_RESP_ERR", "bad response error"},
    {IBV_WC_LOC_ACCESS_ERR, "IBV_WC_LOC_ACCESS_ERR", "local access error"},
    {IBV_WC_REM_INV_REQ_ERR, "IBV_WC_REM_INV_REQ_ERR", "remote invalid request error"},
    {IBV_WC_REM_ACCESS_ERR, "IBV_WC_REM_ACCESS_ERR", "remote access error"},
    {IBV_WC_REM_OP_ERR, "IBV_WC_REM_OP_ERR", "remote operation error"},
    {IBV_WC_RETRY_EXC_ERR, "IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded"},
    {IBV_WC_RNR_RETRY_EXC_ERR, "IBV_WC_RNR_RETRY_EXC_ERR", "RNR retry counter exceeded"},
    {IBV_WC_LOC_RDD_VIOL_ERR, "IBV_WC_LOC_RDD_VIOL_ERR", "local RDD violation error"},
    {IBV_WC_REM_INV_RD_REQ_ERR, "IBV_WC_REM_INV_RD_REQ_ERR", "remote invalid RD request"},
    {IBV_WC_REM_ABORT_ERR, "IBV_WC_REM_ABORT_ERR", "aborted error"},
    {IBV_WC_INV_EECN_ERR, "IBV_WC_INV_EECN_ERR", "invalid EE context number"},
    {IBV_WC_INV_EEC_STATE_ERR, "IBV_WC_INV_EEC_STATE_ERR", "invalid EE context state"},
    {IBV_WC_FATAL_ERR, "IBV_WC_FATAL_ERR", "fatal error"},
    {IBV_WC_RESP_TIMEOUT_ERR, "IBV_WC_RESP_TIMEOUT_ERR", "response timeout error"},
    {IBV_WC_GENERAL_ERR, "IBV_WC_GENERAL_ERR", "general error"},
};

const StatusName* find(int status) {
  for (const StatusName& s : kStatuses) {
    if (s.status == status) return &s;
  }
  return nullptr;
}

}  // namespace

std::string wc_status_name(int status) {
  const StatusName* s = find(status);
  return s != nullptr ? s->name : "IBV_WC_STATUS_" + std::to_string(status);
}

std::string describe_wc_status(int status) {
  const StatusName* s = find(status);
  if (s == nullptr) return "unknown completion status (" + wc_status_name(status) + ")";
  return std::string(s->meaning) + " (" + s->name + ")";
}

}  // namespace weft::transport::ib
