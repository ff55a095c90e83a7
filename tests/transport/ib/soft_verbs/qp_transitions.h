// The state machine of a reliable-connected queue pair as ibv_modify_qp enforces it:
// which transitions exist, and which attribute bits each requires and allows (the
// kernel's ib_modify_qp_is_ok table, for RC). An adapter refuses the rest with EINVAL,
// and so does the soft device, so a transport that forgets an attribute fails here as it
// would on hardware.
#pragma once

#include <infiniband/verbs.h>

#include <string>

namespace weft::testing::soft_verbs {

// Empty when `attr_mask` may take a queue pair from `current` to the state it names
// (attr->qp_state when IBV_QP_STATE is set, else `current`); else why not, naming the
// missing or unexpected bits.
std::string refuse_transition(ibv_qp_state current, ibv_qp_state next, int attr_mask);

// "IBV_QP_AV|IBV_QP_DEST_QPN" for a mask; "RTR" for a state.
std::string mask_names(int attr_mask);
std::string state_name(unsigned state);

}  // namespace weft::testing::soft_verbs
