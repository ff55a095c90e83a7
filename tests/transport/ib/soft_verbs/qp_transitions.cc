#include "tests/transport/ib/soft_verbs/qp_transitions.h"

#include <utility>

namespace weft::testing::soft_verbs {
namespace {

struct Rule {
  bool exists = false;
  int required = 0;
  int optional = 0;
};

// For RC, from the kernel's qp_state_table; SQD and SQE are not modelled.
Rule rule_for(ibv_qp_state from, ibv_qp_state to) {
  if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) return {true, 0, 0};
  switch (from) {
    case IBV_QPS_RESET:
      if (to == IBV_QPS_INIT) return {true, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS};
      break;
    case IBV_QPS_INIT:
      if (to == IBV_QPS_INIT) {
        return {true, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS};
      }
      if (to == IBV_QPS_RTR) {
        return {true,
                IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
                IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX};
      }
      break;
    case IBV_QPS_RTR:
      if (to == IBV_QPS_RTS) {
        return {true,
                IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                    IBV_QP_MAX_QP_RD_ATOMIC,
                IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
                    IBV_QP_PATH_MIG_STATE};
      }
      break;
    case IBV_QPS_RTS:
      if (to == IBV_QPS_RTS) {
        return {true, 0,
                IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                    IBV_QP_MIN_RNR_TIMER};
      }
      break;
    default:
      break;
  }
  return {};
}

}  // namespace

std::string state_name(unsigned state) {
  switch (state) {
    case IBV_QPS_RESET:
      return "RESET";
    case IBV_QPS_INIT:
      return "INIT";
    case IBV_QPS_RTR:
      return "RTR";
    case IBV_QPS_RTS:
      return "RTS";
    case IBV_QPS_SQD:
      return "SQD";
    case IBV_QPS_SQE:
      return "SQE";
    case IBV_QPS_ERR:
      return "ERR";
    default:
      return "state " + std::to_string(state);
  }
}

std::string mask_names(int attr_mask) {
  static const std::pair<int, const char*> kNames[] = {
      {IBV_QP_STATE, "IBV_QP_STATE"},
      {IBV_QP_CUR_STATE, "IBV_QP_CUR_STATE"},
      {IBV_QP_EN_SQD_ASYNC_NOTIFY, "IBV_QP_EN_SQD_ASYNC_NOTIFY"},
      {IBV_QP_ACCESS_FLAGS, "IBV_QP_ACCESS_FLAGS"},
      {IBV_QP_PKEY_INDEX, "IBV_QP_PKEY_INDEX"},
      {IBV_QP_PORT, "IBV_QP_PORT"},
      {IBV_QP_QKEY, "IBV_QP_QKEY"},
      {IBV_QP_AV, "IBV_QP_AV"},
      {IBV_QP_PATH_MTU, "IBV_QP_PATH_MTU"},
      {IBV_QP_TIMEOUT, "IBV_QP_TIMEOUT"},
      {IBV_QP_RETRY_CNT, "IBV_QP_RETRY_CNT"},
      {IBV_QP_RNR_RETRY, "IBV_QP_RNR_RETRY"},
      {IBV_QP_RQ_PSN, "IBV_QP_RQ_PSN"},
      {IBV_QP_MAX_QP_RD_ATOMIC, "IBV_QP_MAX_QP_RD_ATOMIC"},
      {IBV_QP_ALT_PATH, "IBV_QP_ALT_PATH"},
      {IBV_QP_MIN_RNR_TIMER, "IBV_QP_MIN_RNR_TIMER"},
      {IBV_QP_SQ_PSN, "IBV_QP_SQ_PSN"},
      {IBV_QP_MAX_DEST_RD_ATOMIC, "IBV_QP_MAX_DEST_RD_ATOMIC"},
      {IBV_QP_PATH_MIG_STATE, "IBV_QP_PATH_MIG_STATE"},
      {IBV_QP_CAP, "IBV_QP_CAP"},
      {IBV_QP_DEST_QPN, "IBV_QP_DEST_QPN"},
      {IBV_QP_RATE_LIMIT, "IBV_QP_RATE_LIMIT"},
  };
  std::string names;
  int rest = attr_mask;
  for (const auto& [bit, name] : kNames) {
    if ((attr_mask & bit) == 0) continue;
    names += (names.empty() ? "" : "|") + std::string(name);
    rest &= ~bit;
  }
  if (rest != 0) names += (names.empty() ? "" : "|") + std::to_string(rest);
  return names.empty() ? "0" : names;
}

std::string refuse_transition(ibv_qp_state current, ibv_qp_state next, int attr_mask) {
  const Rule rule = rule_for(current, next);
  const std::string transition = state_name(current) + " -> " + state_name(next);
  if (!rule.exists) return "no transition " + transition + " for an RC queue pair";
  const int missing = rule.required & ~attr_mask;
  if (missing != 0) return transition + " requires " + mask_names(missing);
  const int unexpected = attr_mask & ~(rule.required | rule.optional | IBV_QP_STATE);
  if (unexpected != 0) return transition + " does not take " + mask_names(unexpected);
  return "";
}

}  // namespace weft::testing::soft_verbs
