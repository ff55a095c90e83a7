#include "rendezvous/hostlist.h"

#include <algorithm>
#include <cstdint>

#include "weft/error.h"

namespace weft::rendezvous {
namespace {

// Numbers in brackets have at most this many digits, so that every bound and every
// range size fits in a uint64_t with room to spare.
constexpr size_t kMaxDigits = 18;

// Lists longer than this are cut short when quoted in an error message.
constexpr size_t kMaxQuoted = 200;

// One entry of a bracket group: the numbers lo..hi, printed at least `width` digits
// wide (the width of lo as written, so "08-10" keeps its zero).
struct Range {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

using Group = std::vector<Range>;

// One comma-separated item: literals[0] group[0] literals[1] group[1] ... literals[n],
// so there is always one more literal (possibly empty) than there are groups.
struct Item {
  std::vector<std::string> literals{std::string()};
  std::vector<Group> groups;
};

// Reports faults in the list as "<what> '<list>': <detail>".
class Parser {
 public:
  Parser(const std::string& list, const std::string& what) : list_(list), what_(what) {}

  [[noreturn]] void fail(const std::string& detail) const {
    std::string quoted = list_.size() <= kMaxQuoted ? list_ : list_.substr(0, kMaxQuoted) + "...";
    throw InvalidArgument(what_ + " '" + quoted + "': " + detail);
  }

  // Splits the list into items and checks every one; counts the hosts as it goes, so a
  // list naming too many fails here, before anything is expanded.
  std::vector<Item> parse() {
    if (list_.empty()) fail("the hostlist is empty");
    std::vector<Item> items;
    size_t at = 0;
    uint64_t hosts = 0;
    while (true) {
      size_t start = at;
      Item item = parse_item(at);  // stops at a top-level ',' or the end
      if (item.groups.empty() && item.literals[0].empty()) {
        fail("item " + std::to_string(items.size() + 1) + " (at offset " + std::to_string(start) +
             ") is empty");
      }
      hosts += count(item, kMaxHosts - hosts);
      items.push_back(std::move(item));
      if (at == list_.size()) break;
      ++at;  // past the ','
    }
    hosts_ = hosts;
    return items;
  }

  // The hosts the list names; after parse().
  uint64_t hosts() const { return hosts_; }

 private:
  // Reads one item from `at` up to a top-level ',' or the end of the list.
  Item parse_item(size_t& at) {
    Item item;
    while (at < list_.size()) {
      char c = list_[at];
      if (c == ',') break;
      if (c == ']') fail("']' at offset " + std::to_string(at) + " has no matching '['");
      if (c == '[') {
        size_t open = at;
        size_t close = list_.find_first_of("[]", open + 1);
        if (close == std::string::npos) {
          fail("'[' at offset " + std::to_string(open) + " is never closed");
        }
        if (list_[close] == '[') {
          fail("'[' at offset " + std::to_string(close) + " is nested inside the '[' at offset " +
               std::to_string(open));
        }
        item.groups.push_back(parse_group(open, close));
        item.literals.emplace_back();
        at = close + 1;
        continue;
      }
      check_character(at);
      item.literals.back() += c;
      ++at;
    }
    return item;
  }

  // Parses the ranges between the brackets at offsets `open` and `close`.
  Group parse_group(size_t open, size_t close) {
    std::string text = list_.substr(open + 1, close - open - 1);
    std::string where = "'[" + text + "]' at offset " + std::to_string(open);
    if (text.empty()) fail("the brackets " + where + " are empty");
    Group group;
    size_t start = 0;
    while (true) {
      size_t comma = text.find(',', start);
      std::string entry = text.substr(start, comma == std::string::npos ? comma : comma - start);
      if (entry.empty()) fail("an entry of " + where + " is empty");
      size_t dash = entry.find('-');
      Range range;
      std::string lo = entry.substr(0, dash);
      std::string hi = dash == std::string::npos ? lo : entry.substr(dash + 1);
      range.lo = parse_number(lo, entry, where);
      range.hi = parse_number(hi, entry, where);
      range.width = lo.size();
      if (range.lo > range.hi) {
        fail("the range '" + entry + "' in " + where + " has its lower bound above its upper one");
      }
      group.push_back(range);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return group;
  }

  uint64_t parse_number(const std::string& digits, const std::string& entry,
                        const std::string& where) const {
    if (digits.empty()) {
      fail("'" + entry + "' in " + where + " is not a number or a range lo-hi");
    }
    for (char c : digits) {
      if (c < '0' || c > '9') {
        fail("'" + entry + "' in " + where + " is not a number or a range lo-hi");
      }
    }
    if (digits.size() > kMaxDigits) {
      fail("the number '" + digits + "' in " + where + " has more than " +
           std::to_string(kMaxDigits) + " digits");
    }
    uint64_t value = 0;
    for (char c : digits) value = value * 10 + static_cast<uint64_t>(c - '0');
    return value;
  }

  // Host names hold no whitespace or control characters; reject them rather than
  // passing on a name no resolver would take.
  void check_character(size_t at) const {
    auto c = static_cast<unsigned char>(list_[at]);
    if (c <= ' ' || c == 0x7f) {
      fail("character " + std::to_string(c) + " at offset " + std::to_string(at) +
           " is whitespace or a control character");
    }
  }

  // The hosts `item` names, failing once they exceed `room`.
  uint64_t count(const Item& item, uint64_t room) const {
    // Sizes are capped at kMaxHosts + 1 (already too many) so nothing can overflow: a
    // range spans under 10^18 numbers, and a product of two capped values is about 10^12.
    constexpr uint64_t kTooMany = kMaxHosts + 1;
    uint64_t product = 1;
    for (const Group& group : item.groups) {
      uint64_t size = 0;
      for (const Range& r : group) size = std::min(size + (r.hi - r.lo + 1), kTooMany);
      product = std::min(product * size, kTooMany);
      if (product > room) break;
    }
    if (product > room) fail("it names more than " + std::to_string(kMaxHosts) + " hosts");
    return product;
  }

  const std::string& list_;
  const std::string& what_;
  uint64_t hosts_ = 0;
};

// `value` in decimal, zero-padded to at least `width` digits.
std::string padded(uint64_t value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// Appends every host of `item` to `out`, the first group varying slowest.
void expand_item(const Item& item, std::vector<std::string>& out) {
  // An odometer over the groups: for each group, which range and which value in it.
  size_t n = item.groups.size();
  std::vector<size_t> range_index(n, 0);
  std::vector<uint64_t> value(n);
  for (size_t g = 0; g < n; ++g) value[g] = item.groups[g][0].lo;
  while (true) {
    std::string host = item.literals[0];
    for (size_t g = 0; g < n; ++g) {
      host += padded(value[g], item.groups[g][range_index[g]].width);
      host += item.literals[g + 1];
    }
    out.push_back(std::move(host));
    // Advance the last group; carry into the one before it when it wraps.
    size_t g = n;
    while (g > 0) {
      --g;
      const Group& group = item.groups[g];
      if (value[g] < group[range_index[g]].hi) {
        ++value[g];
        break;
      }
      if (range_index[g] + 1 < group.size()) {
        value[g] = group[++range_index[g]].lo;
        break;
      }
      range_index[g] = 0;
      value[g] = group[0].lo;
      if (g == 0) return;  // every group wrapped: done
    }
    if (n == 0) return;  // a plain host name
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& list, const std::string& what) {
  std::vector<std::string> hosts;
  for (const Item& item : Parser(list, what).parse()) expand_item(item, hosts);
  return hosts;
}

size_t count_hosts(const std::string& list, const std::string& what) {
  Parser parser(list, what);
  parser.parse();
  return parser.hosts();
}

std::string first_host(const std::string& list, const std::string& what) {
  std::vector<Item> items = Parser(list, what).parse();
  const Item& item = items.front();
  std::string host = item.literals[0];
  for (size_t g = 0; g < item.groups.size(); ++g) {
    const Range& first = item.groups[g].front();
    host += padded(first.lo, first.width);
    host += item.literals[g + 1];
  }
  return host;
}

}  // namespace weft::rendezvous
