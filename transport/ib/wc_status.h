// The names of verbs completion statuses, for the errors a failed work request becomes.
// libibverbs has ibv_wc_status_str, but weft calls nothing of the library by name
// (verbs_api.h), so it keeps its own table, worded as the library's.
#pragma once

#include <string>

namespace weft::transport::ib {

// "IBV_WC_REM_ACCESS_ERR"; "IBV_WC_STATUS_37" for a status the table does not know.
std::string wc_status_name(int status);

// "remote access error (IBV_WC_REM_ACCESS_ERR)".
std::string describe_wc_status(int status);

}  // namespace weft::transport::ib
