// Which devices and ports WEFT_IB_HCA selects, in NCCL_IB_HCA's syntax, so that a job's
// existing setting carries over: a comma-separated list of name[:port]; a name
// matches every device whose name starts with it ("mlx5" takes mlx5_0 and mlx5_1)
// unless the list starts with "=" (exact names); a list starting with "^" (before any
// "=") names what to leave out instead. Unset: every device and port.
#pragma once

#include <string>
#include <vector>

namespace weft::transport::ib {

class HcaFilter {
 public:
  struct Entry {
    std::string name;
    int port = 0;  // 0: every port
  };

  HcaFilter() = default;  // selects everything

  // Parses a WEFT_IB_HCA value; InvalidArgument naming the variable and what is wrong
  // ("WEFT_IB_HCA=mlx5_0:x: port 'x' of mlx5_0 is not a number in [1, 255] ...").
  static HcaFilter parse(const std::string& text);
  // From the environment; selects everything when WEFT_IB_HCA is unset or empty.
  static HcaFilter from_env();

  bool selects(const std::string& device, int port) const;
  // Whether any port of `device` may be selected, so that a device left out entirely is
  // not even opened.
  bool may_select(const std::string& device) const;
  // "WEFT_IB_HCA=^mlx5_1", or "" when unset.
  const std::string& setting() const { return setting_; }
  // Whether the list names what to leave out (it starts with ^).
  bool excluding() const { return exclude_; }

 private:
  bool names(const Entry& entry, const std::string& device) const;

  std::string setting_;
  bool exclude_ = false;
  bool exact_ = false;
  std::vector<Entry> entries_;
};

}  // namespace weft::transport::ib
