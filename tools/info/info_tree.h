// The report weft-info prints: an ordered tree of named values, rendered either as
// indented text for people or as JSON for tools. Both come from the same tree, so they
// cannot disagree.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace weft::info {

class InfoNode {
 public:
  using Fields = std::vector<std::pair<std::string, InfoNode>>;
  using Items = std::vector<InfoNode>;

  InfoNode() : value_(Fields{}) {}                 // an empty object
  InfoNode(bool value) : value_(value) {}          // NOLINT: values convert implicitly on purpose
  InfoNode(int64_t value) : value_(value) {}       // NOLINT
  InfoNode(int value) : value_(int64_t{value}) {}  // NOLINT
  InfoNode(uint64_t value) : value_(static_cast<int64_t>(value)) {}  // NOLINT
  InfoNode(std::string value) : value_(std::move(value)) {}          // NOLINT
  InfoNode(const char* value) : value_(std::string(value)) {}        // NOLINT
  static InfoNode list() { return InfoNode(Items{}); }

  // Object fields keep their insertion order; add returns *this for chaining.
  InfoNode& add(std::string key, InfoNode value);
  // Appends to a list.
  InfoNode& push(InfoNode item);

  bool is_object() const { return std::holds_alternative<Fields>(value_); }
  bool is_list() const { return std::holds_alternative<Items>(value_); }
  // The field named `key` of an object, or nullptr.
  const InfoNode* find(const std::string& key) const;

  // JSON, two-space indented, keys in insertion order.
  std::string to_json() const;
  // "key: value" lines; objects and lists indent their contents under their key. The
  // top level's fields become "== Title" sections.
  std::string to_text() const;

 private:
  explicit InfoNode(Items items) : value_(std::move(items)) {}
  void write_json(std::string& out, int indent) const;
  void write_text(std::string& out, int indent) const;
  std::string scalar_text() const;

  std::variant<bool, int64_t, std::string, Fields, Items> value_;
};

}  // namespace weft::info
